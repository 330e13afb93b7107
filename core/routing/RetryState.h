#pragma once

#include "common/Clock.h"
#include "common/Random.h"
#include "model/Outcome.h"
#include "model/ProviderConfig.h"

#include <vector>

namespace sb {

class RetryPolicy;

// One request's progress through its attempts. Not thread-safe: a request lives on one worker.
// The policy must outlive the state.
class RetryState {
public:
    RetryState(const RetryPolicy &policy, const Clock &clock, Clock::TimePoint start);

    int attempts() const { return static_cast<int>(m_tried.size()); } // attempts started so far
    void attemptStarted(int channelId);
    bool triedChannel(int channelId) const;
    const std::vector<int> &triedChannels() const { return m_tried; }

    // After a failed attempt: may we try again? false for success, non-retryable outcomes, failures after
    // bytes reached the client (MidStream), attempts exhausted, or the deadline passed.
    bool shouldRetry(const Outcome &outcome) const;
    // Call both after the failed attempt and before the next attemptStarted().
    // Delay before the next attempt: zero for the first failover (immediate), then backoff(n) for the
    // n-th later retry (0-based) — and at least the outcome's Retry-After when the same provider would be
    // tried again (the caller passes sameProvider). Not clamped to the deadline: compare with remaining().
    Clock::Duration delayBeforeNext(const Outcome &lastOutcome, bool sameProvider, Random &random) const;
    // The current attempt's timeout (call after attemptStarted): the provider's primary budget for the
    // first attempt, its fallback budget afterwards, never past the overall deadline (zero once passed).
    Clock::Duration attemptTimeout(const ProviderConfig &provider) const;
    // Whether the next attempt must first win RetryBudget::tryStartRetry(): the immediate first failover
    // does not (ARCHITECTURE.md step 7: fail over at once; further attempts spend the budget).
    bool nextAttemptSpendsBudget() const;
    Clock::TimePoint deadline() const { return m_deadline; }
    Clock::Duration remaining() const; // until the deadline, zero once passed

private:
    const RetryPolicy &m_policy;
    const Clock &m_clock;
    const Clock::TimePoint m_deadline;
    std::vector<int> m_tried;
};

} // namespace sb
