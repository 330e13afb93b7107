#pragma once

#include "cache/CachedAnswer.h"
#include "common/Clock.h"
#include "model/CacheConfig.h"

#include <QByteArray>
#include <QHash>

#include <list>
#include <memory>
#include <mutex>

namespace sb {

// Whole answers by request key (CacheKey::exact), in memory, shared by every worker. Bounded by
// entries and bytes with least-recently-used eviction; every entry has its own time to live
// (the route's). Thread-safe: one mutex, held only for map and list operations (a hit hands out a
// shared pointer, so serving it copies nothing under the lock).
class ExactCache {
public:
    struct Stats {
        quint64 hits = 0;
        quint64 misses = 0;
        quint64 stores = 0;
        quint64 evictions = 0; // pushed out by the size limits
        quint64 expired = 0;   // found past their TTL
        quint64 rejected = 0;  // larger than the answer limit or the whole cache
        qint64 bytes = 0;
        qint64 entries = 0;
    };

    explicit ExactCache(const Clock &clock, CacheLimits limits = {});

    void setLimits(const CacheLimits &limits);
    std::shared_ptr<const CachedAnswer> find(const QByteArray &key);
    // False when the answer is not kept (too large, or the cache is off).
    bool store(const QByteArray &key, CachedAnswer answer, Clock::Duration ttl);
    void clear();
    Stats stats() const;

private:
    struct Entry {
        QByteArray key;
        std::shared_ptr<const CachedAnswer> answer;
        Clock::TimePoint expiresAt;
        qint64 bytes = 0;
    };
    using Lru = std::list<Entry>; // front = most recently used

    void evictLocked();
    void eraseLocked(Lru::iterator it);

    const Clock &m_clock;
    mutable std::mutex m_mutex;
    CacheLimits m_limits;
    Lru m_lru;
    QHash<QByteArray, Lru::iterator> m_index;
    Stats m_stats;
};

} // namespace sb
