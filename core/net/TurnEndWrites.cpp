#include "net/TurnEndWrites.h"

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
    // By index: a held write may make another writer go (crossed out) but holds nothing new.
    for (std::size_t i = 0; i < m_held.size(); ++i) {
        if (Writer *writer = std::exchange(m_held[i], nullptr))
            writer->writeHeld();
    }
    m_held.clear();
}

} // namespace sb
