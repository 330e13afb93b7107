// FleetRoster against a real redis-server: three instances that announce themselves are listed by
// each of them with what they announced; one that stops announcing drops out once its key expires;
// an instance on another configuration than most is named (every one on a tie); a Redis that is
// gone lists nobody at once.
#include "RedisServer.h"
#include "fleet/FleetRoster.h"
#include "fleet/RedisConnection.h"

#include <QSignalSpy>
#include <QtTest>

#include <memory>
#include <optional>
#include <vector>

using namespace sb;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

FleetInstance instance(int n, const QString &configHash)
{
    FleetInstance i;
    i.id = QStringLiteral("edge-%1:8400").arg(n);
    i.version = QStringLiteral("0.9.0");
    i.configHash = configHash;
    i.startedWallMillis = 1800000000000 + n;
    i.lastSeenWallMillis = 1800000005000 + n;
    i.requestsPerSecond = 12.5 * n;
    if (n == 2)
        i.openCircuits = {QStringLiteral("gpt-4o/A")};
    return i;
}

} // namespace

class tst_FleetRoster : public QObject {
    Q_OBJECT

    const Clock &m_clock = SystemClock::instance();

    static std::vector<FleetInstance> listed(FleetRoster &roster)
    {
        std::optional<std::vector<FleetInstance>> result;
        roster.list([&](std::vector<FleetInstance> instances) { result = std::move(instances); });
        if (!QTest::qWaitFor([&] { return result.has_value(); }, 3000))
            qWarning("the roster did not answer in 3 s");
        return result.value_or(std::vector<FleetInstance>{});
    }

private slots:
    void aTieNamesEveryInstanceAndAMajorityOnlyTheOthers()
    {
        const std::vector<FleetInstance> tie{instance(1, QStringLiteral("aaaa")), instance(2, QStringLiteral("bbbb"))};
        QCOMPARE(FleetRoster::divergentConfigs(tie), (QStringList{QStringLiteral("edge-1:8400"), QStringLiteral("edge-2:8400")}));
        const std::vector<FleetInstance> majority{instance(1, QStringLiteral("bbbb")), instance(2, QStringLiteral("aaaa")),
                                                  instance(3, QStringLiteral("aaaa")), instance(4, QStringLiteral("cccc"))};
        QCOMPARE(FleetRoster::divergentConfigs(majority), (QStringList{QStringLiteral("edge-1:8400"), QStringLiteral("edge-4:8400")}));
        const std::vector<FleetInstance> same{instance(1, QStringLiteral("aaaa")), instance(2, QStringLiteral("aaaa"))};
        QVERIFY(FleetRoster::divergentConfigs(same).isEmpty());
        QVERIFY(FleetRoster::divergentConfigs({}).isEmpty());
    }

    void everyInstanceSeesTheFleet()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        const auto connections = openConnections(server, 3);
        QCOMPARE(int(connections.size()), 3);
        std::vector<std::unique_ptr<FleetRoster>> rosters;
        for (int n = 1; n <= 3; ++n) {
            rosters.push_back(std::make_unique<FleetRoster>(*connections[n - 1], "sb:test:", 400ms));
        }
        // Another fleet on the same Redis is not ours.
        server.cli({QStringLiteral("SET"), QStringLiteral("sb:other:instance:x"), QStringLiteral("{\"id\":\"x\"}")});
        for (int n = 1; n <= 3; ++n)
            QVERIFY(rosters[n - 1]->announce(instance(n, n == 3 ? QStringLiteral("bbbb") : QStringLiteral("aaaa"))));

        std::vector<FleetInstance> seen;
        QTRY_VERIFY_WITH_TIMEOUT((seen = listed(*rosters[0])).size() == 3, 3000);
        QCOMPARE(seen[1].id, QStringLiteral("edge-2:8400"));
        QCOMPARE(seen[1].version, QStringLiteral("0.9.0"));
        QCOMPARE(seen[1].requestsPerSecond, 25.0);
        QCOMPARE(seen[1].openCircuits, QStringList{QStringLiteral("gpt-4o/A")});
        QCOMPARE(seen[1].lastSeenWallMillis, qint64(1800000005002));
        QCOMPARE(listed(*rosters[2]).size(), std::size_t(3));
        QCOMPARE(FleetRoster::divergentConfigs(seen), QStringList{QStringLiteral("edge-3:8400")});

        // Instances 1 and 2 keep announcing; 3 stops, and drops out when its key expires.
        for (int round = 0; round < 8; ++round) {
            QVERIFY(rosters[0]->announce(instance(1, QStringLiteral("aaaa"))));
            QVERIFY(rosters[1]->announce(instance(2, QStringLiteral("aaaa"))));
            QTest::qWait(100);
        }
        seen = listed(*rosters[1]);
        QCOMPARE(seen.size(), std::size_t(2));
        QCOMPARE(seen[0].id, QStringLiteral("edge-1:8400"));
        QVERIFY(FleetRoster::divergentConfigs(seen).isEmpty());

        server.kill();
        QTRY_VERIFY(!connections[0]->isReady());
        QVERIFY(!rosters[0]->announce(instance(1, QStringLiteral("aaaa"))));
        QVERIFY(listed(*rosters[0]).empty());
    }

    void aLargeFleetIsWalkedWithScan()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        RedisConnection connection(m_clock);
        QVERIFY(openOn(connection, server));
        FleetRoster roster(connection, "sb:big:", 10s);
        for (int n = 0; n < 700; ++n)
            QVERIFY(roster.announce(instance(n, QStringLiteral("aaaa"))));
        const auto seen = listed(roster);
        QCOMPARE(seen.size(), std::size_t(700));
    }
};

QTEST_GUILESS_MAIN(tst_FleetRoster)
#include "tst_FleetRoster.moc"
