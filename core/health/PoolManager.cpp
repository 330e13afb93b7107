#include "health/PoolManager.h"

namespace sb {

PoolManager::PoolManager(const Clock &clock)
    : m_clock(clock)
{
}

void PoolManager::reconfigure(const EngineConfig &config)
{
    std::unordered_map<int, std::shared_ptr<ChannelHealth>> next;
    std::vector<std::shared_ptr<ChannelHealth>> ordered;
    std::lock_guard lock(m_mutex);
    for (const auto &c : config.channels) {
        std::shared_ptr<ChannelHealth> health;
        if (auto it = m_channels.find(c.id); it != m_channels.end()) {
            health = it->second;
            health->reconfigure(config, c);
        } else {
            health = std::make_shared<ChannelHealth>(m_clock, config, c, m_events);
        }
        next.emplace(c.id, health);
        ordered.push_back(health);
    }
    m_channels = std::move(next);
    m_ordered = std::move(ordered);
    m_panicMode.store(config.pool.panicMode, std::memory_order_relaxed);
}

std::shared_ptr<ChannelHealth> PoolManager::channel(int id) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_channels.find(id);
    return it == m_channels.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<ChannelHealth>> PoolManager::channels() const
{
    std::lock_guard lock(m_mutex);
    return m_ordered;
}

void PoolManager::tick()
{
    for (const auto &c : channels())
        c->evaluate();
}

bool PoolManager::drain(int channelId, const QString &reason)
{
    auto c = channel(channelId);
    return c && c->drain(reason);
}

bool PoolManager::readmit(int channelId, const QString &reason)
{
    auto c = channel(channelId);
    return c && c->readmit(reason);
}

void PoolManager::notePanic(const ChannelHealth &channel, const QString &logicalModel)
{
    m_panicChoices.fetch_add(1, std::memory_order_relaxed);
    HealthEvent e;
    e.type = HealthEvent::Type::Panic;
    e.channelId = channel.id();
    e.channelName = channel.name();
    e.from = QString::fromLatin1(toString(channel.poolState()));
    e.to = e.from;
    e.route = logicalModel;
    e.reason = QStringLiteral("every channel of \"%1\" is out of the pool or open; using the least bad one (score %2)")
                   .arg(logicalModel)
                   .arg(channel.score(), 0, 'f', 0);
    e.at = m_clock.now();
    e.wallMillis = m_clock.wallMillis();
    m_events->emitEvent(e);
}

std::vector<ChannelSnapshot> PoolManager::snapshots() const
{
    std::vector<ChannelSnapshot> out;
    for (const auto &c : channels())
        out.push_back(c->snapshot());
    return out;
}

PoolManager::Stats PoolManager::stats() const
{
    Stats s;
    for (const auto &c : channels()) {
        const auto cs = c->stats();
        s.degradations += cs.degradations;
        s.ejections += cs.ejections;
        s.readmissions += cs.readmissions;
        s.drains += cs.drains;
        s.manualReadmissions += cs.manualReadmissions;
        s.misconfigurations += cs.misconfigurations;
        s.trips += c->snapshot().breakerStats.trips;
        ++s.channels;
        if (c->poolState() == PoolState::Ejected)
            ++s.ejectedNow;
        if (c->breakerState() == BreakerState::Open)
            ++s.openNow;
        if (c->poolState() == PoolState::Misconfigured)
            ++s.misconfiguredNow;
    }
    s.panicChoices = m_panicChoices.load(std::memory_order_relaxed);
    return s;
}

} // namespace sb
