// Attach: a RemoteGateway watching a real Gateway through its admin API delivers the same
// snapshots and health events the embedded engine would, reports its connection state, and sends
// the console's channel actions to the remote instance.
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyUnderTest.h"
#include "remote/RemoteGateway.h"

#include <QtTest>
#include <QTcpServer>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

class tst_RemoteGateway : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{77};
    ProxyUnderTest m_proxy{m_clock, m_random};
    ProxyClient m_client;
    const QString m_token = QStringLiteral("attach-token");

    void startAll()
    {
        QString error;
        QVERIFY2(m_proxy.start(fakeProviderSpec("primary"), fakeProviderSpec("fallback"),
                               [this](EngineConfig &config) {
                                   config.proxy.localToken = m_token;
                                   config.probe.interval = 3600s; // heartbeats only at the first tick, so the compared windows hold still
                               },
                               &error),
                 qPrintable(error));
    }

    void chat()
    {
        const Reply reply = m_client.postChat(m_proxy.gateway->port(), chatBody(false), {{"Authorization", "Bearer " + m_token.toUtf8()}});
        QCOMPARE(reply.status, 200);
    }

    RemoteGateway::Target target(const QString &token) const
    {
        RemoteGateway::Target t;
        t.host = QStringLiteral("127.0.0.1");
        t.port = m_proxy.gateway->port();
        t.token = token;
        return t;
    }

private slots:
    void cleanup() { m_proxy.stop(); }

    void snapshotsEqualTheEngines()
    {
        startAll();
        for (int i = 0; i < 3; ++i)
            chat();
        QTRY_VERIFY_WITH_TIMEOUT(m_proxy.gateway->snapshot().prober.started >= 1, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy.gateway->snapshot().prober.succeeded + m_proxy.gateway->snapshot().prober.failed,
                                  m_proxy.gateway->snapshot().prober.started, 10000);
        RemoteGateway remote(m_clock, target(m_token));
        QSignalSpy snapshots(&remote, &RemoteGateway::snapshotReady);
        QSignalSpy states(&remote, &RemoteGateway::stateChanged);
        remote.start(200ms);
        QVERIFY(snapshots.wait(10000));
        QCOMPARE(remote.state(), RemoteGateway::State::Connected);
        QCOMPARE(states.last().first().value<RemoteGateway::State>(), RemoteGateway::State::Connected);
        QCOMPARE(remote.displayName(), QStringLiteral("http://127.0.0.1:%1").arg(m_proxy.gateway->port()));

        const MetricsSnapshot got = snapshots.last().first().value<MetricsSnapshot>();
        const MetricsSnapshot local = m_proxy.gateway->snapshot();
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
        QCOMPARE(m_proxy.gateway->snapshot().channels.front().pool, PoolState::Drained);
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
