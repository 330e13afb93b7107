#pragma once

#include "sim/Scenario.h"

#include <QByteArray>

#include <deque>
#include <mutex>
#include <map>

namespace sb::sim {

// What the faults active at one instant make of one request.
struct FaultDecision {
    SimError error = SimError::None;
    double extraTtftMs = 0.0;     // scenario ms added by latency spikes
    double tokenRateFactor = 1.0; // tokens/s multiplied by this (slow tokens < 1)
    int retryAfterSeconds = 0;    // for http_429_retry_after and http_429_hint
    int afterChars = -1;          // where a stream breaks (FaultSpec::afterChars) …
    FaultSpec::Inside inside = FaultSpec::Inside::Anywhere; // … or in which part of the answer
};

// A provider's fault program, evaluated at scenario times. Pure: the caller passes the scenario time
// and the random source, so tests drive it with exact times and a seeded FakeRandom.
class FaultTimeline {
public:
    explicit FaultTimeline(std::vector<FaultSpec> faults);

    FaultDecision decide(double t, Random &random) const;
    // Down = a blackout or the down phase of flapping is active; heartbeats fail then.
    bool isDown(double t) const;
    // Down with connect_refused as the only error: nothing should listen at all.
    bool refusesConnections(double t) const;
    // A fault whose only error is wrong_path is active for every request (an `errors` fault at
    // probability 1, or a blackout or the down phase of flapping): probes get the 404 page too, as a
    // server at the wrong base URL would answer them.
    bool servesWrongPath(double t) const;
    // The next scenario time after t at which isDown/refusesConnections may change; infinity if none.
    double nextChange(double t) const;

    const std::vector<FaultSpec> &faults() const { return m_faults; }

private:
    static bool downAt(const FaultSpec &f, double t);
    static SimError pick(const std::vector<ErrorMixEntry> &mix, Random &random);

    std::vector<FaultSpec> m_faults;
};

// Per-key request limits over a sliding scenario minute, so key rotation in the proxy is exercised.
// Thread-safe: the fake provider's workers share one.
class KeyLimiter {
public:
    enum class Verdict { Admitted, UnknownKey, RateLimited };

    explicit KeyLimiter(const std::vector<KeySpec> &keys);

    // An empty key list admits everything. `retryAfterSeconds` (when limited) is how long until the
    // oldest request in the window leaves it.
    Verdict admit(const QByteArray &key, double t, double *retryAfterSeconds = nullptr);

    struct Stats {
        quint64 admitted = 0;
        quint64 unknownKey = 0;
        quint64 rateLimited = 0;
    };
    Stats stats() const;
    // Requests admitted per key (by its position in the scenario's key list).
    std::vector<quint64> admittedPerKey() const;

private:
    struct KeyState {
        int rpm = 0;
        std::size_t index = 0;
        quint64 admitted = 0;
        std::deque<double> recent;
    };
    mutable std::mutex m_mutex;
    std::map<QByteArray, KeyState> m_keys;
    Stats m_stats;
};

} // namespace sb::sim
