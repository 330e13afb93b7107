#include "net/TurnEndWrites.h"

#include "net/SocketBatch.h"

#include <algorithm>
#include <utility>

namespace sb {

namespace {

// The turn that holds writes on this thread now (nullptr: none), and the one that last did, whose
// list a writer leaving early is crossed out of.
thread_local TurnEndWrites *t_holding = nullptr;
thread_local TurnEndWrites *t_lastTurn = nullptr;

} // namespace

bool TurnEndWrites::hold(Writer *writer)
{
    if (!t_holding)
        return false;
    t_holding->m_held.push_back(writer);
    return true;
}

void TurnEndWrites::forget(Writer *writer)
{
    if (!t_lastTurn)
        return;
    std::replace(t_lastTurn->m_held.begin(), t_lastTurn->m_held.end(), writer, static_cast<Writer *>(nullptr));
}

void TurnEndWrites::beginEvent(bool moreEventsFollow)
{
    t_lastTurn = this;
    t_holding = moreEventsFollow ? this : nullptr;
}

void TurnEndWrites::endTurn()
{
    t_holding = nullptr;
    if (m_held.empty())
        return;
    // Nothing runs between adding and sending, so every added writer's bytes are still there when
    // the batch goes; what its results set off may make other writers go (crossed out: skipped).
    SocketBatch &batch = SocketBatch::forThisThread();
    if (batch.available() && m_held.size() > 1) {
        bool added = false;
        for (std::size_t i = 0; i < m_held.size(); ++i)
            added = (m_held[i] && m_held[i]->batchHeld(batch, i)) || added;
        if (added) {
            // A copy: what a result sets off may run a nested loop whose turn uses the batch again.
            const std::vector<SocketBatch::Result> results = batch.run();
            for (const SocketBatch::Result &result : results) {
                if (Writer *writer = std::exchange(m_held[result.tag], nullptr))
                    writer->heldBatchSent(result.bytes);
            }
        }
    }
    // The rest, and all of them when the batch could not be sent, one by one. By index: a held
    // write may make another writer go (crossed out) but holds nothing new.
    for (std::size_t i = 0; i < m_held.size(); ++i) {
        if (Writer *writer = std::exchange(m_held[i], nullptr))
            writer->writeHeld();
    }
    m_held.clear();
}

} // namespace sb
