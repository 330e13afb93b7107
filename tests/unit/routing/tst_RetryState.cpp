#include "FakeClock.h"
#include "FakeRandom.h"

#include "routing/RetryPolicy.h"
#include "routing/RetryState.h"

#include <QtTest>

using namespace std::chrono_literals;
using sb::Clock;
using sb::Outcome;
using sb::OutcomeKind;
using sb::RetryConfig;
using sb::RetryPolicy;
using sb::RetryState;
using sb::test::FakeClock;
using sb::test::FakeRandom;

namespace {
RetryConfig retryConfig()
{
    RetryConfig c; // 100 ms base, 2 s max, 100 ms jitter, 4 attempts, 60 s deadline
    return c;
}

Outcome down() { return Outcome{OutcomeKind::ProviderDown, sb::OutcomeOrigin::Upstream, sb::OutcomePhase::BeforeFirstByte, 503, {}, {}, {}}; }

Outcome rateLimited(std::optional<std::chrono::milliseconds> retryAfter)
{
    Outcome o{OutcomeKind::RetryableRateLimit, sb::OutcomeOrigin::Upstream, sb::OutcomePhase::BeforeFirstByte, 429, retryAfter, {}, {}};
    return o;
}

sb::ProviderConfig provider()
{
    sb::ProviderConfig p; // primary 30 s, fallback 20 s
    return p;
}
} // namespace

class tst_RetryState : public QObject {
    Q_OBJECT
private slots:
    void firstFailoverIsImmediateThenBackoff()
    {
        FakeClock clock;
        FakeRandom random(3);
        const RetryPolicy policy(retryConfig());
        RetryState state(policy, clock, clock.now());
        QCOMPARE(state.attempts(), 0);

        state.attemptStarted(1);
        QVERIFY(state.shouldRetry(down()));
        QCOMPARE(state.delayBeforeNext(down(), false, false, random), Clock::Duration::zero());

        state.attemptStarted(2);
        QVERIFY(state.shouldRetry(down()));
        const auto second = state.delayBeforeNext(down(), false, false, random); // backoff(0)
        QVERIFY2(second >= 100ms && second <= 200ms, qPrintable(QString::number(sb::toMillis(second))));

        state.attemptStarted(1);
        QVERIFY(state.shouldRetry(down()));
        const auto third = state.delayBeforeNext(down(), false, false, random); // backoff(1)
        QVERIFY2(third >= 200ms && third <= 300ms, qPrintable(QString::number(sb::toMillis(third))));

        QCOMPARE(state.attempts(), 3);
        QCOMPARE(state.triedChannels(), (std::vector<int>{1, 2, 1}));
        QVERIFY(state.triedChannel(2));
        QVERIFY(!state.triedChannel(3));
    }

    void onlyRetriesAfterTheFirstFailoverSpendBudget()
    {
        FakeClock clock;
        const RetryPolicy policy(retryConfig());
        RetryState state(policy, clock, clock.now());
        QVERIFY(!state.nextAttemptSpendsBudget(true)); // the first attempt
        state.attemptStarted(1);
        QVERIFY(!state.nextAttemptSpendsBudget(false)); // the immediate failover (or second try of the only channel)
        state.attemptStarted(2);
        QVERIFY(state.nextAttemptSpendsBudget(false));
        state.attemptStarted(1);
        QVERIFY(state.nextAttemptSpendsBudget(false));
    }

    void failoversToUntriedChannelsAreImmediateAndFree()
    {
        // A route of three channels: 1 and 2 failed, 3 is untried. Going to 3 is a failover, not a
        // retry into a dying cluster; only once all three were tried do retries back off and spend.
        FakeClock clock;
        FakeRandom random(5);
        const RetryPolicy policy(retryConfig());
        RetryState state(policy, clock, clock.now());
        state.attemptStarted(1);
        state.attemptStarted(2);
        QCOMPARE(state.distinctChannelsTried(), 2);
        QCOMPARE(state.delayBeforeNext(down(), false, true, random), Clock::Duration::zero());
        QVERIFY(!state.nextAttemptSpendsBudget(true));
        state.attemptStarted(3);
        QVERIFY(state.nextAttemptSpendsBudget(false));
        const auto first = state.delayBeforeNext(down(), false, false, random); // backoff(0), not backoff(1)
        QVERIFY2(first >= 100ms && first <= 200ms, qPrintable(QString::number(sb::toMillis(first))));
        state.attemptStarted(1);
        QCOMPARE(state.distinctChannelsTried(), 3);
        const auto second = state.delayBeforeNext(down(), false, false, random); // backoff(1)
        QVERIFY2(second >= 200ms && second <= 300ms, qPrintable(QString::number(sb::toMillis(second))));
    }

    void attemptCap()
    {
        FakeClock clock;
        const RetryPolicy policy(retryConfig());
        RetryState state(policy, clock, clock.now());
        for (int i = 1; i <= 3; ++i) {
            state.attemptStarted(i);
            QVERIFY(state.shouldRetry(down()));
        }
        state.attemptStarted(4);
        QVERIFY(!state.shouldRetry(down())); // 4 attempts = first try + 3 more

        RetryConfig single = retryConfig();
        single.maxAttempts = 1;
        const RetryPolicy once(single);
        RetryState onlyOne(once, clock, clock.now());
        onlyOne.attemptStarted(1);
        QVERIFY(!onlyOne.shouldRetry(down()));
    }

    void deadlineCap()
    {
        FakeClock clock;
        const RetryPolicy policy(retryConfig());
        const auto start = clock.now();
        clock.advance(5s); // the request waited in a queue before its first attempt
        RetryState state(policy, clock, start);
        QCOMPARE(state.deadline(), start + Clock::Duration(60s));
        state.attemptStarted(1);
        clock.advance(54999ms);
        QVERIFY(state.shouldRetry(down()));
        QCOMPARE(state.remaining(), Clock::Duration(1ms));
        clock.advance(1ms);
        QVERIFY(!state.shouldRetry(down()));
        QCOMPARE(state.remaining(), Clock::Duration::zero());
    }

    void nonRetryableNeverRetried()
    {
        FakeClock clock;
        const RetryPolicy policy(retryConfig());
        RetryState state(policy, clock, clock.now());
        state.attemptStarted(1);
        Outcome param = down();
        param.kind = OutcomeKind::NonRetryableParamError;
        param.httpStatus = 400;
        QVERIFY(!state.shouldRetry(param));
        QVERIFY(!state.shouldRetry(Outcome::success()));
        Outcome midStream = down();
        midStream.phase = sb::OutcomePhase::MidStream; // bytes already reached the client
        QVERIFY(!state.shouldRetry(midStream));

        for (auto kind : {OutcomeKind::RetryableRateLimit, OutcomeKind::ProviderDown, OutcomeKind::AuthError,
                          OutcomeKind::Timeout, OutcomeKind::ConnectFailed}) {
            Outcome o = down();
            o.kind = kind;
            QVERIFY2(state.shouldRetry(o), sb::toString(kind));
        }
    }

    void retryAfterHonouredForTheSameProvider()
    {
        FakeClock clock;
        FakeRandom random(9);
        const RetryPolicy policy(retryConfig());
        RetryState state(policy, clock, clock.now());
        state.attemptStarted(1);
        // Another provider: the failover is immediate, the 429's Retry-After is that provider's business.
        QCOMPARE(state.delayBeforeNext(rateLimited(7000ms), false, true, random), Clock::Duration::zero());
        // The same provider again: wait at least what it asked for.
        QCOMPARE(state.delayBeforeNext(rateLimited(7000ms), true, false, random), Clock::Duration(7s));
        // A short Retry-After does not cut the backoff.
        state.attemptStarted(2);
        state.attemptStarted(1); // both channels tried, one of them twice: next is backoff(1), 200–300 ms
        const auto d = state.delayBeforeNext(rateLimited(10ms), true, false, random);
        QVERIFY2(d >= 200ms && d <= 300ms, qPrintable(QString::number(sb::toMillis(d))));
        // No Retry-After: plain backoff.
        const auto e = state.delayBeforeNext(rateLimited(std::nullopt), true, false, random);
        QVERIFY(e >= 200ms && e <= 300ms);
    }

    void primaryThenFallbackTimeoutInsideTheDeadline()
    {
        FakeClock clock;
        const RetryPolicy policy(retryConfig());
        RetryState state(policy, clock, clock.now());
        state.attemptStarted(1);
        QCOMPARE(state.attemptTimeout(provider()), Clock::Duration(30s));
        clock.advance(30s);
        state.attemptStarted(2);
        QCOMPARE(state.attemptTimeout(provider()), Clock::Duration(20s));
        clock.advance(20s);
        state.attemptStarted(3);
        QCOMPARE(state.attemptTimeout(provider()), Clock::Duration(10s)); // only 10 s of the 60 s left
        clock.advance(15s);
        QCOMPARE(state.attemptTimeout(provider()), Clock::Duration::zero());
    }

    void providerSpecificBudgets()
    {
        FakeClock clock;
        const RetryPolicy policy(retryConfig());
        RetryState state(policy, clock, clock.now());
        sb::ProviderConfig slow;
        slow.primaryTimeout = 45s;
        slow.fallbackTimeout = 12s;
        QCOMPARE(state.attemptTimeout(slow), Clock::Duration(45s)); // before the first attemptStarted too
        state.attemptStarted(1);
        QCOMPARE(state.attemptTimeout(slow), Clock::Duration(45s));
        state.attemptStarted(2);
        QCOMPARE(state.attemptTimeout(slow), Clock::Duration(12s));
    }
};

QTEST_APPLESS_MAIN(tst_RetryState)
#include "tst_RetryState.moc"
