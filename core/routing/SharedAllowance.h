#pragma once

#include <memory>

namespace sb {

// A rate limit shared with other instances (a fleet's, drawn from Redis): the grants come from
// outside, the spending happens here without a round trip. Thread-safe: every worker asks.
class SharedAllowance {
public:
    virtual ~SharedAllowance() = default;
    // False while the shared limit cannot be asked (Redis away, nothing granted yet): the
    // provider's local buckets decide then, as on an instance alone.
    virtual bool live() const = 0;
    // Takes `amount` if what is held covers it (or at least a whole chunk, which an amount larger
    // than a chunk then overdraws: it is slowed down, not refused for ever); never waits.
    virtual bool tryTake(int amount) = 0;
    // Undoes a tryTake whose request the other limit refused.
    virtual void giveBack(int amount) = 0;
};

// A provider's requests and tokens per minute, as the fleet shares them; either may be null
// (that limit is not set, or not shared).
struct SharedLimits {
    std::shared_ptr<SharedAllowance> requests;
    std::shared_ptr<SharedAllowance> tokens;
};

} // namespace sb
