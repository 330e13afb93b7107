#include "routing/TokenBucket.h"

#include <algorithm>
#include <cmath>

namespace sb {

namespace {
// Refill arithmetic in doubles picks up rounding dust; without a tolerance a bucket refilled by
// exactly one token could still refuse one token.
constexpr double kEpsilon = 1e-9;

double effectiveCapacity(double rate, double capacity)
{
    if (rate <= 0)
        return 0;
    if (capacity > 0)
        return capacity;
    return std::max(1.0, rate);
}
} // namespace

TokenBucket::TokenBucket(const Clock &clock, double ratePerSecond, double capacity)
    : m_clock(clock)
    , m_rate(ratePerSecond > 0 ? ratePerSecond : 0)
    , m_capacity(effectiveCapacity(ratePerSecond, capacity))
    , m_unlimited(!(ratePerSecond > 0))
    , m_tokens(m_capacity)
    , m_lastRefill(clock.now())
{
}

void TokenBucket::refillLocked() const
{
    const auto now = m_clock.now();
    if (now <= m_lastRefill)
        return;
    // elapsed ns × rate / 1e9 stays exact for whole-number rates and elapsed times (no 1e-9 factor
    // rounded first), which keeps the admitted counts of long runs exact.
    const double elapsedNs = static_cast<double>((now - m_lastRefill).count());
    m_tokens = std::min(m_capacity, m_tokens + elapsedNs * m_rate / 1e9);
    m_lastRefill = now;
}

bool TokenBucket::admitsLocked(double amount) const
{
    if (m_unlimited || amount <= 0)
        return true;
    if (amount > m_capacity)
        return m_tokens + kEpsilon >= m_capacity;
    return m_tokens + kEpsilon >= amount;
}

bool TokenBucket::tryAcquire(double amount)
{
    std::lock_guard lock(m_mutex);
    if (m_unlimited) {
        ++m_stats.admitted;
        return true;
    }
    refillLocked();
    if (!admitsLocked(amount)) {
        ++m_stats.refused;
        return false;
    }
    if (amount > 0)
        m_tokens -= amount;
    ++m_stats.admitted;
    return true;
}

bool TokenBucket::wouldAdmit(double amount) const
{
    std::lock_guard lock(m_mutex);
    refillLocked();
    return admitsLocked(amount);
}

double TokenBucket::available() const
{
    std::lock_guard lock(m_mutex);
    if (m_unlimited)
        return INFINITY;
    refillLocked();
    return m_tokens;
}

Clock::Duration TokenBucket::timeUntilAvailable(double amount) const
{
    std::lock_guard lock(m_mutex);
    if (m_unlimited)
        return Clock::Duration::zero();
    refillLocked();
    if (admitsLocked(amount))
        return Clock::Duration::zero();
    const double needed = std::min(amount, m_capacity) - m_tokens;
    const double ns = std::ceil(needed / m_rate * 1e9);
    return Clock::Duration(static_cast<Clock::Duration::rep>(ns));
}

double TokenBucket::headroom() const
{
    std::lock_guard lock(m_mutex);
    if (m_unlimited)
        return 1.0;
    refillLocked();
    return std::clamp(m_tokens / m_capacity, 0.0, 1.0);
}

TokenBucket::Stats TokenBucket::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

} // namespace sb
