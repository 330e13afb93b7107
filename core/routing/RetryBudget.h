#pragma once

#include <atomic>
#include <cstdint>

namespace sb {

// Global retry budget: retries in flight ≤ max(minimum, ratio × requests in flight) (ARCHITECTURE.md,
// "Defaults and why"), so a flapping provider cannot turn every caller's failure into a storm on the fallback.
// A "retry" here is an attempt on a channel the request already tried, after the immediate first
// failover; failovers to untried channels are free (RetryState::nextAttemptSpendsBudget()).
// Lock-free: both counters live in one atomic word, so a grant is decided on a consistent pair.
class RetryBudget {
public:
    struct Stats {
        std::uint64_t granted = 0;
        std::uint64_t refused = 0;
        int requestsInFlight = 0;
        int retriesInFlight = 0;
    };

    explicit RetryBudget(double ratio = 0.20, int minimum = 3);

    void requestStarted();
    void requestFinished();
    // false = budget exhausted: the caller returns the error instead of retrying.
    bool tryStartRetry();
    void retryFinished();
    // The retries in flight allowed for this many requests in flight.
    int allowedRetries(int requestsInFlight) const;
    Stats stats() const;

    double ratio() const { return m_ratio; }
    int minimum() const { return m_minimum; }

private:
    const double m_ratio;
    const int m_minimum;
    // High 32 bits: requests in flight; low 32 bits: retries in flight.
    std::atomic<std::uint64_t> m_counts{0};
    std::atomic<std::uint64_t> m_granted{0};
    std::atomic<std::uint64_t> m_refused{0};
};

} // namespace sb
