#include "routing/RetryState.h"

#include "routing/RetryPolicy.h"

#include <algorithm>

namespace sb {

RetryState::RetryState(const RetryPolicy &policy, const Clock &clock, Clock::TimePoint start)
    : m_policy(policy)
    , m_clock(clock)
    , m_deadline(start + Clock::Duration(policy.config().overallDeadline))
{
}

void RetryState::attemptStarted(int channelId)
{
    m_tried.push_back(channelId);
}

bool RetryState::triedChannel(int channelId) const
{
    return std::find(m_tried.begin(), m_tried.end(), channelId) != m_tried.end();
}

bool RetryState::shouldRetry(const Outcome &outcome) const
{
    if (outcome.isSuccess() || !outcome.isRetryable())
        return false;
    // Bytes already went to the client: another attempt would splice two answers together.
    if (outcome.phase == OutcomePhase::MidStream)
        return false;
    if (attempts() >= m_policy.maxAttempts())
        return false;
    return m_clock.now() < m_deadline;
}

Clock::Duration RetryState::delayBeforeNext(const Outcome &lastOutcome, bool sameProvider, Random &random) const
{
    // The first failover goes to another channel at once (MISSION.md §1: most callers never notice);
    // only later retries back off, numbered from 0 after that failover.
    Clock::Duration delay = attempts() <= 1 ? Clock::Duration::zero() : m_policy.backoff(attempts() - 2, random);
    if (sameProvider && lastOutcome.retryAfter && lastOutcome.retryAfter->count() > 0)
        delay = std::max(delay, Clock::Duration(*lastOutcome.retryAfter));
    return delay;
}

Clock::Duration RetryState::attemptTimeout(const ProviderConfig &provider) const
{
    // Split budgets (MISSION.md §1): equal 30 s budgets doubled the wait during incidents.
    const Clock::Duration budget = attempts() <= 1 ? Clock::Duration(provider.primaryTimeout)
                                                   : Clock::Duration(provider.fallbackTimeout);
    return std::min(budget, remaining());
}

bool RetryState::nextAttemptSpendsBudget() const
{
    return attempts() >= 2;
}

Clock::Duration RetryState::remaining() const
{
    return std::max(Clock::Duration::zero(), m_deadline - m_clock.now());
}

} // namespace sb
