#include "health/HeartbeatProber.h"

#include "health/PoolManager.h"

#include <vector>

namespace sb {

HeartbeatProber::HeartbeatProber(const Clock &clock, PoolManager &pool, ProbeTransport &transport, ProbeConfig config,
                                 bool probeIdle)
    : m_clock(clock)
    , m_pool(pool)
    , m_transport(transport)
    , m_probeIdle(probeIdle)
    , m_config(config)
{
}

void HeartbeatProber::setConfig(const ProbeConfig &config)
{
    std::lock_guard lock(m_mutex);
    m_config = config;
}

void HeartbeatProber::tick()
{
    const auto now = m_clock.now();
    struct Start {
        int channelId;
        std::uint64_t sequence;
    };
    std::vector<Start> starts;
    std::vector<std::pair<int, std::uint64_t>> overdue;
    Clock::Duration timeout;
    {
        std::lock_guard lock(m_mutex);
        timeout = m_config.timeout;
        for (auto &[id, slot] : m_slots)
            if (slot.sequence != 0 && now - slot.startedAt >= Clock::Duration(m_config.timeout))
                overdue.emplace_back(id, slot.sequence);
    }
    for (const auto &[id, sequence] : overdue)
        finish(id, sequence, false, timeout, true);

    const auto channels = m_pool.channels();
    {
        std::lock_guard lock(m_mutex);
        for (const auto &c : channels) {
            Slot &slot = m_slots[c->id()];
            if (slot.sequence != 0)
                continue;
            if (slot.everStarted && now - slot.lastStart < Clock::Duration(m_config.interval))
                continue;
            if (!c->wantsProbe(m_probeIdle))
                continue;
            // An idle channel whose probe is billed waits longer; one that is out of the pool or
            // open does not, since its probes are how it comes back.
            if (slot.everStarted && now - slot.lastStart < Clock::Duration(m_config.interval * kBilledIdleFactor)
                && !c->wantsProbe(false) && m_transport.probeIsBilled(c->id()))
                continue;
            slot.sequence = m_nextSequence++;
            slot.startedAt = now;
            slot.lastStart = now;
            slot.everStarted = true;
            ++m_stats.started;
            starts.push_back({c->id(), slot.sequence});
        }
    }
    // Outside the lock: a transport may report synchronously from inside startProbe().
    for (const auto &s : starts) {
        const int id = s.channelId;
        const auto sequence = s.sequence;
        m_transport.startProbe(id, timeout, [this, id, sequence](bool ok, Clock::Duration latency, const QString &) {
            finish(id, sequence, ok, latency, false);
        });
    }
}

void HeartbeatProber::finish(int channelId, std::uint64_t sequence, bool ok, Clock::Duration latency, bool timedOut)
{
    {
        std::lock_guard lock(m_mutex);
        auto it = m_slots.find(channelId);
        if (it == m_slots.end() || it->second.sequence != sequence)
            return; // already timed out, or a stale report
        it->second.sequence = 0;
        if (ok)
            ++m_stats.succeeded;
        else
            ++m_stats.failed;
        if (timedOut)
            ++m_stats.timedOut;
    }
    if (auto channel = m_pool.channel(channelId))
        channel->recordProbe(ok, latency);
}

HeartbeatProber::Stats HeartbeatProber::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

} // namespace sb
