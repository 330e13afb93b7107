// The flapping-primary drill (failover storms): the primary is down 10 s and
// up 10 s from scenario second 30 to 210, through the real proxy at x10 (24 s; x5 in a sanitizer
// build, whose slower streams would otherwise run into the callers' 3 s timeout on a busy machine). Callers must keep
// getting answers without a failover storm: attempts stay close to requests, the retry budget holds
// (few retries beyond the immediate failover), failovers stay a small share of
// the traffic because the breaker takes the primary out instead of every request discovering it.

#include "DrillHarness.h"

#include <QtTest>

using namespace sb;
using namespace sb::sim;

class tst_DrillFlappingPrimary : public QObject {
    Q_OBJECT

private slots:
    void flappingPrimaryCausesNoFailoverStorm()
    {
#ifdef SB_SANITIZED
        constexpr double timeScale = 5.0;
#else
        constexpr double timeScale = 10.0;
#endif
        const test::DrillOutcome run = test::runShippedDrill(QStringLiteral("flapping-primary"), timeScale);
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        const DrillReport &r = run.report;
        qInfo().noquote() << r.toText();

        // It flapped: the primary refused requests in its down windows and answered in its up windows.
        const FakeProvider::Stats primary = run.providers.value(QStringLiteral("primary"));
        quint64 injected = 0;
        for (quint64 n : primary.injected)
            injected += n;
        QVERIFY2(injected > 0, "the primary never failed: nothing flapped");
        QVERIFY(primary.succeeded > 0);
        QVERIFY(run.providers.value(QStringLiteral("fallback")).succeeded > 0);

        QVERIFY2(r.successRate >= 0.99, qPrintable(r.toText()));
        // No storm: few requests needed a second attempt, none needed many.
        QVERIFY2(r.attempts <= r.requests * 1.15, qPrintable(QStringLiteral("%1 attempts for %2 requests").arg(r.attempts).arg(r.requests)));
        QVERIFY2(r.failovers <= r.requests / 10, qPrintable(QStringLiteral("%1 failovers for %2 requests").arg(r.failovers).arg(r.requests)));
        // The breaker did the work: it tripped, at most about once per down window (9 of them) plus
        // half-open trials that met a down window.
        quint64 trips = 0;
        for (const ChannelSnapshot &c : run.snapshot.channels)
            if (c.name == QLatin1String("primary"))
                trips = c.breakerStats.trips;
        QVERIFY(trips >= 1);
        QVERIFY2(trips <= 20, qPrintable(QStringLiteral("%1 trips").arg(trips)));
        // Retries beyond the immediate failover spend the retry budget; a storm would show as many of them.
        QVERIFY2(run.snapshot.retryBudget.granted <= quint64(r.requests / 20),
                 qPrintable(QStringLiteral("%1 budgeted retries for %2 requests").arg(run.snapshot.retryBudget.granted).arg(r.requests)));
        QVERIFY(run.configRestored);
    }
};

QTEST_GUILESS_MAIN(tst_DrillFlappingPrimary)
#include "tst_DrillFlappingPrimary.moc"
