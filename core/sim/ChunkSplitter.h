#pragma once

#include "sim/Scenario.h"

#include <QByteArray>

#include <vector>

namespace sb::sim {

// Cuts a provider's output into the writes that go on the wire. In `bytes` mode each write is a
// random length, so writes end inside a multi-byte UTF-8 character, inside an SSE field or between
// CR and LF; the remainder shorter than the next cut waits for the next feed (the next token), so a
// client really sees the half character or half event on its own, as real providers make it.
class ChunkSplitter {
public:
    ChunkSplitter(ChunkingSpec spec, Random &random);

    std::vector<QByteArray> feed(const QByteArray &bytes);
    // The end of the stream: whatever is held back.
    QByteArray flush();
    qsizetype pending() const { return m_carry.size(); }

private:
    int nextCut();

    ChunkingSpec m_spec;
    Random &m_random;
    QByteArray m_carry;
    int m_cut = 0;
};

} // namespace sb::sim
