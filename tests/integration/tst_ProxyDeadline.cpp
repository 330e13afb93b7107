// The request deadline end to end: when the overall deadline (retry.overall_deadline)
// passes before any channel answered, the client gets 504 in OpenAI's error format — for plain and
// streamed requests, with one hanging channel and across a failover — and nothing after it.
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyUnderTest.h"

#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

std::vector<FaultSpec> hanging(bool hangs)
{
    return hangs ? std::vector<FaultSpec>{always(SimError::Hang)} : std::vector<FaultSpec>{};
}

} // namespace

class tst_ProxyDeadline : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{42};
    ProxyUnderTest m_proxy{m_clock, m_random};
    ProxyClient m_client;

    // attemptTimeout: each channel's own budget; deadline: the whole request's.
    void start(bool primaryHangs, bool fallbackHangs, std::chrono::milliseconds attemptTimeout,
               std::chrono::milliseconds deadline)
    {
        QString error;
        QVERIFY2(m_proxy.start(fakeProviderSpec("primary", hanging(primaryHangs)), fakeProviderSpec("fallback", hanging(fallbackHangs)),
                               [&](EngineConfig &config) {
                                   for (ProviderConfig &provider : config.providers) {
                                       provider.primaryTimeout = attemptTimeout;
                                       provider.fallbackTimeout = attemptTimeout;
                                   }
                                   config.retry.overallDeadline = deadline;
                               },
                               &error),
                 qPrintable(error));
    }

    Reply chat(bool stream) { return m_client.postChat(m_proxy.gateway->port(), chatBody(stream)); }

    void check504(const Reply &reply)
    {
        QVERIFY2(reply.status == 504, qPrintable(QStringLiteral("%1 %2").arg(reply.status).arg(QString::fromUtf8(reply.body))));
        QVERIFY(reply.headers.value("content-type").startsWith("application/json")); // not an SSE stream
        const QJsonObject error = reply.error();
        QCOMPARE(error.value("code").toString(), QStringLiteral("deadline_exceeded"));
        QCOMPARE(error.value("type").toString(), QStringLiteral("timeout"));
        QVERIFY2(error.value("message").toString().contains(QStringLiteral("gpt-4o")), reply.body.constData());
        QVERIFY(error.contains("param")); // the whole OpenAI envelope: message, type, param, code
    }

private slots:
    void cleanup() { m_proxy.stop(); }

    void aDeadlineThatIsNotReachedChangesNothing()
    {
        // The control case: same deadline, a primary that answers.
        start(false, false, 5s, 800ms);
        const Reply reply = chat(false);
        QCOMPARE(reply.status, 200);
    }

    void theDeadlinePassingOnAHangingChannelGives504_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::newRow("non-stream") << false;
        QTest::newRow("stream, before the first byte") << true;
    }

    void theDeadlinePassingOnAHangingChannelGives504()
    {
        // The channel's own budget (5 s) is longer than the request's deadline (800 ms): the deadline ends it.
        QFETCH(bool, stream);
        start(true, true, 5s, 800ms);
        const Reply reply = chat(stream);
        check504(reply);
        QCOMPARE(m_proxy.primary->stats().chat, 1u);
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/A"));
    }

    void theDeadlinePassingDuringTheFailoverGives504()
    {
        // The primary's budget (300 ms) runs out first; the failover to a hanging fallback gets only
        // what is left of the 900 ms deadline, and the deadline — not the fallback's 300 ms — ends it.
        start(true, true, 300ms, 900ms);
        const Reply reply = chat(false);
        QVERIFY2(reply.status == 504, reply.body.constData());
        QCOMPARE(reply.error().value("type").toString(), QStringLiteral("timeout"));
        // Both budgets run out inside the deadline, so the primary may be tried again before it passes.
        QVERIFY(m_proxy.primary->stats().chat >= 1u);
        QVERIFY(m_proxy.fallback->stats().chat >= 1u);
        QVERIFY(reply.headers.value("x-switchboard-attempts").toInt() >= 2);
    }
};

QTEST_GUILESS_MAIN(tst_ProxyDeadline)
#include "tst_ProxyDeadline.moc"
