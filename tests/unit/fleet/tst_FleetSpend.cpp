// FleetSpend against a real redis-server: three instances adding their spend to one route see the
// fleet's sum, and Redis holds exactly what was added (many adds, few commands); spend added while
// Redis is gone is kept and counted once it is back; the alert of a period is won by exactly one
// instance, and Unknown (not lost, not won) when Redis cannot be asked.
#include "RedisServer.h"
#include "fleet/FleetSpend.h"
#include "fleet/RedisConnection.h"

#include <QSignalSpy>
#include <QtTest>

#include <memory>
#include <vector>

using namespace sb;
using namespace sb::test;
using namespace std::chrono_literals;

class tst_FleetSpend : public QObject {
    Q_OBJECT

    const Clock &m_clock = SystemClock::instance();

private slots:
    void theFleetSumsItsSpend()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        const auto connections = openConnections(server, 3);
        QCOMPARE(int(connections.size()), 3);
        std::vector<std::unique_ptr<FleetSpend>> spends;
        for (int i = 0; i < 3; ++i) {
            spends.push_back(std::make_unique<FleetSpend>(m_clock, *connections[i], "sb:test:"));
        }
        // 300 requests of 0.25 USD each, spread over the three.
        for (int i = 0; i < 300; ++i)
            spends[i % 3]->add(QStringLiteral("gpt-4o"), QStringLiteral("2026-12"), 0.25);
        for (auto &spend : spends)
            QCOMPARE(spend->total(QStringLiteral("gpt-4o"), QStringLiteral("2026-12")) >= 25.0, true);
        QTRY_COMPARE(server.cli({QStringLiteral("GET"), QStringLiteral("sb:test:spend:gpt-4o:2026-12")}), QStringLiteral("75"));
        // One more add each, so every instance has read the fleet's total back.
        for (auto &spend : spends)
            spend->add(QStringLiteral("gpt-4o"), QStringLiteral("2026-12"), 1.0);
        QTRY_COMPARE(server.cli({QStringLiteral("GET"), QStringLiteral("sb:test:spend:gpt-4o:2026-12")}), QStringLiteral("78"));
        QTRY_VERIFY(spends[2]->total(QStringLiteral("gpt-4o"), QStringLiteral("2026-12")) >= 77.0);
        std::uint64_t commands = 0;
        for (auto &connection : connections)
            commands += connection->stats().sent;
        qInfo("303 adds in %llu commands", qulonglong(commands));
        // Two sends per instance (the 300, then the one more), each an INCRBYFLOAT, and the TTL set once.
        QVERIFY2(commands <= 3 * 3 + 3, qPrintable(QString::number(commands)));
        // Another period is another sum.
        QCOMPARE(spends[0]->total(QStringLiteral("gpt-4o"), QStringLiteral("2027-01")), 0.0);
        const QString ttl = server.cli({QStringLiteral("TTL"), QStringLiteral("sb:test:spend:gpt-4o:2026-12")});
        QVERIFY2(ttl.toLongLong() > 0, qPrintable(ttl));
    }

    void spendWhileRedisIsGoneIsCountedWhenItIsBack()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        RedisConnection connection(m_clock);
        QVERIFY(openOn(connection, server));
        FleetSpend spend(m_clock, connection, "sb:test:");
        spend.add(QStringLiteral("claude"), QStringLiteral("2026-12"), 2.0);
        QTRY_COMPARE(server.cli({QStringLiteral("GET"), QStringLiteral("sb:test:spend:claude:2026-12")}), QStringLiteral("2"));
        server.kill();
        QTRY_VERIFY(!connection.isReady());
        spend.add(QStringLiteral("claude"), QStringLiteral("2026-12"), 3.5);
        QTest::qWait(50);
        QCOMPARE(spend.total(QStringLiteral("claude"), QStringLiteral("2026-12")), 5.5);

        QVERIFY2(server.start({}, &error), qPrintable(error)); // empty again: the fleet's record restarts
        QVERIFY(openOn(connection, server));
        spend.flush();
        QTRY_COMPARE(server.cli({QStringLiteral("GET"), QStringLiteral("sb:test:spend:claude:2026-12")}), QStringLiteral("3.5"));
    }

    void oneInstanceWinsAnAlert()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        const auto connections = openConnections(server, 3);
        QCOMPARE(int(connections.size()), 3);
        std::vector<std::unique_ptr<FleetSpend>> spends;
        for (int i = 0; i < 3; ++i) {
            spends.push_back(std::make_unique<FleetSpend>(m_clock, *connections[i], "sb:test:"));
        }
        QList<FleetSpend::Claim> claims;
        for (int i = 0; i < 3; ++i)
            spends[i]->claimAlert(QStringLiteral("gpt-4o"), QStringLiteral("2026-12"), QStringLiteral("soft"), QStringLiteral("instance-%1").arg(i),
                                  [&](FleetSpend::Claim claim) { claims << claim; });
        QTRY_COMPARE(claims.size(), 3);
        QCOMPARE(claims.count(FleetSpend::Claim::Won), 1);
        QCOMPARE(claims.count(FleetSpend::Claim::Taken), 2);
        // The hard stop is its own alert.
        FleetSpend::Claim hard = FleetSpend::Claim::Unknown;
        spends[1]->claimAlert(QStringLiteral("gpt-4o"), QStringLiteral("2026-12"), QStringLiteral("hard"), QStringLiteral("instance-1"),
                              [&](FleetSpend::Claim claim) { hard = claim; });
        QTRY_COMPARE(hard, FleetSpend::Claim::Won);

        server.kill();
        QTRY_VERIFY(!connections[0]->isReady());
        FleetSpend::Claim gone = FleetSpend::Claim::Won;
        spends[0]->claimAlert(QStringLiteral("gpt-4o"), QStringLiteral("2027-01"), QStringLiteral("soft"), QStringLiteral("instance-0"),
                              [&](FleetSpend::Claim claim) { gone = claim; });
        QCOMPARE(gone, FleetSpend::Claim::Unknown);
    }
};

QTEST_GUILESS_MAIN(tst_FleetSpend)
#include "tst_FleetSpend.moc"
