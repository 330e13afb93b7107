#pragma once

#include <chrono>

namespace sb {

// How long a worker's loop keeps polling its sockets before it goes to sleep in epoll_wait: an
// adaptive window after the kernel's own guest halt-polling (cpuidle-haltpoll: doubled and halved
// the same way; its longest is 200 µs).
//
// On a VM whose idle vCPU halts, a thread that sleeps is woken through the hypervisor (a VM exit
// and an interrupt), twice a request at one connection (the client's bytes, the upstream's
// answer); polling through those two gaps took about 16 µs off a request's p50 on the machine the
// benchmarks run on (tests/bench/RESULTS.md, "workers poll before they sleep"). A loop whose next
// event comes a few microseconds after it ran out of work loses less by polling for it than by
// sleeping; one whose next event is milliseconds away (a real provider's answer, an idle console)
// must not burn a CPU waiting. So the window follows what the waits turned out to be: a wait that
// had to sleep but whose event came within kLongest, right after another short wait, doubles the
// window (a longer poll would have caught it); a wait longer than kLongest halves it, down to
// nothing; a wait the poll caught leaves it as it is. An idle loop polls for a few waits after its last busy moment and then not at all.
//
// One short wait is not enough to open the window: at a modest rate each request brings a short
// wait (its upstream's answer from a fast server) and a long one (the next client), and a window
// opened by the first would only be spent, in vain, on the second.
class IdlePollWindow {
public:
    using Duration = std::chrono::microseconds;
    static constexpr Duration kFirst{10};   // the window a first short wait opens
    static constexpr Duration kLongest{100}; // the longest poll; a wait beyond it is not short

    // How long the next wait polls before it sleeps (zero: it sleeps at once).
    Duration window() const { return m_window; }

    // A wait's poll caught its event.
    void caught();
    // A wait slept: `idle` is how long the loop waited in all (polling, then sleeping), and
    // `byEvent` whether a socket or a wake-up ended it rather than its timeout (a timer's own
    // deadline).
    void slept(Duration idle, bool byEvent);

private:
    Duration m_window{0};
    bool m_lastWaitShort = false;
};

} // namespace sb
