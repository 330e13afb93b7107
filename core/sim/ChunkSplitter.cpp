#include "sim/ChunkSplitter.h"

#include <algorithm>

namespace sb::sim {

ChunkSplitter::ChunkSplitter(ChunkingSpec spec, Random &random) : m_spec(spec), m_random(random)
{
    m_spec.minBytes = std::max(1, m_spec.minBytes);
    m_spec.maxBytes = std::max(m_spec.minBytes, m_spec.maxBytes);
    m_cut = nextCut();
}

int ChunkSplitter::nextCut()
{
    return m_spec.minBytes + static_cast<int>(m_random.below(static_cast<std::uint64_t>(m_spec.maxBytes - m_spec.minBytes + 1)));
}

std::vector<QByteArray> ChunkSplitter::feed(const QByteArray &bytes)
{
    std::vector<QByteArray> out;
    if (m_spec.mode == ChunkingSpec::Mode::Event) {
        if (!bytes.isEmpty())
            out.push_back(bytes);
        return out;
    }
    m_carry += bytes;
    qsizetype offset = 0;
    while (m_carry.size() - offset >= m_cut) {
        out.push_back(m_carry.mid(offset, m_cut));
        offset += m_cut;
        m_cut = nextCut();
    }
    m_carry.remove(0, offset);
    return out;
}

QByteArray ChunkSplitter::flush()
{
    QByteArray rest;
    rest.swap(m_carry);
    return rest;
}

} // namespace sb::sim
