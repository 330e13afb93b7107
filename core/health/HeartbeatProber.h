#pragma once

#include "common/Clock.h"
#include "model/EngineConfig.h"

#include <QString>

#include <functional>
#include <mutex>
#include <unordered_map>

namespace sb {

class PoolManager;

// The seam to the network layer: a provider adapter knows what a light request is (a model list).
// startProbe() must not block; `done` is called exactly once, on any thread, when the probe ends.
class ProbeTransport {
public:
    using Done = std::function<void(bool ok, Clock::Duration latency, const QString &detail)>;
    virtual ~ProbeTransport() = default;
    virtual void startProbe(int channelId, Clock::Duration timeout, Done done) = 0;
    // The channel's probe costs money (ERNIE's with a raw access token is a tiny chat call): an
    // idle channel of it is probed every kBilledIdleFactor intervals instead of every one.
    virtual bool probeIsBilled(int channelId) const
    {
        (void)channelId;
        return false;
    }
};

// Heartbeats (every 10 s by default): probes channels that are ejected or whose breaker is OPEN —
// the probes are how an ejected channel earns its way back (ProbeConfig::successesToReadmit in a row)
// — and, with probeIdle, channels that carried no call in the last interval, so an idle channel's
// score rests on evidence rather than on one stray error. One probe per channel at a time; a probe
// that does not report within ProbeConfig::timeout counts as failed and its late report is ignored.
// A channel whose probe is billed (ProbeTransport::probeIsBilled) is probed while idle only every
// kBilledIdleFactor intervals (60 s by default); ejected or open, it is probed as often as any.
// Thread-safe: tick() on the control thread, reports from anywhere. The transport must not call a `done`
// after the prober is destroyed (the engine stops the transport first).
class HeartbeatProber {
public:
    struct Stats {
        std::uint64_t started = 0;
        std::uint64_t succeeded = 0;
        std::uint64_t failed = 0;
        std::uint64_t timedOut = 0; // included in failed
    };

    HeartbeatProber(const Clock &clock, PoolManager &pool, ProbeTransport &transport, ProbeConfig config = {},
                    bool probeIdle = true);

    static constexpr int kBilledIdleFactor = 6;

    void setConfig(const ProbeConfig &config);
    // Called every second by the control thread: times out overdue probes, starts due ones.
    void tick();
    Stats stats() const;

private:
    struct Slot {
        std::uint64_t sequence = 0; // of the probe in flight; 0 = none
        Clock::TimePoint startedAt{};
        Clock::TimePoint lastStart{};
        bool everStarted = false;
    };
    void finish(int channelId, std::uint64_t sequence, bool ok, Clock::Duration latency, bool timedOut);

    const Clock &m_clock;
    PoolManager &m_pool;
    ProbeTransport &m_transport;
    const bool m_probeIdle;
    mutable std::mutex m_mutex;
    ProbeConfig m_config;
    std::unordered_map<int, Slot> m_slots;
    std::uint64_t m_nextSequence = 1;
    Stats m_stats;
};

} // namespace sb
