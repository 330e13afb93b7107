// Attach: a RemoteGateway watching a real Gateway through its admin API delivers the same
// snapshots and health events the embedded engine would, reports its connection state, and sends
// the console's channel actions to the remote instance.
#include "FakeProvider.h"
#include "engine/Gateway.h"
#include "engine/RemoteGateway.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTcpServer>

using namespace sb;
using namespace sb::sim;
using namespace std::chrono_literals;

namespace {

std::shared_ptr<EngineConfig> twoChannelConfig(const QString &primaryUrl, const QString &fallbackUrl, const QString &token)
{
    auto config = std::make_shared<EngineConfig>();
    config->proxy.listenPort = 0;
    config->proxy.localToken = token;
    ProviderConfig a;
    a.id = 1;
    a.name = QStringLiteral("primary");
    a.dialect = QStringLiteral("openai_compat");
    a.baseUrl = primaryUrl;
    a.keys = {ApiKeyConfig{1, QStringLiteral("primary key"), QStringLiteral("sk-primary-0001"), true, {}}};
    ProviderConfig b = a;
    b.id = 2;
    b.name = QStringLiteral("fallback");
    b.baseUrl = fallbackUrl;
    b.keys = {ApiKeyConfig{2, QStringLiteral("fallback key"), QStringLiteral("sk-fallback-0002"), true, {}}};
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
    config->probe.interval = 3600s; // heartbeats only at the first tick, so the compared windows hold still
    return config;
}

ProviderSpec spec(const QString &name)
{
    ProviderSpec s;
    s.name = name;
    s.dialect = QStringLiteral("openai_compat");
    s.models = {QStringLiteral("gpt-4o")};
    s.ttftMs = Distribution::constant(5);
    s.tokensPerSecond = Distribution::constant(2000);
    s.completionTokens = 12;
    return s;
}

} // namespace

class tst_RemoteGateway : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{77};
    std::unique_ptr<ScenarioClock> m_scenarioClock;
    std::unique_ptr<FakeProvider> m_primary;
    std::unique_ptr<FakeProvider> m_fallback;
    std::unique_ptr<Gateway> m_gateway;
    const QString m_token = QStringLiteral("attach-token");

    void startAll()
    {
        m_scenarioClock = std::make_unique<ScenarioClock>(m_clock, 1.0);
        m_primary = std::make_unique<FakeProvider>(spec("primary"), *m_scenarioClock, m_random);
        m_fallback = std::make_unique<FakeProvider>(spec("fallback"), *m_scenarioClock, m_random);
        QVERIFY(m_primary->start());
        QVERIFY(m_fallback->start());
        m_gateway = std::make_unique<Gateway>(m_clock, m_random, twoChannelConfig(m_primary->baseUrl(), m_fallback->baseUrl(), m_token));
        QString error;
        QVERIFY2(m_gateway->start(&error), qPrintable(error));
    }

    void chat()
    {
        QNetworkAccessManager http;
        QNetworkRequest req(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(m_gateway->port())));
        req.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        req.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
        const QByteArray body = QJsonDocument(QJsonObject{{"model", "gpt-4o"},
                                                          {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hi"}}}}})
                                    .toJson(QJsonDocument::Compact);
        QNetworkReply *reply = http.post(req, body);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        QVERIFY(finished.wait(20000));
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        reply->deleteLater();
    }

    RemoteGateway::Target target(const QString &token) const
    {
        RemoteGateway::Target t;
        t.host = QStringLiteral("127.0.0.1");
        t.port = m_gateway->port();
        t.token = token;
        return t;
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

    void snapshotsEqualTheEngines()
    {
        startAll();
        for (int i = 0; i < 3; ++i)
            chat();
        QTRY_VERIFY_WITH_TIMEOUT(m_gateway->snapshot().prober.started >= 1, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_gateway->snapshot().prober.succeeded + m_gateway->snapshot().prober.failed,
                                  m_gateway->snapshot().prober.started, 10000);
        RemoteGateway remote(m_clock, target(m_token));
        QSignalSpy snapshots(&remote, &RemoteGateway::snapshotReady);
        QSignalSpy states(&remote, &RemoteGateway::stateChanged);
        remote.start(200ms);
        QVERIFY(snapshots.wait(10000));
        QCOMPARE(remote.state(), RemoteGateway::State::Connected);
        QCOMPARE(states.last().first().value<RemoteGateway::State>(), RemoteGateway::State::Connected);
        QCOMPARE(remote.displayName(), QStringLiteral("http://127.0.0.1:%1").arg(m_gateway->port()));

        const MetricsSnapshot got = snapshots.last().first().value<MetricsSnapshot>();
        const MetricsSnapshot local = m_gateway->snapshot();
        QCOMPARE(got.requests, 3u);
        QCOMPARE(got.requests, local.requests);
        QCOMPARE(got.succeeded, local.succeeded);
        QCOMPARE(got.attempts, local.attempts);
        QCOMPARE(got.router.choices, local.router.choices);
        QCOMPARE(got.retryBudget.granted, local.retryBudget.granted);
        QVERIFY(got.wallMillis > 0);
        QCOMPARE(got.channels.size(), local.channels.size());
        for (std::size_t i = 0; i < got.channels.size(); ++i) {
            const ChannelSnapshot &g = got.channels[i];
            const ChannelSnapshot &l = local.channels[i];
            QCOMPARE(g.channelId, l.channelId);
            QCOMPARE(g.name, l.name);
            QCOMPARE(g.providerId, l.providerId);
            QCOMPARE(g.breaker, l.breaker);
            QCOMPARE(g.pool, l.pool);
            QCOMPARE(g.routable, l.routable);
            QCOMPARE(g.keysTotal, l.keysTotal);
            QCOMPARE(g.calls5m, l.calls5m);
        }
        QCOMPARE(got.channels.front().calls5m, 3u);
    }

    void channelNamesComeOnceFromTheInstance()
    {
        startAll();
        RemoteGateway remote(m_clock, target(m_token));
        QSignalSpy names(&remote, &RemoteGateway::namesReady);
        QSignalSpy snapshots(&remote, &RemoteGateway::snapshotReady);
        remote.start(100ms);
        QVERIFY(names.wait(10000));
        const EngineConfigPtr got = names.first().first().value<EngineConfigPtr>();
        QVERIFY(got);
        QCOMPARE(got->channels.size(), 2u);
        QCOMPARE(got->provider(1)->name, QStringLiteral("primary"));
        QCOMPARE(got->provider(2)->name, QStringLiteral("fallback"));
        QCOMPARE(got->routes.size(), 1u);
        QCOMPARE(got->routes.front().logicalModel, QStringLiteral("gpt-4o"));
        QCOMPARE(got->routes.front().channelIds, (std::vector<int>{1, 2}));
        QVERIFY(got->providers.front().keys.empty()); // names only: nothing secret travels
        QVERIFY(got->providers.front().baseUrl.isEmpty());
        // The same channels on later polls: not asked again.
        QTRY_VERIFY_WITH_TIMEOUT(snapshots.count() >= 4, 10000);
        QCOMPARE(names.count(), 1);
    }

    void eventsAndActionsFlowThrough()
    {
        startAll();
        RemoteGateway remote(m_clock, target(m_token));
        QSignalSpy snapshots(&remote, &RemoteGateway::snapshotReady);
        QSignalSpy events(&remote, &RemoteGateway::healthEvent);
        QSignalSpy actions(&remote, &RemoteGateway::actionFinished);
        remote.start(200ms);
        QVERIFY(snapshots.wait(10000));

        remote.eject(1);
        QTRY_COMPARE_WITH_TIMEOUT(actions.count(), 1, 10000);
        QVERIFY(actions.first().first().toBool());
        QCOMPARE(m_gateway->snapshot().channels.front().pool, PoolState::Drained);
        QTRY_VERIFY_WITH_TIMEOUT(!events.isEmpty(), 10000);
        const HealthEvent event = events.first().first().value<HealthEvent>();
        QCOMPARE(event.type, HealthEvent::Type::Pool);
        QCOMPARE(event.channelId, 1);
        QCOMPARE(event.channelName, QStringLiteral("gpt-4o/A"));
        QCOMPARE(event.to, QStringLiteral("drained"));
        QTRY_VERIFY_WITH_TIMEOUT(remote.lastSnapshot().channels.front().pool == PoolState::Drained, 10000);

        remote.readmit(1);
        QTRY_COMPARE_WITH_TIMEOUT(events.count(), 2, 10000);
        QCOMPARE(events.last().first().value<HealthEvent>().to, QStringLiteral("active"));

        remote.eject(42); // unknown: a failure with the instance's own sentence
        QTRY_COMPARE_WITH_TIMEOUT(actions.count(), 3, 10000);
        QVERIFY(!actions.last().first().toBool());
        QVERIFY(actions.last().at(1).toString().contains("channel 42"));
        QCOMPARE(events.count(), 2); // no event was invented or repeated
    }

    void wrongTokenIsReportedAsRefused()
    {
        startAll();
        RemoteGateway remote(m_clock, target(QStringLiteral("not-the-token")));
        QSignalSpy states(&remote, &RemoteGateway::stateChanged);
        QSignalSpy snapshots(&remote, &RemoteGateway::snapshotReady);
        remote.start(200ms);
        QTRY_COMPARE_WITH_TIMEOUT(remote.state(), RemoteGateway::State::Refused, 10000);
        QCOMPARE(snapshots.count(), 0);
        const QString message = states.last().at(1).toString();
        QVERIFY(message.contains("token"));
        QVERIFY(!message.contains("not-the-token")); // the token is never shown
    }

    void unreachableInstanceIsReported()
    {
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
        RemoteGateway::Target t;
        t.port = closed.serverPort();
        closed.close(); // nothing listens there now
        RemoteGateway remote(m_clock, t);
        remote.start(200ms);
        QTRY_COMPARE_WITH_TIMEOUT(remote.state(), RemoteGateway::State::Unreachable, 10000);
    }
};

QTEST_GUILESS_MAIN(tst_RemoteGateway)
#include "tst_RemoteGateway.moc"
