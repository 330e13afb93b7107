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
    SharedAllowance *sharedRequests = m_shared.requests && m_shared.requests->live() ? m_shared.requests.get() : nullptr;
    SharedAllowance *sharedTokens = m_shared.tokens && m_shared.tokens->live() ? m_shared.tokens.get() : nullptr;
    // Only this class touches its buckets, so under m_mutex a positive check cannot go stale before the take.
    const bool tokensNeeded = estimatedTokens > 0 && !m_tokens.unlimited();
    const bool localRequestsAdmit = sharedRequests || m_requests.wouldAdmit(1.0);
    const bool localTokensAdmit = !tokensNeeded || sharedTokens || m_tokens.wouldAdmit(estimatedTokens);
    if (!localRequestsAdmit || !localTokensAdmit) {
        ++m_stats.refused;
        return false;
    }
    // The shared ones last, each undone when the other refuses, so a refusal takes nothing anywhere.
    if (sharedTokens && tokensNeeded && !sharedTokens->tryTake(estimatedTokens)) {
        ++m_stats.refused;
        return false;
    }
    if (sharedRequests && !sharedRequests->tryTake(1)) {
        if (sharedTokens && tokensNeeded)
            sharedTokens->giveBack(estimatedTokens);
        ++m_stats.refused;
        return false;
    }
    if (!sharedRequests)
        m_requests.tryAcquire(1.0);
    if (tokensNeeded && !sharedTokens)
        m_tokens.tryAcquire(estimatedTokens);
    ++m_stats.admitted;
    return true;
}

void ProviderLimiter::share(SharedLimits limits)
{
    std::lock_guard lock(m_mutex);
    m_shared = std::move(limits);
}

bool ProviderLimiter::shared() const
{
    std::lock_guard lock(m_mutex);
    return m_shared.requests || m_shared.tokens;
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
    // A shared limit's next grant is a draw away, whose timing this instance cannot know: a short
    // wait, then ask again.
    if ((m_shared.requests && m_shared.requests->live()) || (m_shared.tokens && m_shared.tokens->live()))
        return std::chrono::milliseconds(100);
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
