#include "FakeClock.h"

#include "routing/TokenBucket.h"

#include <QtTest>

#include <atomic>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using sb::TokenBucket;
using sb::test::FakeClock;

class tst_TokenBucket : public QObject {
    Q_OBJECT
private slots:
    void admitsExactlyBurstAtOnce()
    {
        FakeClock clock;
        TokenBucket bucket(clock, 2.0, 5.0);
        for (int i = 0; i < 5; ++i)
            QVERIFY2(bucket.tryAcquire(), qPrintable(QString::number(i)));
        QVERIFY(!bucket.tryAcquire());
        QVERIFY(!bucket.tryAcquire());
        QCOMPARE(bucket.stats().admitted, 5u);
        QCOMPARE(bucket.stats().refused, 2u);
    }

    void refillsAtRateAsClockAdvances()
    {
        FakeClock clock;
        TokenBucket bucket(clock, 2.0, 5.0); // one token every 500 ms
        while (bucket.tryAcquire()) {
        }
        clock.advance(499ms);
        QVERIFY(!bucket.tryAcquire());
        clock.advance(1ms);
        QVERIFY(bucket.tryAcquire());
        QVERIFY(!bucket.tryAcquire());

        // 10 s would be 20 tokens, but the bucket holds at most its capacity.
        clock.advance(10s);
        int admitted = 0;
        while (bucket.tryAcquire())
            ++admitted;
        QCOMPARE(admitted, 5);
    }

    void steadyRateOverALongRunIsExact()
    {
        // 10/s for 100 s in 100 ms steps, asking 3 times per step: exactly 1 per step gets through,
        // plus the initial burst of 1. Rounding drift would lose or gain tokens over 1,000 steps.
        FakeClock clock;
        TokenBucket bucket(clock, 10.0, 1.0);
        int admitted = 0;
        for (int step = 0; step < 1000; ++step) {
            for (int i = 0; i < 3; ++i)
                admitted += bucket.tryAcquire() ? 1 : 0;
            clock.advance(100ms);
        }
        QCOMPARE(admitted, 1000);
        QVERIFY(bucket.tryAcquire()); // the last step's refill
        QCOMPARE(bucket.stats().admitted, 1001u);
    }

    void fractionalPerMinuteRate()
    {
        // 10 requests/min = one every 6 s, a rate that is not exact in binary.
        FakeClock clock;
        TokenBucket bucket(clock, 10.0 / 60.0, 1.0);
        QVERIFY(bucket.tryAcquire());
        QVERIFY(!bucket.tryAcquire());
        int admitted = 0;
        for (int minute = 0; minute < 60; ++minute) {
            for (int s = 0; s < 60; ++s) {
                clock.advance(1s);
                admitted += bucket.tryAcquire() ? 1 : 0;
            }
        }
        QCOMPARE(admitted, 600);
    }

    void timeUntilAvailable()
    {
        FakeClock clock;
        TokenBucket bucket(clock, 2.0, 2.0);
        QCOMPARE(bucket.timeUntilAvailable(), sb::Clock::Duration::zero());
        QVERIFY(bucket.tryAcquire(2.0));
        QCOMPARE(bucket.timeUntilAvailable(), sb::Clock::Duration(500ms));
        QCOMPARE(bucket.timeUntilAvailable(2.0), sb::Clock::Duration(1s));
        clock.advance(200ms);
        QCOMPARE(bucket.timeUntilAvailable(), sb::Clock::Duration(300ms));
        clock.advance(300ms);
        QCOMPARE(bucket.timeUntilAvailable(), sb::Clock::Duration::zero());
        QVERIFY(bucket.tryAcquire());
    }

    void headroomAndAvailable()
    {
        FakeClock clock;
        TokenBucket bucket(clock, 1.0, 4.0);
        QCOMPARE(bucket.headroom(), 1.0);
        QCOMPARE(bucket.available(), 4.0);
        QVERIFY(bucket.tryAcquire(2.0));
        QCOMPARE(bucket.headroom(), 0.5);
        QVERIFY(bucket.tryAcquire(2.0));
        QCOMPARE(bucket.headroom(), 0.0);
        clock.advance(1s);
        QCOMPARE(bucket.available(), 1.0);
        QCOMPARE(bucket.headroom(), 0.25);
    }

    void refusalTakesNothing()
    {
        FakeClock clock;
        TokenBucket bucket(clock, 1.0, 4.0);
        QVERIFY(bucket.tryAcquire(3.0));
        QVERIFY(!bucket.tryAcquire(2.0));
        QCOMPARE(bucket.available(), 1.0);
        QVERIFY(bucket.tryAcquire(1.0));
    }

    void unlimitedWhenRateIsZero()
    {
        FakeClock clock;
        TokenBucket bucket(clock, 0.0, 5.0);
        QVERIFY(bucket.unlimited());
        for (int i = 0; i < 100000; ++i)
            QVERIFY(bucket.tryAcquire(1000.0));
        QCOMPARE(bucket.headroom(), 1.0);
        QCOMPARE(bucket.timeUntilAvailable(1e9), sb::Clock::Duration::zero());
        QCOMPARE(bucket.stats().refused, 0u);
    }

    void zeroCapacityFallsBackToOneSecondOfRate()
    {
        FakeClock clock;
        TokenBucket tiny(clock, 0.5, 0.0);
        QCOMPARE(tiny.capacity(), 1.0);
        TokenBucket fast(clock, 20.0, 0.0);
        QCOMPARE(fast.capacity(), 20.0);
    }

    void oversizedAmountAdmittedOnlyWhenFullAndLeavesDebt()
    {
        FakeClock clock;
        TokenBucket bucket(clock, 10.0, 10.0);
        QVERIFY(bucket.tryAcquire(1.0));
        QVERIFY(!bucket.tryAcquire(25.0)); // not full
        clock.advance(100ms);
        QVERIFY(bucket.tryAcquire(25.0)); // full: admitted into debt
        QCOMPARE(bucket.available(), -15.0);
        QVERIFY(!bucket.tryAcquire(1.0));
        QCOMPARE(bucket.timeUntilAvailable(1.0), sb::Clock::Duration(1600ms));
        clock.advance(1599ms);
        QVERIFY(!bucket.tryAcquire(1.0));
        clock.advance(1ms);
        QVERIFY(bucket.tryAcquire(1.0));
    }

    void eightThreadsAdmitExactlyTheCapacity()
    {
        // The clock stands still, so exactly `capacity` of 800,000 concurrent calls may get through;
        // a lost update under contention would admit more (or fewer).
        FakeClock clock;
        TokenBucket bucket(clock, 100.0, 5000.0);
        std::atomic<std::uint64_t> admitted{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t)
            threads.emplace_back([&] {
                std::uint64_t mine = 0;
                for (int i = 0; i < 100000; ++i)
                    mine += bucket.tryAcquire() ? 1 : 0;
                admitted += mine;
            });
        for (auto &t : threads)
            t.join();
        QCOMPARE(admitted.load(), 5000u);
        QCOMPARE(bucket.stats().admitted, 5000u);
        QCOMPARE(bucket.stats().refused, 800000u - 5000u);
    }

    void eightThreadsWithConcurrentRefillConserveTokens()
    {
        // Another thread adds exactly 500 tokens (500 × 1 ms at 1000/s) while 8 threads drain: every
        // token is taken at most once, so admitted + what is left = capacity + 500.
        FakeClock clock;
        TokenBucket bucket(clock, 1000.0, 1000.0);
        std::atomic<std::uint64_t> admitted{0};
        std::atomic<bool> drained{false};
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t)
            threads.emplace_back([&] {
                std::uint64_t mine = 0;
                for (int i = 0; i < 100000; ++i) {
                    if (bucket.tryAcquire())
                        ++mine;
                    else
                        drained = true;
                }
                admitted += mine;
            });
        // Refill only once the bucket has run dry: a refill of a full bucket is clipped at capacity.
        std::thread refiller([&] {
            while (!drained)
                std::this_thread::yield();
            for (int i = 0; i < 500; ++i)
                clock.advance(1ms);
        });
        for (auto &t : threads)
            t.join();
        refiller.join();
        const double left = bucket.available();
        QVERIFY(left >= 0.0);
        QCOMPARE(admitted.load() + static_cast<std::uint64_t>(left + 0.5), 1500u);
        QCOMPARE(bucket.stats().admitted, admitted.load());
        QCOMPARE(bucket.stats().admitted + bucket.stats().refused, 800000u);
    }
};

QTEST_APPLESS_MAIN(tst_TokenBucket)
#include "tst_TokenBucket.moc"
