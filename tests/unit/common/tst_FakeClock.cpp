#include "FakeClock.h"

#include <QtTest>

#include <memory>
#include <vector>

using namespace std::chrono_literals;
using sb::test::FakeClock;

class tst_FakeClock : public QObject {
    Q_OBJECT
private slots:
    void advancesOnlyWhenTold()
    {
        FakeClock clock;
        const auto t0 = clock.now();
        const auto w0 = clock.wallMillis();
        QCOMPARE(clock.now(), t0);
        clock.advance(1500ms);
        QCOMPARE(clock.now() - t0, sb::Clock::Duration(1500ms));
        QCOMPARE(clock.wallMillis() - w0, 1500);
        clock.advance(3min);
        QCOMPARE(sb::toSeconds(clock.now() - t0), 181.5);
    }

    void timersFireInDueOrderWithNowAtTheirDueTime()
    {
        FakeClock clock;
        const auto t0 = clock.now();
        std::vector<std::pair<int, sb::Clock::Duration>> fired;
        auto late = clock.createTimer([&] { fired.emplace_back(3, clock.now() - t0); });
        auto early = clock.createTimer([&] { fired.emplace_back(1, clock.now() - t0); });
        auto tie = clock.createTimer([&] { fired.emplace_back(2, clock.now() - t0); });
        late->start(300ms);
        early->start(100ms);
        tie->start(100ms); // same due time: started later, fires later
        QCOMPARE(clock.pendingTimers(), 3);
        QCOMPARE(clock.nextDue() - t0, sb::Clock::Duration(100ms));
        clock.advance(99ms);
        QVERIFY(fired.empty());
        clock.advance(150ms);
        QCOMPARE(fired.size(), std::size_t(2));
        QCOMPARE(fired[0], std::make_pair(1, sb::Clock::Duration(100ms)));
        QCOMPARE(fired[1], std::make_pair(2, sb::Clock::Duration(100ms)));
        QCOMPARE(clock.now() - t0, sb::Clock::Duration(249ms));
        QVERIFY(late->isActive());
        QVERIFY(!early->isActive());
        clock.advance(51ms);
        QCOMPARE(fired.size(), std::size_t(3));
        QCOMPARE(fired[2], std::make_pair(3, sb::Clock::Duration(300ms)));
        QCOMPARE(clock.pendingTimers(), 0);
    }

    void restartReplacesAndStopCancels()
    {
        FakeClock clock;
        int fires = 0;
        auto timer = clock.createTimer([&] { ++fires; });
        timer->start(100ms);
        clock.advance(50ms);
        timer->start(100ms); // now due at 150 ms
        clock.advance(60ms);
        QCOMPARE(fires, 0);
        clock.advance(40ms);
        QCOMPARE(fires, 1);
        timer->start(10ms);
        timer->stop();
        clock.advance(1s);
        QCOMPARE(fires, 1);
        QVERIFY(!timer->isActive());
    }

    void repeatingTimerFiresEveryInterval()
    {
        FakeClock clock;
        int ticks = 0;
        auto tick = clock.createTimer([&] { ++ticks; }, sb::TimerKind::Repeating);
        tick->start(1s);
        clock.advance(3500ms);
        QCOMPARE(ticks, 3);
        QVERIFY(tick->isActive());
        tick->stop();
        clock.advance(10s);
        QCOMPARE(ticks, 3);
    }

    void callbacksMayStartStopAndDestroyTimersWithinTheSpan()
    {
        FakeClock clock;
        const auto t0 = clock.now();
        std::vector<sb::Clock::Duration> chain;
        std::unique_ptr<sb::Timer> second = clock.createTimer([&] { chain.push_back(clock.now() - t0); });
        std::unique_ptr<sb::Timer> doomed = clock.createTimer([&] { chain.push_back(sb::Clock::Duration(-1)); });
        std::unique_ptr<sb::Timer> first;
        first = clock.createTimer([&] {
            chain.push_back(clock.now() - t0);
            second->start(20ms); // starts within the span: fires in this advance()
            doomed.reset();      // destroyed while due: never fires
            first.reset();       // a timer may destroy itself from its own callback
        });
        first->start(10ms);
        doomed->start(15ms);
        clock.advance(1s);
        QCOMPARE(chain, (std::vector<sb::Clock::Duration>{10ms, 30ms}));
        QCOMPARE(clock.pendingTimers(), 0);
    }

    void zeroWaitFiresAtTheNextAdvance()
    {
        FakeClock clock;
        int fires = 0;
        auto timer = clock.createTimer([&] { ++fires; });
        timer->start(0ms);
        QCOMPARE(fires, 0);
        clock.advance(0ms);
        QCOMPARE(fires, 1);
    }

    void callAfterIsCancelledWithItsContext()
    {
        FakeClock clock;
        int fires = 0;
        auto kept = std::make_unique<QObject>();
        auto gone = std::make_unique<QObject>();
        clock.callAfter(std::chrono::milliseconds(5), kept.get(), [&] { fires += 1; });
        clock.callAfter(std::chrono::milliseconds(5), gone.get(), [&] { fires += 10; });
        gone.reset();
        clock.advance(10ms);
        QCOMPARE(fires, 1);
    }

    void systemClockTimersRunOnTheEventLoop()
    {
        auto &clock = sb::SystemClock::instance();
        int oneShot = 0;
        int repeats = 0;
        auto once = clock.createTimer([&] { ++oneShot; });
        auto tick = clock.createTimer([&] { ++repeats; }, sb::TimerKind::Repeating);
        const auto started = clock.now();
        once->start(20ms);
        tick->start(5ms);
        QTRY_VERIFY_WITH_TIMEOUT(oneShot == 1 && repeats >= 3, 5000);
        QVERIFY(clock.now() - started >= sb::Clock::Duration(20ms)); // never early
        QVERIFY(!once->isActive());
        tick->stop();
        QVERIFY(!tick->isActive());
        QObject context;
        bool called = false;
        clock.callAfter(std::chrono::milliseconds(1), &context, [&] { called = true; });
        QTRY_VERIFY_WITH_TIMEOUT(called, 5000);
    }

    void systemClockIsMonotonic()
    {
        auto &clock = sb::SystemClock::instance();
        auto previous = clock.now();
        for (int i = 0; i < 1000; ++i) {
            const auto next = clock.now();
            QVERIFY(next >= previous);
            previous = next;
        }
        QVERIFY(clock.wallMillis() > 1'600'000'000'000); // after 2020: a real epoch time
    }
};

QTEST_GUILESS_MAIN(tst_FakeClock)
#include "tst_FakeClock.moc"
