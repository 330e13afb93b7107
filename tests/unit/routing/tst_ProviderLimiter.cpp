#include "FakeClock.h"

#include "routing/ProviderLimiter.h"

#include <QtTest>

#include <atomic>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using sb::ProviderConfig;
using sb::ProviderLimiter;
using sb::test::FakeClock;

namespace {
ProviderConfig provider(int id, int rpm, int tpm, int burst)
{
    ProviderConfig p;
    p.id = id;
    p.name = QStringLiteral("p%1").arg(id);
    p.requestsPerMinute = rpm;
    p.tokensPerMinute = tpm;
    p.burst = burst;
    return p;
}

int admitAll(ProviderLimiter &limiter, int tokens = 0)
{
    int n = 0;
    while (limiter.tryAdmit(tokens) && n < 1000000)
        ++n;
    return n;
}
} // namespace

class tst_ProviderLimiter : public QObject {
    Q_OBJECT
private slots:
    void requestBurstThenRequestsPerMinute()
    {
        FakeClock clock;
        ProviderLimiter limiter(clock, provider(1, 60, 0, 5));
        QCOMPARE(admitAll(limiter), 5);
        clock.advance(999ms);
        QVERIFY(!limiter.tryAdmit(0));
        clock.advance(1ms);
        QVERIFY(limiter.tryAdmit(0));
        QVERIFY(!limiter.tryAdmit(0));
    }

    void defaultBurstIsRpmOverSix()
    {
        FakeClock clock;
        ProviderLimiter limiter(clock, provider(1, 120, 0, 0));
        QCOMPARE(admitAll(limiter), 20);
        ProviderLimiter small(clock, provider(2, 3, 0, 0)); // rpm/6 < 1 still admits one
        QCOMPARE(admitAll(small), 1);
    }

    void tokenBucketLimitsByEstimatedTokens()
    {
        FakeClock clock;
        // tpm 600 = 10 tokens/s; burst 2 of rpm 60 is 2 s of a minute, so 20 tokens of capacity.
        ProviderLimiter limiter(clock, provider(1, 60, 600, 2));
        QCOMPARE(limiter.tokenBucket().capacity(), 20.0);
        QVERIFY(limiter.tryAdmit(15));
        QVERIFY(!limiter.tryAdmit(10));
        clock.advance(500ms); // +5 tokens, +0.5 request
        QVERIFY(limiter.tryAdmit(10));
    }

    void tokenRefusalDoesNotConsumeARequestToken()
    {
        FakeClock clock;
        ProviderLimiter limiter(clock, provider(1, 60, 600, 2));
        QVERIFY(limiter.tryAdmit(15)); // requests 2 → 1, tokens 20 → 5
        QCOMPARE(limiter.requestBucket().available(), 1.0);
        QVERIFY(!limiter.tryAdmit(10)); // the token bucket refuses …
        QCOMPARE(limiter.requestBucket().available(), 1.0); // … and the request token is still there
        QVERIFY(limiter.tryAdmit(5));
        QCOMPARE(limiter.requestBucket().available(), 0.0);
        const auto stats = limiter.stats();
        QCOMPARE(stats.admitted, 2u);
        QCOMPARE(stats.refused, 1u); // counted once, not once per bucket
    }

    void requestRefusalDoesNotConsumeTokens()
    {
        FakeClock clock;
        ProviderLimiter limiter(clock, provider(1, 60, 600, 1));
        QCOMPARE(limiter.tokenBucket().capacity(), 10.0);
        QVERIFY(limiter.tryAdmit(2));
        QCOMPARE(limiter.tokenBucket().available(), 8.0);
        QVERIFY(!limiter.tryAdmit(2)); // no request token left
        QCOMPARE(limiter.tokenBucket().available(), 8.0);
        QCOMPARE(limiter.stats().refused, 1u);
    }

    void twoProvidersAreIndependent()
    {
        FakeClock clock;
        ProviderLimiter a(clock, provider(1, 60, 6000, 10));
        ProviderLimiter b(clock, provider(2, 60, 6000, 10));
        QCOMPARE(admitAll(a, 10), 10);
        QCOMPARE(a.headroom(), 0.0);
        // Exhausting A leaves B untouched: full headroom, its whole burst, no refusals.
        QCOMPARE(b.headroom(), 1.0);
        QCOMPARE(b.stats().refused, 0u);
        QCOMPARE(admitAll(b, 10), 10);
        QCOMPARE(a.stats().admitted, 10u);
        QCOMPARE(b.stats().admitted, 10u);
    }

    void headroomIsTheTighterBucket()
    {
        FakeClock clock;
        ProviderLimiter limiter(clock, provider(1, 60, 600, 4)); // 4 requests, 40 tokens
        QVERIFY(limiter.tryAdmit(30));
        // requests 3/4, tokens 10/40
        QCOMPARE(limiter.headroom(), 0.25);
        QVERIFY(limiter.tryAdmit(1));
        QVERIFY(limiter.tryAdmit(1));
        // requests 1/4, tokens 8/40
        QCOMPARE(limiter.headroom(), 0.2);
    }

    void timeUntilAdmit()
    {
        FakeClock clock;
        ProviderLimiter limiter(clock, provider(1, 60, 600, 2));
        QCOMPARE(limiter.timeUntilAdmit(5), sb::Clock::Duration::zero());
        QVERIFY(limiter.tryAdmit(20));
        QCOMPARE(limiter.timeUntilAdmit(10), sb::Clock::Duration(1s)); // tokens are the bottleneck
        QCOMPARE(limiter.timeUntilAdmit(0), sb::Clock::Duration::zero());
    }

    void unlimitedProvider()
    {
        FakeClock clock;
        ProviderLimiter limiter(clock, provider(1, 0, 0, 0));
        for (int i = 0; i < 10000; ++i)
            QVERIFY(limiter.tryAdmit(100000));
        QCOMPARE(limiter.headroom(), 1.0);
    }

    void concurrentAdmissionsChargeBothBucketsConsistently()
    {
        // 4 threads, clock standing still: the request bucket's admissions must equal the limiter's,
        // and the tokens taken must equal the sum of what the admitted calls asked for.
        FakeClock clock;
        ProviderLimiter limiter(clock, provider(1, 6000, 60000, 1000)); // 1000 requests, 10,000 tokens
        std::atomic<long long> tokensTaken{0};
        std::atomic<int> admitted{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                for (int i = 0; i < 20000; ++i) {
                    const int tokens = 1 + (i * 7 + t) % 20;
                    if (limiter.tryAdmit(tokens)) {
                        tokensTaken += tokens;
                        ++admitted;
                    }
                }
            });
        for (auto &t : threads)
            t.join();
        QCOMPARE(limiter.stats().admitted, static_cast<std::uint64_t>(admitted.load()));
        QCOMPARE(limiter.stats().admitted + limiter.stats().refused, 80000u);
        QCOMPARE(limiter.requestBucket().stats().admitted, static_cast<std::uint64_t>(admitted.load()));
        QCOMPARE(limiter.tokenBucket().available(), 10000.0 - static_cast<double>(tokensTaken.load()));
        QVERIFY(limiter.tokenBucket().available() >= 0.0);
        QVERIFY(limiter.requestBucket().available() >= 0.0);
    }
};

QTEST_APPLESS_MAIN(tst_ProviderLimiter)
#include "tst_ProviderLimiter.moc"
