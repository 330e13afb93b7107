#pragma once

#include "health/CircuitBreaker.h"

#include <QString>

#include <cstdint>

namespace sb {

enum class PoolState : std::uint8_t {
    Active,   // in the pool at full weight
    Degraded, // score < degradeBelow: routing weight reduced
    Ejected,  // score < ejectBelow for ejectAfter: out until heartbeat probes succeed
    Drained,  // taken out by hand in the console: out until re-admitted by hand
    // Its configuration cannot work (the endpoint does not exist, the host does not resolve, TLS
    // fails, every key was refused): out until a heartbeat succeeds, the provider's configuration
    // changes, or the one request a minute let through answers (ChannelHealth::markMisconfigured).
    Misconfigured,
};
const char *toString(PoolState state); // "active", "degraded", "ejected", "drained", "misconfigured"

// One channel's live state as the console and /metrics read it: a plain value, copied out.
struct ChannelSnapshot {
    int channelId = 0;
    QString name;
    int providerId = 0;
    double score = 100.0;
    double errorRate30s = 0.0; // raw failures/calls (0 when idle)
    double errorRate5m = 0.0;
    std::uint64_t calls30s = 0;
    std::uint64_t calls5m = 0;
    double p50Ms = 0, p95Ms = 0, p99Ms = 0; // latency of successful calls over 5 min
    double ttftP95Ms = 0;
    double baselineP95Ms = 0;
    double latencyEwmaMs = 0;
    BreakerState breaker = BreakerState::Closed;
    PoolState pool = PoolState::Active;
    QString poolReason;      // why it is degraded/ejected/drained/misconfigured (misconfigured: what to fix)
    QString misconfiguration; // "endpoint_not_found", "name_not_resolved", "tls_failed", "keys_refused"; empty otherwise
    double misconfiguredRetryInS = 0; // misconfigured: seconds until one request may try it again
    int inFlight = 0;
    bool routable = true;    // in the pool and the breaker not OPEN
    int keysHealthy = 0;     // filled in by the Router (the provider's KeyRing)
    int keysTotal = 0;
    double headroom = 1.0;   // filled in by the Router (the provider's limiter), 0–1
    CircuitBreaker::Stats breakerStats;
};

} // namespace sb
