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

bool RetryState::shouldContinue(const Outcome &outcome) const
{
    if (outcome.isSuccess() || !outcome.isRetryable() || attempts() >= m_policy.maxAttempts())
        return false;
    return m_clock.now() < m_deadline;
}

void RetryState::notePassedOver(int channelId, const QString &reason)
{
    for (PassedOver &p : m_passedOver)
        if (p.channelId == channelId) {
            p.reason = reason;
            return;
        }
    m_passedOver.push_back({channelId, reason});
}

QString RetryState::passedOverReason(int channelId) const
{
    for (const PassedOver &p : m_passedOver)
        if (p.channelId == channelId)
            return p.reason;
    return {};
}

int RetryState::distinctChannelsTried() const
{
    std::vector<int> ids = m_tried;
    std::sort(ids.begin(), ids.end());
    return static_cast<int>(std::unique(ids.begin(), ids.end()) - ids.begin());
}

Clock::Duration RetryState::delayBeforeNext(const Outcome &lastOutcome, bool sameProvider, bool untriedChannelLeft,
                                            Random &random) const
{
    // A failover goes to another channel at once (so most callers never notice); only
    // retries of a channel already tried back off, numbered from 0 after the failovers (and after the
    // first attempt's immediate second try on a one-channel route).
    const bool failover = attempts() <= 1 || untriedChannelLeft;
    Clock::Duration delay = failover ? Clock::Duration::zero()
                                     : m_policy.backoff(std::max(0, attempts() - std::max(2, distinctChannelsTried())), random);
    if (sameProvider && lastOutcome.retryAfter && lastOutcome.retryAfter->count() > 0)
        delay = std::max(delay, Clock::Duration(*lastOutcome.retryAfter));
    return delay;
}

Clock::Duration RetryState::attemptTimeout(const ProviderConfig &provider) const
{
    // Split budgets: equal 30 s budgets doubled the wait during incidents.
    const Clock::Duration budget = attempts() <= 1 ? Clock::Duration(provider.primaryTimeout)
                                                   : Clock::Duration(provider.fallbackTimeout);
    return std::min(budget, remaining());
}

bool RetryState::nextAttemptSpendsBudget(bool untriedChannelLeft) const
{
    return attempts() >= 2 && !untriedChannelLeft;
}

Clock::Duration RetryState::remaining() const
{
    return std::max(Clock::Duration::zero(), m_deadline - m_clock.now());
}

} // namespace sb
