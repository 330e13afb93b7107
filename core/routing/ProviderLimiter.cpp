#include "routing/ProviderLimiter.h"

#include <algorithm>

namespace sb {

namespace {
double requestCapacity(const ProviderConfig &p)
{
    if (p.requestsPerMinute <= 0)
        return 0;
    if (p.burst > 0)
        return p.burst;
    return std::max(1.0, p.requestsPerMinute / 6.0); // ProviderConfig: burst 0 = rpm/6
}

double tokenCapacity(const ProviderConfig &p)
{
    if (p.tokensPerMinute <= 0)
        return 0;
    // The same share of a minute as the request burst, so both buckets allow the same surge.
    const double minuteShare = p.requestsPerMinute > 0 ? requestCapacity(p) / p.requestsPerMinute : 1.0 / 6.0;
    return std::max(1.0, p.tokensPerMinute * std::min(1.0, minuteShare));
}
} // namespace

ProviderLimiter::ProviderLimiter(const Clock &clock, const ProviderConfig &provider)
    : m_providerId(provider.id)
    , m_requests(clock, provider.requestsPerMinute / 60.0, requestCapacity(provider))
    , m_tokens(clock, provider.tokensPerMinute / 60.0, tokenCapacity(provider))
{
}

bool ProviderLimiter::tryAdmit(int estimatedTokens)
{
    std::lock_guard lock(m_mutex);
    // Only this class touches its buckets, so under m_mutex a positive check cannot go stale before the take.
    const bool tokensNeeded = estimatedTokens > 0 && !m_tokens.unlimited();
    if (!m_requests.wouldAdmit(1.0) || (tokensNeeded && !m_tokens.wouldAdmit(estimatedTokens))) {
        ++m_stats.refused;
        return false;
    }
    m_requests.tryAcquire(1.0);
    if (tokensNeeded)
        m_tokens.tryAcquire(estimatedTokens);
    ++m_stats.admitted;
    return true;
}

bool ProviderLimiter::reportRefusal(Clock::TimePoint now, Clock::Duration quiet)
{
    std::lock_guard lock(m_mutex);
    if (m_lastReportedRefusal && now - *m_lastReportedRefusal < quiet)
        return false;
    m_lastReportedRefusal = now;
    return true;
}

double ProviderLimiter::headroom() const
{
    return std::min(m_requests.headroom(), m_tokens.headroom());
}

Clock::Duration ProviderLimiter::timeUntilAdmit(int estimatedTokens) const
{
    std::lock_guard lock(m_mutex);
    auto wait = m_requests.timeUntilAvailable(1.0);
    if (estimatedTokens > 0)
        wait = std::max(wait, m_tokens.timeUntilAvailable(estimatedTokens));
    return wait;
}

TokenBucket::Stats ProviderLimiter::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

} // namespace sb
