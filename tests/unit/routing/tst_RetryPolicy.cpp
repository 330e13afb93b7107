#include "FakeRandom.h"

#include "routing/RetryPolicy.h"

#include <QtTest>

#include <algorithm>
#include <array>

using namespace std::chrono_literals;
using sb::Clock;
using sb::RetryConfig;
using sb::RetryPolicy;
using sb::test::FakeRandom;

namespace {
RetryConfig config(std::chrono::milliseconds base, std::chrono::milliseconds max, std::chrono::milliseconds jitter)
{
    RetryConfig c;
    c.baseDelay = base;
    c.maxDelay = max;
    c.jitter = jitter;
    return c;
}
} // namespace

class tst_RetryPolicy : public QObject {
    Q_OBJECT
private slots:
    void floorDoublesUpToTheCap()
    {
        const RetryPolicy policy(config(100ms, 2s, 0ms));
        // Written out rather than recomputed, so a wrong formula cannot agree with itself.
        const std::array<Clock::Duration, 8> expected{100ms, 200ms, 400ms, 800ms, 1600ms, 2s, 2s, 2s};
        FakeRandom random(1);
        for (int n = 0; n < 8; ++n) {
            QCOMPARE(policy.backoffFloor(n), expected[static_cast<std::size_t>(n)]);
            QCOMPARE(policy.backoff(n, random), expected[static_cast<std::size_t>(n)]); // no jitter configured
        }
    }

    void backoffBoundsOverTenThousandSeededDraws()
    {
        // The backoff formula: delay = min(t_max, t_base·2^n) + random(0, jitter).
        const RetryPolicy policy(config(100ms, 2s, 250ms));
        const std::array<Clock::Duration, 8> floors{100ms, 200ms, 400ms, 800ms, 1600ms, 2s, 2s, 2s};
        const Clock::Duration jitter = 250ms;
        FakeRandom random(20261130);

        std::array<Clock::Duration, 8> lowest, highest;
        lowest.fill(Clock::Duration::max());
        highest.fill(Clock::Duration::min());
        std::array<int, 10> histogram{}; // jitter part, in tenths of the range
        double jitterSum = 0;
        const int draws = 10000;
        for (int i = 0; i < draws; ++i) {
            const int n = i % 8;
            const auto idx = static_cast<std::size_t>(n);
            const Clock::Duration delay = policy.backoff(n, random);
            QVERIFY2(delay >= floors[idx] && delay <= floors[idx] + jitter,
                     qPrintable(QStringLiteral("draw %1, attempt %2: %3 ms").arg(i).arg(n).arg(sb::toMillis(delay))));
            lowest[idx] = std::min(lowest[idx], delay);
            highest[idx] = std::max(highest[idx], delay);
            const double share = sb::toSeconds(delay - floors[idx]) / sb::toSeconds(jitter);
            ++histogram[static_cast<std::size_t>(std::min(9, static_cast<int>(share * 10)))];
            jitterSum += share;
        }
        // The spread really covers the jitter range, for every attempt number …
        for (std::size_t n = 0; n < 8; ++n) {
            QVERIFY2(lowest[n] - floors[n] < jitter / 50, qPrintable(QString::number(n)));
            QVERIFY2(floors[n] + jitter - highest[n] < jitter / 50, qPrintable(QString::number(n)));
        }
        // … and evenly: each tenth of the range gets about a tenth of the draws, the mean is the middle.
        for (int count : histogram)
            QVERIFY2(count > 850 && count < 1150, qPrintable(QString::number(count)));
        QVERIFY(std::abs(jitterSum / draws - 0.5) < 0.02);
    }

    void sameSeedSameDelays()
    {
        const RetryPolicy policy(config(100ms, 2s, 100ms));
        FakeRandom a(5), b(5), c(6);
        bool differs = false;
        for (int i = 0; i < 100; ++i) {
            const auto x = policy.backoff(i % 5, a);
            QCOMPARE(x, policy.backoff(i % 5, b));
            differs = differs || x != policy.backoff(i % 5, c);
        }
        QVERIFY(differs);
    }

    void hugeAndNegativeAttemptNumbers()
    {
        const RetryPolicy policy(config(100ms, 30s, 0ms));
        FakeRandom random(1);
        QCOMPARE(policy.backoff(-3, random), Clock::Duration(100ms));
        QCOMPARE(policy.backoff(63, random), Clock::Duration(30s)); // no overflow past 2^63
        QCOMPARE(policy.backoff(1000000, random), Clock::Duration(30s));
    }

    void maxBelowBaseCapsEverything()
    {
        const RetryPolicy policy(config(5s, 1s, 0ms));
        FakeRandom random(1);
        QCOMPARE(policy.backoff(0, random), Clock::Duration(1s));
    }

    void maxAttemptsAtLeastOne()
    {
        RetryConfig c;
        QCOMPARE(RetryPolicy(c).maxAttempts(), 4);
        c.maxAttempts = 0;
        QCOMPARE(RetryPolicy(c).maxAttempts(), 1);
        QCOMPARE(RetryPolicy(c).config().maxAttempts, 0);
    }
};

QTEST_APPLESS_MAIN(tst_RetryPolicy)
#include "tst_RetryPolicy.moc"
