// FleetLease against a real redis-server: of three instances asking for one lease at once exactly
// one holds it; the holder asking again renews it; it expires on its own when the holder goes
// quiet, and goes to the next one asking; a release by an instance that no longer holds it leaves
// the new holder's lease alone; a Redis that is gone answers Unknown at once.
#include "RedisServer.h"
#include "fleet/FleetLease.h"
#include "fleet/RedisConnection.h"

#include <QSignalSpy>
#include <QtTest>

#include <memory>
#include <vector>

using namespace sb;
using namespace sb::test;
using namespace std::chrono_literals;

class tst_FleetLease : public QObject {
    Q_OBJECT

    const Clock &m_clock = SystemClock::instance();

    static FleetLease::Result acquired(FleetLease &lease, std::chrono::milliseconds duration)
    {
        std::optional<FleetLease::Result> result;
        lease.acquire(QStringLiteral("trial:gpt-4o/A"), duration, [&](FleetLease::Result r) { result = r; });
        if (!QTest::qWaitFor([&] { return result.has_value(); }, 3000))
            qWarning("no answer about the lease in 3 s");
        return result.value_or(FleetLease::Result::Unknown);
    }

private slots:
    void oneInstanceHoldsTheLease()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        const auto connections = openConnections(server, 3);
        QCOMPARE(int(connections.size()), 3);
        std::vector<std::unique_ptr<FleetLease>> leases;
        for (int n = 0; n < 3; ++n) {
            leases.push_back(std::make_unique<FleetLease>(*connections[n], "sb:test:", QStringLiteral("edge-%1").arg(n)));
        }
        QList<FleetLease::Result> results;
        for (auto &lease : leases)
            lease->acquire(QStringLiteral("trial:gpt-4o/A"), 600ms, [&](FleetLease::Result r) { results << r; });
        QTRY_COMPARE(results.size(), 3);
        QCOMPARE(results.count(FleetLease::Result::Held), 1);
        QCOMPARE(results.count(FleetLease::Result::HeldElsewhere), 2);
        const int holder = int(results.indexOf(FleetLease::Result::Held));
        const int other = (holder + 1) % 3;

        // The holder renews it while it works; the others keep getting HeldElsewhere.
        for (int round = 0; round < 4; ++round) {
            QCOMPARE(acquired(*leases[holder], 600ms), FleetLease::Result::Held);
            QCOMPARE(acquired(*leases[other], 600ms), FleetLease::Result::HeldElsewhere);
            QTest::qWait(100);
        }
        // Quiet past its expiry: the next one asking has it, and the old holder's late release
        // does not take it away.
        QTest::qWait(800);
        QCOMPARE(acquired(*leases[other], 600ms), FleetLease::Result::Held);
        leases[holder]->release(QStringLiteral("trial:gpt-4o/A"));
        QTest::qWait(50);
        QCOMPARE(server.cli({QStringLiteral("GET"), QStringLiteral("sb:test:lease:trial:gpt-4o/A")}), QStringLiteral("edge-%1").arg(other));
        // Its own release frees it at once.
        leases[other]->release(QStringLiteral("trial:gpt-4o/A"));
        QTRY_COMPARE(acquired(*leases[holder], 600ms), FleetLease::Result::Held);

        server.kill();
        QTRY_VERIFY(!connections[0]->isReady());
        QCOMPARE(acquired(*leases[0], 600ms), FleetLease::Result::Unknown);
    }
};

QTEST_GUILESS_MAIN(tst_FleetLease)
#include "tst_FleetLease.moc"
