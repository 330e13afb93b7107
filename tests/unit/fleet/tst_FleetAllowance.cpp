// FleetAllowance against a real redis-server: three instances' allowances of one bucket, each
// spending as fast as it can, are granted together what the fleet's limit lets through in the
// time (never more, and less by at most a chunk per instance); below the limit every request is
// spent locally, many per script run; a Redis restarted meanwhile (the script forgotten) is handled by
// loading it again; and a Redis that is gone refuses locally at once instead of waiting.
#include "RedisServer.h"
#include "fleet/FleetAllowance.h"
#include "fleet/RedisConnection.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

#include <memory>
#include <vector>

using namespace sb;
using namespace sb::test;
using namespace std::chrono_literals;

class tst_FleetAllowance : public QObject {
    Q_OBJECT

    const Clock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{7};

private slots:
    void chunksKeepTheFleetWithinItsAccuracy()
    {
        QCOMPARE(FleetAllowance::chunkFor(600, 3), 10);    // 3 × 10 unspent = 5 % of 600
        QCOMPARE(FleetAllowance::chunkFor(60, 3), 1);      // never below one
        QCOMPARE(FleetAllowance::chunkFor(6000, 1), 300);
        QCOMPARE(FleetAllowance::chunkFor(1e9, 1), 1000);  // a draw stays a small reply
    }

    void threeInstancesShareOneLimit_data()
    {
        QTest::addColumn<double>("perMinute");
        QTest::addColumn<int>("burst");
        QTest::newRow("600 per minute") << 600.0 << 10;
        QTest::newRow("6,000 per minute") << 6000.0 << 50;
    }

    void threeInstancesShareOneLimit()
    {
        QFETCH(double, perMinute);
        QFETCH(int, burst);
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        constexpr int kInstances = 3;
        const auto connections = openConnections(server, kInstances);
        QCOMPARE(int(connections.size()), kInstances);
        std::vector<std::unique_ptr<FleetAllowance>> allowances;
        const FleetAllowance::Limit limit{"sb:test:limit:provider-a:rpm", perMinute, burst, FleetAllowance::chunkFor(perMinute, kInstances)};
        for (int i = 0; i < kInstances; ++i) {
            allowances.push_back(std::make_unique<FleetAllowance>(m_clock, m_random, *connections[i], limit));
        }
        QElapsedTimer elapsed;
        elapsed.start();
        for (auto &allowance : allowances)
            allowance->topUp();
        std::uint64_t admitted = 0;
        while (elapsed.elapsed() < 4000) {
            for (auto &allowance : allowances)
                while (allowance->tryTake())
                    ++admitted;
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        }
        const double seconds = double(elapsed.elapsed()) / 1000.0;
        std::uint64_t granted = 0, draws = 0;
        int held = 0;
        for (auto &allowance : allowances) {
            granted += allowance->stats().granted;
            draws += allowance->stats().draws;
            held += allowance->held();
        }
        QCOMPARE(granted, admitted + std::uint64_t(held));
        const double allowed = burst + perMinute / 60.0 * seconds;
        qInfo("%.0f/min, burst %d, chunk %d: %llu admitted, %d held, %llu granted in %llu draws over %.2f s; the bucket allowed %.1f",
              perMinute, burst, std::min(limit.chunk, burst), qulonglong(admitted), held, qulonglong(granted), qulonglong(draws), seconds, allowed);
        // Never above the limit; below it by no more than a chunk per instance (what chunkFor
        // keeps within 5 % of a minute's limit).
        QVERIFY2(double(admitted) <= allowed + 1.0, "the fleet admitted more than its limit");
        QVERIFY2(double(admitted + kInstances * limit.chunk) >= allowed, "the fleet admitted less than its limit by more than its chunks");
    }

    void belowTheLimitEveryRequestIsSpentLocally()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        constexpr int kInstances = 3;
        const FleetAllowance::Limit limit{"sb:test:limit:provider-c:rpm", 6000, 300, FleetAllowance::chunkFor(6000, kInstances)};
        const auto connections = openConnections(server, kInstances);
        QCOMPARE(int(connections.size()), kInstances);
        std::vector<std::unique_ptr<FleetAllowance>> allowances;
        for (int i = 0; i < kInstances; ++i) {
            allowances.push_back(std::make_unique<FleetAllowance>(m_clock, m_random, *connections[i], limit));
            allowances.back()->topUp();
        }
        for (auto &allowance : allowances)
            QTRY_VERIFY(allowance->held() > 0);
        // 75 requests/s over the fleet against a limit of 100/s: none may be refused.
        std::uint64_t admitted = 0;
        for (int tick = 0; tick < 50; ++tick) {
            for (auto &allowance : allowances)
                admitted += allowance->tryTake();
            QTest::qWait(40);
        }
        std::uint64_t draws = 0, refused = 0;
        for (auto &allowance : allowances) {
            draws += allowance->stats().draws;
            refused += allowance->stats().refused;
        }
        qInfo("%llu admitted in %llu draws, %llu refused", qulonglong(admitted), qulonglong(draws), qulonglong(refused));
        QCOMPARE(refused, quint64(0));
        QCOMPARE(admitted, quint64(50 * kInstances));
        // One script run serves at least ten requests: the request path does not pay a round trip.
        QVERIFY(draws * 10 <= admitted);
    }

    void aRestartedRedisGetsTheScriptAgain()
    {
        RedisServer server;
        QString error;
        QVERIFY2(server.start({}, &error), qPrintable(error));
        RedisConnection connection(m_clock);
        QVERIFY(openOn(connection, server));
        FleetAllowance allowance(m_clock, m_random, connection, {"sb:test:limit:b", 60000, 20, 5});
        allowance.topUp();
        QTRY_VERIFY(allowance.held() > 0);
        QCOMPARE(allowance.stats().scriptLoads, quint64(1));

        server.kill();
        QTRY_VERIFY(!connection.isReady());
        // Gone: what is held is spent, then refused at once, with nothing waiting on Redis.
        int spent = 0;
        while (allowance.tryTake())
            ++spent;
        QVERIFY(spent > 0);
        QVERIFY(!allowance.tryTake());
        QVERIFY(allowance.stats().refused >= 1);

        QVERIFY2(server.start({}, &error), qPrintable(error));
        QVERIFY(openOn(connection, server));
        allowance.topUp();
        QTRY_VERIFY(allowance.held() > 0);
        // The restarted server knew no script: the draw saw NOSCRIPT and loaded it again.
        QCOMPARE(allowance.stats().scriptLoads, quint64(2));
    }
};

QTEST_GUILESS_MAIN(tst_FleetAllowance)
#include "tst_FleetAllowance.moc"
