#pragma once

#include <cstddef>
#include <vector>

namespace sb {

class SocketBatch;

// Socket writes held to the end of the event-loop turn whose events made them, so that the peers
// they wake are woken once for the turn instead of once for each event.
//
// A worker's turn delivers every socket epoll found ready: at 50 connections, many clients'
// requests and upstreams' answers. Written at once, each request woke the upstream's worker, which
// answered it and went back to sleep before the next came (the proxy spends longer on a request
// than a canned upstream does), and on a VM a wake-up is among the dearest things the kernel does
// for a request. Held to the turn's end, the turn's requests reach the upstream together and its
// answers reach the clients together: the upstream slept less often and spent 6-13 % less CPU a
// request, and the proxy's req/s rose (tests/bench/RESULTS.md, "writes held to the turn's end").
//
// A held write waits for the rest of its turn's events, no longer. The turn's last event writes
// at once, so a lone request (one connection) is never held.
// Writes made outside a turn of a loop that holds them (timers, posted events, other loops, the
// held writes themselves) go out at once.
//
// The turn's held writes leave together, in one system call (SocketBatch): plain bytes as they are,
// an upstream request over TLS as the records it was encrypted into. The rest (answers on the
// proxy's own HTTPS port, or all of them where io_uring is off) are sent one by one after them.
class TurnEndWrites {
public:
    class Writer {
    public:
        // The turn ended: add what was held to `batch` (tagged with `tag`), or return false when it
        // cannot go that way; writeHeld() follows then.
        virtual bool batchHeld(SocketBatch &batch, std::size_t tag) = 0;
        // The batch went: `sent` bytes of what was added left (or -errno). Carries on from there as
        // writeHeld() would, and hears of the rest the same way.
        virtual void heldBatchSent(long sent) = 0;
        // The turn ended: send what was held.
        virtual void writeHeld() = 0;

    protected:
        ~Writer() = default;
    };

    // True when the turn running on this thread takes `writer`'s write to its end (writeHeld()
    // follows); false when it is to be sent now. A writer already held does not ask again: what
    // it writes meanwhile joins what it holds.
    static bool hold(Writer *writer);
    // A held writer going away before the turn's end: it is not called.
    static void forget(Writer *writer);

    // The loop's side. Before each event of a turn: whether another follows it (the last one
    // writes at once).
    void beginEvent(bool moreEventsFollow);
    // After the turn's last event: the held writes go, in the order they were held.
    void endTurn();

private:
    std::vector<Writer *> m_held;
};

} // namespace sb
