#include "routing/RetryBudget.h"

#include <algorithm>
#include <cmath>

namespace sb {

namespace {
constexpr std::uint64_t kRetryMask = 0xFFFF'FFFFULL;
constexpr std::uint64_t kRequestOne = 1ULL << 32;

int requestsOf(std::uint64_t word) { return static_cast<int>(word >> 32); }
int retriesOf(std::uint64_t word) { return static_cast<int>(word & kRetryMask); }
} // namespace

RetryBudget::RetryBudget(double ratio, int minimum)
    : m_ratio(std::max(0.0, ratio))
    , m_minimum(std::max(0, minimum))
{
}

void RetryBudget::requestStarted()
{
    m_counts.fetch_add(kRequestOne, std::memory_order_acq_rel);
}

void RetryBudget::requestFinished()
{
    // An unmatched finish must not wrap the counter and hand out a budget of four billion.
    auto word = m_counts.load(std::memory_order_acquire);
    while (requestsOf(word) > 0 && !m_counts.compare_exchange_weak(word, word - kRequestOne, std::memory_order_acq_rel)) {
    }
}

int RetryBudget::allowedRetries(int requestsInFlight) const
{
    // The epsilon keeps 0.2 × 1000 at 200 despite 0.2 not being exact in binary.
    const int share = static_cast<int>(std::floor(m_ratio * std::max(0, requestsInFlight) + 1e-9));
    return std::max(m_minimum, share);
}

bool RetryBudget::tryStartRetry()
{
    auto word = m_counts.load(std::memory_order_acquire);
    for (;;) {
        if (retriesOf(word) >= allowedRetries(requestsOf(word))) {
            m_refused.fetch_add(1, std::memory_order_relaxed);
            return false;
        }
        if (m_counts.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel)) {
            m_granted.fetch_add(1, std::memory_order_relaxed);
            return true;
        }
    }
}

void RetryBudget::retryFinished()
{
    auto word = m_counts.load(std::memory_order_acquire);
    while (retriesOf(word) > 0 && !m_counts.compare_exchange_weak(word, word - 1, std::memory_order_acq_rel)) {
    }
}

RetryBudget::Stats RetryBudget::stats() const
{
    const auto word = m_counts.load(std::memory_order_acquire);
    Stats s;
    s.granted = m_granted.load(std::memory_order_relaxed);
    s.refused = m_refused.load(std::memory_order_relaxed);
    s.requestsInFlight = requestsOf(word);
    s.retriesInFlight = retriesOf(word);
    return s;
}

} // namespace sb
