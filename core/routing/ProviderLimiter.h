#pragma once

#include "routing/SharedAllowance.h"
#include "routing/TokenBucket.h"

#include "model/ProviderConfig.h"

#include <mutex>
#include <optional>

namespace sb {

// A provider's two buckets: requests per minute and tokens per minute (ProviderConfig requestsPerMinute,
// tokensPerMinute, burst). One limiter per provider, so exhausting one provider's quota leaves every
// other provider's limiter untouched. Thread-safe.
class ProviderLimiter {
public:
    // Request bucket: rpm/60 per second, capacity `burst` (0 → rpm/6, at least 1).
    // Token bucket: tpm/60 per second, capacity the same fraction of a minute as the request burst.
    // A zero rpm or tpm leaves that bucket unlimited.
    ProviderLimiter(const Clock &clock, const ProviderConfig &provider);

    // Both buckets must admit. A limit shared with the fleet (share()) decides in place of its local
    // bucket while it is live. A refusal by the token bucket does not consume a request token (and
    // vice versa). estimatedTokens <= 0 skips the token bucket.
    bool tryAdmit(int estimatedTokens);
    double headroom() const; // min of the two buckets' headroom, in [0, 1]
    // When tryAdmit(estimatedTokens) could next succeed (zero if now), for a Retry-After to the client.
    Clock::Duration timeUntilAdmit(int estimatedTokens) const;
    // Refusals are counted once per tryAdmit, whichever bucket refused.
    TokenBucket::Stats stats() const;
    // True for the first refusal after `quiet` without a reported one: the console and history get one
    // event when a provider's limit starts refusing, not one per refused request (those are in /metrics).
    bool reportRefusal(Clock::TimePoint now, Clock::Duration quiet);

    // The fleet's allowances for this provider's limits (SharedAllowance); empty ones unshare.
    void share(SharedLimits limits);
    bool shared() const;

    int providerId() const { return m_providerId; }
    const TokenBucket &requestBucket() const { return m_requests; }
    const TokenBucket &tokenBucket() const { return m_tokens; }

private:
    const int m_providerId;
    TokenBucket m_requests;
    TokenBucket m_tokens;
    // Serialises check-then-take over the two buckets, so a refusal never leaves one of them charged.
    mutable std::mutex m_mutex;
    TokenBucket::Stats m_stats;
    SharedLimits m_shared;
    std::optional<Clock::TimePoint> m_lastReportedRefusal;
};

} // namespace sb
