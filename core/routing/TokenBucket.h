#pragma once

#include "common/Clock.h"

#include <cstdint>
#include <mutex>

namespace sb {

// A classic token bucket (the second tier of defence): `ratePerSecond` refill, `capacity`
// burst. It never waits: a refusal sends the request on to the next channel instead of queueing it
// without bound, which is how one provider's overflow used to cascade into the others.
// Thread-safe: every worker of the engine shares one bucket per provider.
class TokenBucket {
public:
    struct Stats {
        std::uint64_t admitted = 0;
        std::uint64_t refused = 0;
    };

    // rate <= 0 → unlimited (admits everything). capacity <= 0 with a positive rate → one second's worth
    // (at least 1), so a misconfigured burst cannot make the bucket refuse forever.
    TokenBucket(const Clock &clock, double ratePerSecond, double capacity);

    // Takes `amount` and returns true, or refuses and takes nothing (never waits). An amount larger than
    // the capacity is admitted only when the bucket is full, and leaves it in debt, so an oversized
    // request is slowed down rather than refused forever.
    bool tryAcquire(double amount = 1.0);
    // Whether tryAcquire(amount) would admit now; takes nothing (ProviderLimiter checks both buckets first).
    bool wouldAdmit(double amount = 1.0) const;
    double available() const; // tokens now (after refill); negative after an oversized admission; +inf when unlimited
    Clock::Duration timeUntilAvailable(double amount = 1.0) const; // zero when it would admit now
    double headroom() const;  // available()/capacity clamped to [0, 1]; 1 when unlimited
    Stats stats() const;

    bool unlimited() const { return m_unlimited; }
    double ratePerSecond() const { return m_rate; }
    double capacity() const { return m_capacity; }

private:
    void refillLocked() const;
    bool admitsLocked(double amount) const;

    const Clock &m_clock;
    const double m_rate;
    const double m_capacity;
    const bool m_unlimited;

    mutable std::mutex m_mutex;
    // Refill is lazy, so const readers (available, headroom) advance the state too.
    mutable double m_tokens;
    mutable Clock::TimePoint m_lastRefill;
    Stats m_stats;
};

} // namespace sb
