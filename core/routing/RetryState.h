#pragma once

#include "common/Clock.h"
#include "common/Random.h"
#include "model/Outcome.h"
#include "model/ProviderConfig.h"

#include <QString>

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
    int distinctChannelsTried() const;
    // Why the router passed over a channel this request had not tried when it chose the latest attempt
    // (Router's RouteResult::passedOver). A request's error names its untried channels with these: the
    // reason at the moment of the choice, since a key's cool-down may have ended by the time it is written.
    void notePassedOver(int channelId, const QString &reason);
    QString passedOverReason(int channelId) const; // empty when never passed over

    // After a failed attempt: may we try again? false for success, non-retryable outcomes, failures after
    // bytes reached the client (MidStream), attempts exhausted, or the deadline passed.
    bool shouldRetry(const Outcome &outcome) const;
    // After a stream broke with `outcome` once some of it reached the client: may another attempt
    // continue it? As shouldRetry, bytes sent or not.
    bool shouldContinue(const Outcome &outcome) const;
    // Call both after the failed attempt and before the next attemptStarted(). `untriedChannelLeft`
    // (Router::hasUntriedChannel) says whether the next attempt can go to a channel this request has
    // not tried yet: that is a failover, not a retry.
    // Delay before the next attempt: zero for the first failover and for every failover to an untried
    // channel (an independent channel is no dying cluster), else backoff(n) for the n-th retry of a
    // channel already tried (0-based) — and at least the outcome's Retry-After when the same provider
    // would be tried again (the caller passes sameProvider). Not clamped to the deadline: compare with
    // remaining().
    Clock::Duration delayBeforeNext(const Outcome &lastOutcome, bool sameProvider, bool untriedChannelLeft,
                                    Random &random) const;
    // The current attempt's timeout (call after attemptStarted): the provider's primary budget for the
    // first attempt, its fallback budget afterwards, never past the overall deadline (zero once passed).
    Clock::Duration attemptTimeout(const ProviderConfig &provider) const;
    // Whether the next attempt must first win RetryBudget::tryStartRetry(): the first failover and any
    // failover to an untried channel do not (fail over at once; only retries spend the budget). The
    // 30-minute soak saw 132 requests refused by the budget with a healthy channel of their model
    // never tried.
    bool nextAttemptSpendsBudget(bool untriedChannelLeft) const;
    Clock::TimePoint deadline() const { return m_deadline; }
    Clock::Duration remaining() const; // until the deadline, zero once passed

private:
    const RetryPolicy &m_policy;
    const Clock &m_clock;
    const Clock::TimePoint m_deadline;
    std::vector<int> m_tried;
    struct PassedOver {
        int channelId;
        QString reason;
    };
    std::vector<PassedOver> m_passedOver; // the latest reason for each channel
};

} // namespace sb
