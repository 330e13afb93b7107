// DeadlineTimer: expires once, at its latest deadline, whichever way the deadline moved; re-arms
// its clock timer only when the deadline moves earlier. On FakeClock, so every time is exact.

#include "net/DeadlineTimer.h"

#include "FakeClock.h"

#include <QTest>

#include <memory>

using namespace sb;
using namespace std::chrono_literals;
using sb::test::FakeClock;

class tst_DeadlineTimer : public QObject {
    Q_OBJECT

private slots:
    void expiresOnceAtItsTimeout()
    {
        FakeClock clock;
        const auto t0 = clock.now();
        int expired = 0;
        Clock::Duration at{-1};
        DeadlineTimer timer(clock, [&] { ++expired; at = clock.now() - t0; });
        timer.start(60ms);
        QVERIFY(timer.isActive());
        clock.advance(59ms);
        QCOMPARE(expired, 0);
        clock.advance(1ms);
        QCOMPARE(expired, 1);
        QCOMPARE(at, Clock::Duration(60ms));
        QVERIFY(!timer.isActive());
        clock.advance(1h);
        QCOMPARE(expired, 1);
    }

    void aDeadlineMovedEarlierIsKept()
    {
        FakeClock clock;
        int expired = 0;
        DeadlineTimer timer(clock, [&] { ++expired; });
        timer.start(60'000ms);
        timer.start(40ms);
        clock.advance(40ms); // not a minute later
        QCOMPARE(expired, 1);
    }

    void aDeadlineMovedLaterIsWaitedOutWithoutReArming()
    {
        FakeClock clock;
        const auto t0 = clock.now();
        int expired = 0;
        Clock::Duration at{-1};
        DeadlineTimer timer(clock, [&] { ++expired; at = clock.now() - t0; });
        timer.start(30ms);
        timer.start(250ms);
        // The clock timer still fires at 30 ms (moving a deadline later costs nothing) ...
        QCOMPARE(clock.nextDue() - t0, Clock::Duration(30ms));
        clock.advance(30ms);
        QCOMPARE(expired, 0);
        // ... and then waits out the rest.
        QCOMPARE(clock.nextDue() - t0, Clock::Duration(250ms));
        clock.advance(220ms);
        QCOMPARE(expired, 1);
        QCOMPARE(at, Clock::Duration(250ms));
    }

    void aStoppedTimerNeverExpiresAndCanStartAgain()
    {
        FakeClock clock;
        int expired = 0;
        DeadlineTimer timer(clock, [&] { ++expired; });
        timer.start(30ms);
        timer.stop();
        QVERIFY(!timer.isActive());
        clock.advance(150ms);
        QCOMPARE(expired, 0);
        timer.start(30ms);
        clock.advance(30ms);
        QCOMPARE(expired, 1);
    }

    void itMayStartItselfAgainWhenItExpires()
    {
        FakeClock clock;
        int expired = 0;
        std::unique_ptr<DeadlineTimer> timer;
        timer = std::make_unique<DeadlineTimer>(clock, [&] {
            if (++expired < 3)
                timer->start(20ms);
        });
        timer->start(20ms);
        clock.advance(1s);
        QCOMPARE(expired, 3);
    }

    void noClockTimerIsMadeUntilTheFirstStart()
    {
        FakeClock clock;
        DeadlineTimer timer(clock, [] {});
        QCOMPARE(clock.pendingTimers(), 0);
        timer.start(5ms);
        QCOMPARE(clock.pendingTimers(), 1);
    }

    void theRealClockExpiresItOnTheEventLoop()
    {
        int expired = 0;
        const auto started = SystemClock::instance().now();
        Clock::Duration at{-1};
        DeadlineTimer timer(SystemClock::instance(), [&] { ++expired; at = SystemClock::instance().now() - started; });
        timer.start(30ms);
        timer.start(60ms);
        QTRY_COMPARE_WITH_TIMEOUT(expired, 1, 5000);
        QVERIFY(at >= Clock::Duration(60ms)); // never early
    }
};

QTEST_GUILESS_MAIN(tst_DeadlineTimer)
#include "tst_DeadlineTimer.moc"
