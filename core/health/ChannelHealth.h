#pragma once

#include "common/Clock.h"
#include "common/Random.h"
#include "health/ChannelSnapshot.h"
#include "health/CircuitBreaker.h"
#include "health/HealthEvent.h"
#include "health/HealthScorer.h"
#include "health/SlidingWindow.h"
#include "model/EngineConfig.h"
#include "model/Outcome.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

namespace sb {

// The live state of one channel: its sliding window, health score, circuit breaker, pool membership,
// latency EWMA and in-flight count. Survives config changes (the PoolManager keeps it while the
// channel id exists). Thread-safe: workers record and admit concurrently, the control thread
// evaluates. Windows are atomics; breaker and pool transitions happen under one small mutex; what the
// hot path reads (score, states, EWMA) is mirrored in atomics so choosing a channel takes no lock
// while its breaker is CLOSED.
class ChannelHealth {
public:
    struct Stats {
        std::uint64_t degradations = 0;
        std::uint64_t ejections = 0;
        std::uint64_t readmissions = 0; // by heartbeat probes
        std::uint64_t drains = 0;       // by hand
        std::uint64_t manualReadmissions = 0;
        std::uint64_t probes = 0;
        std::uint64_t probeFailures = 0;
        std::uint64_t misconfigurations = 0;       // marked misconfigured
        std::uint64_t misconfigurationsCleared = 0; // … and cleared again (probe, config change, a retry that answered)
        std::uint64_t slowWaits = 0; // requests that counted as failures while still waiting (recordSlowWait)
    };

    ChannelHealth(const Clock &clock, const EngineConfig &config, const ChannelConfig &channel,
                  std::shared_ptr<EventDispatcher> events);
    ChannelHealth(const ChannelHealth &) = delete;
    ChannelHealth &operator=(const ChannelHealth &) = delete;

    int id() const { return m_id; }
    QString name() const;
    int providerId() const { return m_providerId.load(std::memory_order_relaxed); }
    // A new config for the same channel id: thresholds change, live state stays, except that a
    // misconfigured channel whose own or provider's settings changed is let back in (the fix may be it).
    void reconfigure(const EngineConfig &config, const ChannelConfig &channel);

    // How often a misconfigured channel lets one request through to see whether it was fixed
    // outside the engine (a DNS record, a certificate, a path on a server of one's own).
    static constexpr std::chrono::seconds kMisconfiguredRetryEvery{60};
    // Out of the pool as misconfigured, with the sentence that says what to fix (ARCHITECTURE.md,
    // "Errors and outcomes"). A drained channel stays drained. Marking an already misconfigured
    // channel again only pushes its next retry a minute on. True when it was newly marked.
    bool markMisconfigured(Misconfiguration cause, const QString &reason);
    // Back to the pool when misconfigured; false otherwise.
    bool clearMisconfigured(const QString &reason);
    Misconfiguration misconfiguration() const;

    // --- hot path (any worker thread) ---
    // In the pool (active or degraded) and the breaker not refusing outright, or misconfigured with
    // its minute's retry due. No side effects.
    bool routable() const;
    // Whether admit() would let an attempt through now, without taking a trial slot: routable, and
    // when HALF_OPEN a trial to give. What decides if a request's next attempt is a failover: a
    // channel whose trials are all taken counted as one, and a request spent its four attempts on
    // the channel that had just failed it within a millisecond, with no backoff between them.
    bool couldAdmitNow() const;
    // Admission by the breaker (HALF_OPEN trials counted); Rejected when out of the pool.
    CircuitBreaker::Admission admit(Random &random);
    void releaseTrial();
    void attemptStarted() { m_inFlight.fetch_add(1, std::memory_order_relaxed); }
    void attemptFinished() { m_inFlight.fetch_sub(1, std::memory_order_relaxed); }
    // One finished attempt. Latency and TTFT feed the histograms for successes only.
    void record(const Outcome &outcome, Clock::Duration latency, std::optional<Clock::Duration> ttft, bool wasTrial);
    // How long a request may wait for its first byte (a stream: its first content) before it is
    // evidence against the channel: HealthConfig::slowWaitFactor × the recent p99 time to first
    // token, at least slowWaitFloor. Learnt by evaluate() from successful calls; nullopt until the
    // window has held minVolume of them (nothing to be slow relative to) or with the rule off.
    std::optional<Clock::Duration> slowWaitThreshold() const;
    // A request crossed that threshold and is still waiting: one failure for the windows and the
    // breaker, now (ARCHITECTURE.md, "Defaults and why"). Its final outcome must then not count again
    // as a failure (Router::record sees RouteChoice::slowWaitCounted).
    void recordSlowWait(bool wasTrial);

    double score() const { return m_score.load(std::memory_order_relaxed); }
    PoolState poolState() const { return static_cast<PoolState>(m_poolMirror.load(std::memory_order_relaxed)); }
    // When an OPEN breaker turns HALF_OPEN (meaningless otherwise).
    Clock::TimePoint openUntil() const { return Clock::TimePoint(Clock::Duration(m_openUntilNanos.load(std::memory_order_relaxed))); }
    BreakerState breakerState() const { return static_cast<BreakerState>(m_breakerMirror.load(std::memory_order_relaxed)); }
    double latencyEwmaMs() const { return m_ewmaMs.load(std::memory_order_relaxed); }
    int inFlight() const { return m_inFlight.load(std::memory_order_relaxed); }

    // --- control thread ---
    // Re-scores from the windows, moves the breaker OPEN → HALF_OPEN when due, and applies the pool
    // rules: score < degradeBelow → Degraded; < ejectBelow continuously for ejectAfter → Ejected.
    HealthScore evaluate();
    // A heartbeat result: recorded as evidence in the windows; successesToReadmit in a row re-admit
    // an Ejected channel.
    void recordProbe(bool ok, Clock::Duration latency);
    // Due for a heartbeat: ejected, breaker OPEN, or (probeIdle) no call in the last probe interval.
    bool wantsProbe(bool probeIdle) const;
    bool drain(const QString &reason);   // manual; false if already drained
    bool readmit(const QString &reason); // manual; false if already in the pool

    // --- the fleet (control thread): changes another instance saw, adopted here. Their events carry
    // `origin` (the instance's id) in HealthEvent::fleetOrigin. False when nothing changed. ---
    // Open until `until` (the other instance's deadline), or closed: its trials proved the recovery.
    bool adoptBreaker(BreakerState to, Clock::TimePoint until, const QString &origin, const QString &reason);
    // Ejected, drained or re-admitted (Active); degradation stays each instance's own (a weight,
    // not an exclusion), and a misconfigured channel stays so until its own evidence says otherwise.
    bool adoptPool(PoolState to, const QString &origin, const QString &reason);

    ChannelSnapshot snapshot() const;
    WindowSnapshot window(std::chrono::seconds span) const;
    HealthScore lastScore() const;
    Stats stats() const;

private:
    void setPoolLocked(PoolState to, const QString &reason, std::vector<HealthEvent> *events);
    void mirrorLocked();
    void learnSlowWaitLocked(const WindowSnapshot &slow);
    void emitBreaker(const std::vector<BreakerTransition> &transitions, std::vector<HealthEvent> *events);
    // The span to read from the windows: `span`, cut to the evidence since the last proven recovery.
    std::chrono::seconds evidenceSpan(Clock::TimePoint now, std::chrono::seconds span) const;
    void publish(const std::vector<HealthEvent> &events) const;
    HealthEvent makeEvent(HealthEvent::Type type) const;
    void clearMisconfiguredLocked(const QString &reason, std::vector<HealthEvent> *events);

    const int m_id;
    const Clock &m_clock;
    std::shared_ptr<EventDispatcher> m_events;
    SlidingWindow m_window;

    mutable std::mutex m_mutex;
    QString m_name;
    HealthConfig m_health;
    ProbeConfig m_probe;
    CircuitBreaker m_breaker;
    HealthScorer m_scorer;
    HealthScore m_lastScore;
    PoolState m_poolState = PoolState::Active;
    QString m_poolReason;
    std::optional<Clock::TimePoint> m_belowEjectSince;
    // When the channel last proved it recovered (breaker HALF_OPEN → CLOSED, or re-admission to the
    // pool). The score reads only evidence from then on: otherwise the failures of the outage keep a
    // recovered channel degraded for 5 minutes, no traffic reaches it to prove otherwise, and the
    // primary never takes its traffic back (the launch-day drill's recovery target).
    std::optional<Clock::TimePoint> m_evidenceSince;
    std::optional<Clock::TimePoint> m_lastEvaluation;
    int m_probeSuccessesInRow = 0;
    Misconfiguration m_misconfiguration = Misconfiguration::None;
    // A digest of what decides whether the channel can reach its endpoint (base URL, dialect, keys,
    // egress, upstream model): a change is a fix worth trying.
    QByteArray m_reachDigest;
    Stats m_stats;

    std::atomic<int> m_providerId{0};
    std::atomic<double> m_score{100.0};
    std::atomic<std::uint8_t> m_poolMirror{static_cast<std::uint8_t>(PoolState::Active)};
    std::atomic<std::uint8_t> m_breakerMirror{static_cast<std::uint8_t>(BreakerState::Closed)};
    std::atomic<std::int64_t> m_openUntilNanos{0};
    std::atomic<std::int64_t> m_retryAtNanos{0}; // misconfigured: when one request may try again
    std::atomic<double> m_ewmaMs{0.0};
    std::atomic<int> m_inFlight{0};
    std::atomic<std::int64_t> m_slowWaitNanos{0}; // slowWaitThreshold(); 0 = none
};

} // namespace sb
