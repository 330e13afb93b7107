// The shipped tool-call-rescue drill at x2 speed through the real proxy (EmbeddedDrill, the
// console's path): every answer reasons, writes and calls a tool; the primary breaks streams inside
// the call's JSON, inside the reasoning and inside the text. Every stream must reach the client
// with one whole call and one whole answer, checked against what the providers recorded sending.

#include "DrillHarness.h"

#include <QJsonObject>
#include <QtTest>

using namespace sb;
using namespace sb::sim;

class tst_DrillToolCallRescue : public QObject {
    Q_OBJECT

private slots:
    void everyStreamGetsOneWholeCall()
    {
        const test::DrillOutcome run = test::runShippedDrill(QStringLiteral("tool-call-rescue"), 2.0);
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        const DrillReport &r = run.report;
        qInfo().noquote() << r.toText();

        const FakeProvider::Stats primary = run.providers.value(QStringLiteral("primary"));
        const quint64 breaks = primary.injected[std::size_t(SimError::StreamCut)] + primary.injected[std::size_t(SimError::MidStreamError)];
        QVERIFY2(breaks > 60, "the primary broke few streams: the drill did not drill");
        QVERIFY(r.streamRescueJson);
        const QJsonObject score = *r.streamRescueJson;
        const int streams = score.value("streams").toInt();
        QVERIFY2(streams > 250, qPrintable(r.toText()));
        QVERIFY2(score.value("well_formed").toInt() >= streams * 0.999, qPrintable(r.toText()));
        QCOMPARE(score.value("intact").toInt(), score.value("well_formed").toInt());
        QCOMPARE(score.value("with_tool_calls").toInt(), score.value("well_formed").toInt());
        QCOMPARE(score.value("tool_calls_whole").toInt(), score.value("with_tool_calls").toInt()); // never half a call, never two
        QVERIFY(run.configRestored);
    }
};

QTEST_GUILESS_MAIN(tst_DrillToolCallRescue)
#include "tst_DrillToolCallRescue.moc"
