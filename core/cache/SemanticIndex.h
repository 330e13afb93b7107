#pragma once

#include <QByteArray>
#include <QHash>

#include <optional>
#include <vector>

namespace sb {

// Nearest-neighbour search for the semantic cache by brute force: per scope, the unit vectors lie
// end to end in one float array, so a lookup is one pass of dot products over contiguous memory
// (cosine similarity = dot product of normalised vectors). bench_cache_ttft measures it; at tens of
// thousands of entries it stays well under the time of the embeddings call that precedes it, which
// is why there is no approximate index (hnswlib) yet. Not thread-safe: SemanticCache locks.
class SemanticIndex {
public:
    struct Match {
        qint64 id = 0;
        float similarity = 0.0f;
    };

    // Scales to unit length; false for an empty, zero or non-finite vector.
    static bool normalise(std::vector<float> &vector);

    void add(const QByteArray &scope, qint64 id, const std::vector<float> &unitVector);
    void remove(qint64 id);
    // The most similar entry of the scope with the same dimension, if any.
    std::optional<Match> best(const QByteArray &scope, const std::vector<float> &unitVector) const;
    qsizetype size() const { return m_scopeOf.size(); }
    void clear();

private:
    struct Block {
        int dimension = 0;
        std::vector<float> data; // row i = entry ids[i]
        std::vector<qint64> ids;
    };

    QHash<QByteArray, Block> m_blocks;
    QHash<qint64, QByteArray> m_scopeOf;
};

} // namespace sb
