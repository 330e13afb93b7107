#pragma once

#include "common/Clock.h"
#include "common/Random.h"
#include "model/EngineConfig.h"

namespace sb {

// The retry rules (ARCHITECTURE.md, "The life of a request"), immutable and shared by every request.
// Per-request progress lives in RetryState: policy and state are separate types.
class RetryPolicy {
public:
    explicit RetryPolicy(const RetryConfig &config);

    // attempt = number of the retry after the immediate failover (0-based); negative counts as 0.
    // Delay = min(t_max, t_base·2^attempt) + random(0, jitter). Never retry instantly into a dying
    // cluster: the jitter spreads callers that failed together.
    Clock::Duration backoff(int attempt, Random &random) const;
    // The deterministic part of backoff(): min(t_max, t_base·2^attempt).
    Clock::Duration backoffFloor(int attempt) const;
    int maxAttempts() const; // at least 1
    const RetryConfig &config() const { return m_config; }

private:
    const RetryConfig m_config;
};

} // namespace sb
