// The request deadline end to end (issue #4): when the overall deadline (retry.overall_deadline)
// passes before any channel answered, the client gets 504 in OpenAI's error format — for plain and
// streamed requests, with one hanging channel and across a failover — and nothing after it.
#include "FakeProvider.h"
#include "engine/Gateway.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>

using namespace sb;
using namespace sb::sim;
using namespace std::chrono_literals;

namespace {

ProviderSpec spec(const QString &name, bool hang)
{
    ProviderSpec s;
    s.name = name;
    s.dialect = QStringLiteral("openai_compat");
    s.models = {QStringLiteral("gpt-4o")};
    s.ttftMs = Distribution::constant(5);
    s.tokensPerSecond = Distribution::constant(2000);
    s.completionTokens = 8;
    if (hang) {
        FaultSpec fault;
        fault.type = FaultSpec::Type::Errors;
        fault.from = 0;
        fault.probability = 1.0;
        fault.mix = {ErrorMixEntry{SimError::Hang, 1.0}};
        s.faults = {fault};
    }
    return s;
}

} // namespace

class tst_ProxyDeadline : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{42};
    std::unique_ptr<ScenarioClock> m_scenarioClock;
    std::unique_ptr<FakeProvider> m_primary;
    std::unique_ptr<FakeProvider> m_fallback;
    std::unique_ptr<Gateway> m_gateway;
    QNetworkAccessManager m_http;

    struct Reply {
        int status = 0;
        QByteArray body;
        QHash<QByteArray, QByteArray> headers;
        QJsonObject error() const { return QJsonDocument::fromJson(body).object().value("error").toObject(); }
    };

    // attemptTimeout: each channel's own budget; deadline: the whole request's.
    void start(bool primaryHangs, bool fallbackHangs, std::chrono::milliseconds attemptTimeout,
               std::chrono::milliseconds deadline)
    {
        m_scenarioClock = std::make_unique<ScenarioClock>(m_clock, 1.0);
        m_primary = std::make_unique<FakeProvider>(spec("primary", primaryHangs), *m_scenarioClock, m_random);
        m_fallback = std::make_unique<FakeProvider>(spec("fallback", fallbackHangs), *m_scenarioClock, m_random);
        QString error;
        QVERIFY2(m_primary->start(&error), qPrintable(error));
        QVERIFY2(m_fallback->start(&error), qPrintable(error));
        auto config = std::make_shared<EngineConfig>();
        config->proxy.listenPort = 0;
        ProviderConfig a;
        a.id = 1;
        a.name = QStringLiteral("primary");
        a.dialect = QStringLiteral("openai_compat");
        a.baseUrl = m_primary->baseUrl();
        a.primaryTimeout = attemptTimeout;
        a.fallbackTimeout = attemptTimeout;
        a.domain.account = QStringLiteral("acct-a");
        a.keys = {ApiKeyConfig{1, QStringLiteral("a"), QStringLiteral("sk-primary-0001"), true, {}}};
        ProviderConfig b = a;
        b.id = 2;
        b.name = QStringLiteral("fallback");
        b.baseUrl = m_fallback->baseUrl();
        b.domain.account = QStringLiteral("acct-b");
        b.keys = {ApiKeyConfig{2, QStringLiteral("b"), QStringLiteral("sk-fallback-0002"), true, {}}};
        config->providers = {a, b};
        ChannelConfig ca;
        ca.id = 1;
        ca.name = QStringLiteral("gpt-4o/A");
        ca.providerId = 1;
        ca.upstreamModel = QStringLiteral("gpt-4o");
        ChannelConfig cb = ca;
        cb.id = 2;
        cb.name = QStringLiteral("gpt-4o/B");
        cb.providerId = 2;
        config->channels = {ca, cb};
        RouteConfig route;
        route.id = 1;
        route.logicalModel = QStringLiteral("gpt-4o");
        route.strategy = RoutingStrategy::Priority;
        route.channelIds = {1, 2};
        config->routes = {route};
        config->retry.baseDelay = 10ms;
        config->retry.jitter = 5ms;
        config->retry.overallDeadline = deadline;
        QVERIFY(config->validate().isEmpty());
        m_gateway = std::make_unique<Gateway>(m_clock, m_random, config);
        QVERIFY2(m_gateway->start(&error), qPrintable(error));
    }

    Reply chat(bool stream)
    {
        const QJsonObject body{{"model", "gpt-4o"},
                               {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hello"}}}},
                               {"stream", stream}};
        QNetworkRequest req(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(m_gateway->port())));
        req.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        QNetworkReply *reply = m_http.post(req, QJsonDocument(body).toJson(QJsonDocument::Compact));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(30000);
        Reply out;
        out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        out.body = reply->readAll();
        for (const auto &pair : reply->rawHeaderPairs())
            out.headers.insert(pair.first.toLower(), pair.second);
        reply->deleteLater();
        return out;
    }

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
    void cleanup()
    {
        if (m_gateway)
            m_gateway->stop(500ms);
        m_gateway.reset();
        m_primary.reset();
        m_fallback.reset();
    }

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
        QCOMPARE(m_primary->stats().chat, 1u);
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
        QVERIFY(m_primary->stats().chat >= 1u);
        QVERIFY(m_fallback->stats().chat >= 1u);
        QVERIFY(reply.headers.value("x-switchboard-attempts").toInt() >= 2);
    }
};

QTEST_GUILESS_MAIN(tst_ProxyDeadline)
#include "tst_ProxyDeadline.moc"
