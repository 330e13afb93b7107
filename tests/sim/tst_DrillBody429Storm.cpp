// The body-429-storm drill: six providers behind the real proxy; from scenario
// second 60 to 150 Qwen (DashScope) answers 85 % of its requests with HTTP 200 whose body is a rate
// limit. The proxy must read those as rate limits (cool the key, fail over to the route's fallback),
// not as successes and not as provider failures, and must not retry into a storm; the five other
// providers see no failure at all. Run at x10 (21 s).

#include "DrillHarness.h"

#include <QtTest>

using namespace sb;
using namespace sb::sim;

namespace {

quint64 injectedTotal(const FakeProvider::Stats &s)
{
    quint64 total = 0;
    for (quint64 n : s.injected)
        total += n;
    return total;
}

const ChannelSnapshot *channel(const MetricsSnapshot &snapshot, const QString &name)
{
    for (const ChannelSnapshot &c : snapshot.channels)
        if (c.name == name)
            return &c;
    return nullptr;
}

} // namespace

class tst_DrillBody429Storm : public QObject {
    Q_OBJECT

private slots:
    void bodyRateLimitsAreRateLimitsAndFailOverWithoutAStorm()
    {
#ifdef SB_SANITIZED
        QSKIP("Its figures depend on real-time speed; a sanitizer build runs several times slower. The Debug build asserts them.");
#endif
        const test::DrillOutcome run = test::runShippedDrill(QStringLiteral("body-429-storm"), 10.0);
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        const DrillReport &r = run.report;
        qInfo().noquote() << r.toText();

        // The storm happened: Qwen sent rate limits inside 200 bodies. Few of them, because the proxy
        // backed off: qwen-plus is 9 req/s for the 90 s of the storm, so a gateway that reads only status
        // codes would have sent Qwen ~810 requests and got ~690 body rate limits (plus its retries). Qwen
        // gives no hint, so its key rests 1 s after a refusal, doubling while refusals follow each rest,
        // and a success (15 % of its answers) ends the run: at most about one refusal a second. At
        // ×10 on a 2-core machine the count ranged from 10 to 191 over runs (b9a020e and 81efa48
        // alike; why it spreads so is not yet known), so the bound sits clear of that and still far
        // below the ~690 of a status-only gateway.
        const FakeProvider::Stats qwen = run.providers.value(QStringLiteral("qwen"));
        const quint64 bodyLimits = qwen.injected[std::size_t(SimError::BodyRateLimit)];
        qInfo("Qwen was sent into %llu body rate limits (at most 300)", static_cast<unsigned long long>(bodyLimits));
        QVERIFY2(bodyLimits >= 1, "Qwen never signalled a rate limit: the drill did not drill");
        QVERIFY2(bodyLimits <= 300, qPrintable(QStringLiteral("Qwen was sent into %1 body rate limits").arg(bodyLimits)));

        // Read as rate limits: Qwen's key cooled down (only a RETRYABLE_RATE_LIMIT does that), and its
        // breaker never opened (a rate limit is not a provider failure).
        QVERIFY(run.keyRings.value(QStringLiteral("qwen")).coolDowns > 0);
        const ChannelSnapshot *qwenChannel = channel(run.snapshot, QStringLiteral("qwen"));
        QVERIFY(qwenChannel);
        QCOMPARE(qwenChannel->breakerStats.trips, 0u);

        // … and failed over: the clients saw answers, from the fallback channel.
        QVERIFY(r.failovers > 0);
        QVERIFY2(r.successRate >= 0.99, qPrintable(r.toText()));
        const qsizetype doubao = r.channels.indexOf(QStringLiteral("doubao"));
        QVERIFY(doubao >= 0);

        // No retry storm: attempts stay close to requests, and Qwen got no more requests than the
        // clients sent for qwen-plus (three eighths of the load) — nobody retried into it.
        QVERIFY2(r.attempts <= r.requests * 1.25, qPrintable(QStringLiteral("%1 attempts for %2 requests").arg(r.attempts).arg(r.requests)));
        QVERIFY2(qwen.chat <= quint64(r.requests * 3 / 8 * 1.15),
                 qPrintable(QStringLiteral("Qwen got %1 chat requests of %2").arg(qwen.chat).arg(r.requests)));

        // The other providers (DeepSeek has its own plain 429s) never failed a request.
        for (const char *name : {"openai", "claude", "doubao", "ernie"}) {
            const FakeProvider::Stats s = run.providers.value(QLatin1String(name));
            QVERIFY2(s.chat > 0, name);
            QCOMPARE(injectedTotal(s), 0u);
        }
        QVERIFY(run.configRestored);
    }
};

QTEST_GUILESS_MAIN(tst_DrillBody429Storm)
#include "tst_DrillBody429Storm.moc"
