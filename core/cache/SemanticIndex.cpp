#include "cache/SemanticIndex.h"

#include <cmath>
#include <cstring>

namespace sb {

bool SemanticIndex::normalise(std::vector<float> &vector)
{
    double sum = 0.0;
    for (float v : vector)
        sum += double(v) * double(v);
    if (vector.empty() || !std::isfinite(sum) || sum <= 0.0)
        return false;
    const float scale = static_cast<float>(1.0 / std::sqrt(sum));
    for (float &v : vector)
        v *= scale;
    return true;
}

void SemanticIndex::add(const QByteArray &scope, qint64 id, const std::vector<float> &unitVector)
{
    remove(id);
    Block &block = m_blocks[scope];
    if (block.ids.empty())
        block.dimension = int(unitVector.size());
    if (block.dimension != int(unitVector.size()))
        return; // another embeddings model for the same scope: it could never be compared anyway
    block.data.insert(block.data.end(), unitVector.begin(), unitVector.end());
    block.ids.push_back(id);
    m_scopeOf.insert(id, scope);
}

void SemanticIndex::remove(qint64 id)
{
    const auto scope = m_scopeOf.constFind(id);
    if (scope == m_scopeOf.constEnd())
        return;
    const auto blockIt = m_blocks.find(scope.value());
    m_scopeOf.erase(scope);
    if (blockIt == m_blocks.end())
        return;
    Block &block = blockIt.value();
    const std::size_t dim = std::size_t(block.dimension);
    for (std::size_t row = 0; row < block.ids.size(); ++row) {
        if (block.ids[row] != id)
            continue;
        // Move the last row into the hole: removal stays O(dimension), order does not matter.
        const std::size_t last = block.ids.size() - 1;
        if (row != last) {
            std::memcpy(block.data.data() + row * dim, block.data.data() + last * dim, dim * sizeof(float));
            block.ids[row] = block.ids[last];
        }
        block.ids.pop_back();
        block.data.resize(block.ids.size() * dim);
        break;
    }
    if (block.ids.empty())
        m_blocks.erase(blockIt);
}

std::optional<SemanticIndex::Match> SemanticIndex::best(const QByteArray &scope, const std::vector<float> &unitVector) const
{
    const auto blockIt = m_blocks.constFind(scope);
    if (blockIt == m_blocks.constEnd() || blockIt->dimension != int(unitVector.size()) || blockIt->ids.empty())
        return std::nullopt;
    const Block &block = blockIt.value();
    const std::size_t dim = std::size_t(block.dimension);
    const float *query = unitVector.data();
    const float *row = block.data.data();
    Match best{0, -2.0f};
    for (std::size_t i = 0; i < block.ids.size(); ++i, row += dim) {
        // Eight independent sums: one running sum is bound by the latency of each addition (strict
        // floating-point order forbids the compiler to reassociate it); eight let it vectorise.
        float sums[8] = {};
        std::size_t k = 0;
        for (; k + 8 <= dim; k += 8)
            for (std::size_t lane = 0; lane < 8; ++lane)
                sums[lane] += row[k + lane] * query[k + lane];
        float dot = ((sums[0] + sums[1]) + (sums[2] + sums[3])) + ((sums[4] + sums[5]) + (sums[6] + sums[7]));
        for (; k < dim; ++k)
            dot += row[k] * query[k];
        if (dot > best.similarity)
            best = Match{block.ids[i], dot};
    }
    return best;
}

void SemanticIndex::clear()
{
    m_blocks.clear();
    m_scopeOf.clear();
}

} // namespace sb
