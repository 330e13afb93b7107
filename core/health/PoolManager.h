#pragma once

#include "common/Clock.h"
#include "health/ChannelHealth.h"
#include "health/HealthEvent.h"
#include "model/EngineConfig.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace sb {

// The routing pool: every channel's live health, kept across config changes (a channel whose id
// still exists keeps its windows, breaker and pool state; a new one starts fresh; a removed one is
// dropped), the 1 s evaluation tick (score → degrade / eject, breaker OPEN → HALF_OPEN), manual
// drain / re-admit from the console, and panic-mode bookkeeping. Ejected channels come back through
// HeartbeatProber; misconfigured ones through a heartbeat, a changed configuration or a retry
// (ChannelHealth::markMisconfigured). Thread-safe.
class PoolManager {
public:
    struct Stats {
        std::uint64_t degradations = 0;
        std::uint64_t ejections = 0;
        std::uint64_t readmissions = 0;       // by heartbeat probes
        std::uint64_t drains = 0;             // by hand
        std::uint64_t manualReadmissions = 0; // by hand
        std::uint64_t panicChoices = 0;       // requests served by a channel out of the pool
        std::uint64_t trips = 0;              // circuit breaker CLOSED/HALF_OPEN → OPEN, all channels
        std::uint64_t misconfigurations = 0;  // channels marked misconfigured
        int channels = 0;
        int ejectedNow = 0;
        int openNow = 0;
        int misconfiguredNow = 0;
    };

    explicit PoolManager(const Clock &clock);

    void reconfigure(const EngineConfig &config);
    std::shared_ptr<ChannelHealth> channel(int id) const;
    std::vector<std::shared_ptr<ChannelHealth>> channels() const;

    // Called every second by the control thread.
    void tick();

    bool drain(int channelId, const QString &reason = {});
    bool readmit(int channelId, const QString &reason = {});

    // Panic mode (PoolConfig::panicMode): when every channel of a route is out, the Router uses the
    // least-bad one and tells us, so it is counted and shown.
    bool panicModeEnabled() const { return m_panicMode.load(std::memory_order_relaxed); }
    void notePanic(const ChannelHealth &channel, const QString &logicalModel);

    void setEventSink(EventSink sink) { m_events->setSink(std::move(sink)); }
    const std::shared_ptr<EventDispatcher> &events() const { return m_events; }

    std::vector<ChannelSnapshot> snapshots() const;
    Stats stats() const;

private:
    const Clock &m_clock;
    std::shared_ptr<EventDispatcher> m_events = std::make_shared<EventDispatcher>();
    mutable std::mutex m_mutex;
    std::unordered_map<int, std::shared_ptr<ChannelHealth>> m_channels;
    std::vector<std::shared_ptr<ChannelHealth>> m_ordered; // config order, for snapshots
    std::atomic<bool> m_panicMode{true};
    std::atomic<std::uint64_t> m_panicChoices{0};
};

} // namespace sb
