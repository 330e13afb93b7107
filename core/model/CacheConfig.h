#pragma once

#include <QString>
#include <QStringView>

#include <chrono>

namespace sb {

// How close a new question must be to a cached one for the semantic cache to answer it: the cosine
// similarity of the two normalised embeddings. Documented in CONFIG_FORMAT.md ("Caching").
enum class SemanticPreset { Strict, Balanced, Loose };

const char *toString(SemanticPreset preset);
bool semanticPresetFromString(QStringView text, SemanticPreset *out);
// strict 0.97 (paraphrases only), balanced 0.93, loose 0.88 (same topic, may change the answer).
double similarityThreshold(SemanticPreset preset);

// A route's cache settings. Both caches are opt-in per route: an answer is only reused
// for callers who asked for it. RouteConfig::cacheEnabled switches the exact cache.
struct RouteCacheConfig {
    std::chrono::seconds ttl{3600};  // an hour: long enough for retries and repeated CI runs, short enough for changing data
    bool semantic = false;
    SemanticPreset preset = SemanticPreset::Balanced;
    int embeddingsChannelId = 0;     // the channel whose provider answers /v1/embeddings
    QString embeddingsModel;         // empty = that channel's upstream model
};

// Global limits (settings "cache.*"). The exact cache holds whole answers in memory, so it is
// bounded by bytes as well as entries; the semantic cache keeps one float vector per entry in
// memory and is searched by brute force, which stays under a millisecond up to tens of thousands.
struct CacheLimits {
    int maxEntries = 10000;
    qint64 maxBytes = 64LL * 1024 * 1024;
    int semanticMaxEntries = 50000;
    qint64 maxAnswerBytes = 1024LL * 1024; // a larger answer is served but not cached
};

} // namespace sb
