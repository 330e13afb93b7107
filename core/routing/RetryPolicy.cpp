#include "routing/RetryPolicy.h"

#include <algorithm>

namespace sb {

RetryPolicy::RetryPolicy(const RetryConfig &config)
    : m_config(config)
{
}

Clock::Duration RetryPolicy::backoffFloor(int attempt) const
{
    const Clock::Duration base = std::max(Clock::Duration::zero(), Clock::Duration(m_config.baseDelay));
    const Clock::Duration cap = std::max(Clock::Duration::zero(), Clock::Duration(m_config.maxDelay));
    attempt = std::max(0, attempt);
    if (base == Clock::Duration::zero())
        return Clock::Duration::zero();
    // Double step by step and stop at the cap: base·2^attempt overflows 64 bits long before attempt 63.
    Clock::Duration delay = base;
    for (int i = 0; i < attempt && delay < cap; ++i)
        delay *= 2;
    return std::min(delay, cap);
}

Clock::Duration RetryPolicy::backoff(int attempt, Random &random) const
{
    const Clock::Duration floor = backoffFloor(attempt);
    const Clock::Duration jitter = std::max(Clock::Duration::zero(), Clock::Duration(m_config.jitter));
    if (jitter == Clock::Duration::zero())
        return floor;
    // Inclusive of both ends: below(n + 1) is uniform over [0, n] nanoseconds.
    const auto extra = random.below(static_cast<std::uint64_t>(jitter.count()) + 1);
    return floor + Clock::Duration(static_cast<Clock::Duration::rep>(extra));
}

int RetryPolicy::maxAttempts() const
{
    return std::max(1, m_config.maxAttempts);
}

} // namespace sb
