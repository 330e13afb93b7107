#include "net/ReadAhead.h"

#include "net/SocketBatch.h"

#include <algorithm>
#include <cerrno>

namespace sb {

namespace {

// Slots for one turn: a turn at 50 connections finds some 18 sockets readable; past this many
// the rest read for themselves. Untouched pages of the slots cost no memory.
constexpr std::size_t kSlots = 64;

} // namespace

ReadAhead::ReadAhead()
{
    m_offers.reserve(kSlots);
}

ReadAhead::~ReadAhead() = default;

ReadAhead::Outcome ReadAhead::outcome(long result, std::size_t asked)
{
    if (result > 0)
        return static_cast<std::size_t>(result) < asked ? Outcome::Drained : Outcome::MayHoldMore;
    if (result == 0)
        return Outcome::EndOfStream;
    if (result == -EAGAIN || result == -EWOULDBLOCK)
        return Outcome::Drained;
    return result == -EINTR ? Outcome::Unknown : Outcome::Failed;
}

void ReadAhead::offer(int descriptor, CallbackDispatcher::ReadAheadClient *client)
{
    if (m_offers.size() == kSlots)
        return;
    const std::size_t room = std::min(client->readAheadRoom(), kSlotSize);
    if (room > 0)
        m_offers.push_back({descriptor, client, room});
}

void ReadAhead::run()
{
    if (m_offers.empty())
        return;
    if (m_offers.size() == 1) {
        // One receive is one system call however it is made: the reader makes it.
        ++m_stats.alone;
        m_offers.clear();
        return;
    }
    SocketBatch &batch = SocketBatch::forThisThread();
    if (!batch.available()) {
        m_stats.alone += m_offers.size();
        m_offers.clear();
        return;
    }
    if (!m_slots)
        m_slots = std::make_unique_for_overwrite<char[]>(kSlots * kSlotSize);
    std::size_t added = 0;
    for (std::size_t i = 0; i < m_offers.size(); ++i) {
        if (!batch.addReceive(m_offers[i].descriptor, m_slots.get() + i * kSlotSize, m_offers[i].size, i))
            break; // the ring is full: the rest read for themselves
        ++added;
    }
    // Nothing runs between the offers and here: every client is still there. A reader not in
    // the results (the submission failed) reads for itself.
    for (const SocketBatch::Result &result : batch.run()) {
        const Offer &offer = m_offers[result.tag];
        offer.client->readAheadDone(m_slots.get() + result.tag * kSlotSize, result.bytes, offer.size);
    }
    ++m_stats.batches;
    m_stats.reads += added;
    m_stats.alone += m_offers.size() - added;
    m_offers.clear();
}

} // namespace sb
