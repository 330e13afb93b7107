#pragma once

#include "cache/CachedAnswer.h"
#include "cache/SemanticIndex.h"
#include "cache/SemanticStore.h"
#include "common/Clock.h"

#include <QByteArray>
#include <QHash>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace sb {

// Answers by meaning (a reworded question gets the answer already paid for): an entry is an embedding of the question, the scope it
// was asked in (CacheKey::semanticScope) and the answer. A lookup returns the most similar entry of
// the same scope when its cosine similarity reaches the threshold (the route's preset). Kept in
// SQLite when a database is given, so it survives restarts; expiry uses the wall clock for that
// reason. Thread-safe; the oldest entries go first when the entry limit is reached.
class SemanticCache {
public:
    struct Stats {
        quint64 hits = 0;
        quint64 misses = 0;
        quint64 stores = 0;
        quint64 evictions = 0;
        quint64 expired = 0;
        qint64 entries = 0;
        qint64 loaded = 0; // entries read from the database at open
    };
    struct Hit {
        std::shared_ptr<const CachedAnswer> answer;
        float similarity = 0.0f;
    };

    explicit SemanticCache(const Clock &clock, int maxEntries = 50000);

    // Loads the entries of the database at `path` and persists new ones there from now on.
    bool open(const QString &path, QString *error);
    void setMaxEntries(int maxEntries);

    // `embedding` need not be normalised.
    std::optional<Hit> find(const QByteArray &scope, std::vector<float> embedding, double threshold);
    bool store(const QByteArray &scope, std::vector<float> embedding, CachedAnswer answer, Clock::Duration ttl);
    Stats stats() const;
    // Waits until the database has every stored entry (tests).
    void flush();

private:
    struct Entry {
        QByteArray scope;
        qint64 expiresMs = 0;
        std::shared_ptr<const CachedAnswer> answer;
    };

    void eraseLocked(qint64 id, std::vector<qint64> *removed);

    const Clock &m_clock;
    mutable std::mutex m_mutex;
    int m_maxEntries;
    SemanticIndex m_index;
    std::map<qint64, Entry> m_entries; // by id: the first is the oldest
    qint64 m_nextId = 1;
    Stats m_stats;
    SemanticStore m_store;
};

} // namespace sb
