#include "cache/SemanticCache.h"

namespace sb {

SemanticCache::SemanticCache(const Clock &clock, int maxEntries) : m_clock(clock), m_maxEntries(maxEntries) {}

bool SemanticCache::open(const QString &path, QString *error)
{
    std::vector<SemanticStore::Row> rows;
    if (!m_store.open(path, m_clock.wallMillis(), &rows, error))
        return false;
    std::lock_guard lock(m_mutex);
    for (SemanticStore::Row &row : rows) {
        auto answer = CachedAnswer::deserialize(row.answer);
        if (!answer || !SemanticIndex::normalise(row.embedding))
            continue;
        m_index.add(row.scope, row.id, row.embedding);
        m_entries[row.id] = Entry{row.scope, row.expiresMs, std::make_shared<const CachedAnswer>(std::move(*answer))};
        m_nextId = std::max(m_nextId, row.id + 1);
        ++m_stats.loaded;
    }
    m_stats.entries = qint64(m_entries.size());
    return true;
}

void SemanticCache::setMaxEntries(int maxEntries)
{
    std::vector<qint64> removed;
    {
        std::lock_guard lock(m_mutex);
        m_maxEntries = maxEntries;
        while (!m_entries.empty() && qint64(m_entries.size()) > std::max(0, m_maxEntries)) {
            eraseLocked(m_entries.begin()->first, &removed);
            ++m_stats.evictions;
        }
    }
    m_store.remove(std::move(removed));
}

std::optional<SemanticCache::Hit> SemanticCache::find(const QByteArray &scope, std::vector<float> embedding, double threshold)
{
    if (!SemanticIndex::normalise(embedding))
        return std::nullopt;
    std::vector<qint64> removed;
    std::optional<Hit> hit;
    {
        std::lock_guard lock(m_mutex);
        // An expired best match is dropped and the search repeated: the next best may still be fresh.
        for (;;) {
            const auto match = m_index.best(scope, embedding);
            if (!match || match->similarity < threshold)
                break;
            const auto it = m_entries.find(match->id);
            if (it == m_entries.end())
                break;
            if (it->second.expiresMs <= m_clock.wallMillis()) {
                ++m_stats.expired;
                eraseLocked(match->id, &removed);
                continue;
            }
            hit = Hit{it->second.answer, match->similarity};
            break;
        }
        ++(hit ? m_stats.hits : m_stats.misses);
    }
    m_store.remove(std::move(removed));
    return hit;
}

bool SemanticCache::store(const QByteArray &scope, std::vector<float> embedding, CachedAnswer answer, Clock::Duration ttl)
{
    if (!SemanticIndex::normalise(embedding) || ttl <= Clock::Duration::zero())
        return false;
    const qint64 now = m_clock.wallMillis();
    SemanticStore::Row row;
    row.scope = scope;
    row.createdMs = now;
    row.expiresMs = now + std::chrono::duration_cast<std::chrono::milliseconds>(ttl).count();
    row.embedding = embedding;
    if (m_store.isOpen())
        row.answer = answer.serialize();
    std::vector<qint64> removed;
    {
        std::lock_guard lock(m_mutex);
        if (m_maxEntries <= 0)
            return false;
        row.id = m_nextId++;
        m_index.add(scope, row.id, embedding);
        m_entries[row.id] = Entry{scope, row.expiresMs, std::make_shared<const CachedAnswer>(std::move(answer))};
        while (qint64(m_entries.size()) > m_maxEntries) {
            eraseLocked(m_entries.begin()->first, &removed);
            ++m_stats.evictions;
        }
        ++m_stats.stores;
        m_stats.entries = qint64(m_entries.size());
    }
    m_store.remove(std::move(removed));
    m_store.insert(std::move(row));
    return true;
}

SemanticCache::Stats SemanticCache::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

void SemanticCache::flush()
{
    m_store.flush();
}

void SemanticCache::eraseLocked(qint64 id, std::vector<qint64> *removed)
{
    m_index.remove(id);
    m_entries.erase(id);
    m_stats.entries = qint64(m_entries.size());
    removed->push_back(id);
}

} // namespace sb
