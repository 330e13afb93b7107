#include "cache/ExactCache.h"

#include <iterator>

namespace sb {

ExactCache::ExactCache(const Clock &clock, CacheLimits limits) : m_clock(clock), m_limits(limits) {}

void ExactCache::setLimits(const CacheLimits &limits)
{
    std::lock_guard lock(m_mutex);
    m_limits = limits;
    evictLocked();
}

std::shared_ptr<const CachedAnswer> ExactCache::find(const QByteArray &key)
{
    std::lock_guard lock(m_mutex);
    const auto found = m_index.constFind(key);
    if (found == m_index.constEnd()) {
        ++m_stats.misses;
        return nullptr;
    }
    const Lru::iterator it = found.value();
    if (m_clock.now() >= it->expiresAt) {
        ++m_stats.expired;
        ++m_stats.misses;
        eraseLocked(it);
        return nullptr;
    }
    m_lru.splice(m_lru.begin(), m_lru, it);
    ++m_stats.hits;
    return it->answer;
}

bool ExactCache::store(const QByteArray &key, CachedAnswer answer, Clock::Duration ttl)
{
    const qint64 bytes = answer.bytes() + key.size();
    auto shared = std::make_shared<const CachedAnswer>(std::move(answer));
    std::lock_guard lock(m_mutex);
    if (m_limits.maxEntries <= 0 || bytes > m_limits.maxAnswerBytes || bytes > m_limits.maxBytes || ttl <= Clock::Duration::zero()) {
        ++m_stats.rejected;
        return false;
    }
    if (const auto found = m_index.constFind(key); found != m_index.constEnd())
        eraseLocked(found.value());
    m_lru.push_front(Entry{key, std::move(shared), m_clock.now() + ttl, bytes});
    m_index.insert(key, m_lru.begin());
    m_stats.bytes += bytes;
    ++m_stats.entries;
    ++m_stats.stores;
    evictLocked();
    return true;
}

void ExactCache::clear()
{
    std::lock_guard lock(m_mutex);
    m_lru.clear();
    m_index.clear();
    m_stats.bytes = 0;
    m_stats.entries = 0;
}

ExactCache::Stats ExactCache::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

void ExactCache::evictLocked()
{
    while (!m_lru.empty() && (m_stats.entries > m_limits.maxEntries || m_stats.bytes > m_limits.maxBytes)) {
        eraseLocked(std::prev(m_lru.end()));
        ++m_stats.evictions;
    }
}

void ExactCache::eraseLocked(Lru::iterator it)
{
    m_stats.bytes -= it->bytes;
    --m_stats.entries;
    m_index.remove(it->key);
    m_lru.erase(it);
}

} // namespace sb
