#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace sb {

// Many sockets' sends (or receives) handed to the kernel in one system call, through an io_uring
// of this thread's own.
//
// A turn of a worker's loop ends with a dozen or more held writes to different sockets (requests
// to upstreams, answers to clients). On a VM a system call's entry and exit are dear (a microsecond
// for getppid on the machine the benchmarks run on), and the sends were two of a request's four or
// five system calls; batched, the proxy served 12-37 % more requests a second (medians of
// alternating rounds) than the same build sending one by one (tests/bench/RESULTS.md, "sends
// batched in one system call").
//
// The receives are the readable sockets of a turn, read before their events are delivered
// (ReadAhead, which says why).
//
// Each send or receive is tried once without waiting: what the socket cannot take (or does not
// hold) now comes back as a short count or -EAGAIN, and the caller goes on from there as after a
// short send(2) or recv(2). Where io_uring is
// missing (an older kernel, a container whose seccomp profile refuses it) or turned off with
// SWITCHBOARD_IO_URING=0, available() is false and callers send as before.
class SocketBatch {
public:
    // The calling thread's batch, made on first use.
    static SocketBatch &forThisThread();

    SocketBatch(const SocketBatch &) = delete;
    SocketBatch &operator=(const SocketBatch &) = delete;
    ~SocketBatch();

    bool available() const { return m_ring != nullptr; }
    // Whether another send or receive can be added now.
    bool hasRoom() const;

    // Adds a send of `pieces` (kept alive by the caller until run() returns) to `descriptor`,
    // tagged with `tag`. False when there is no room (or no ring): the caller sends it itself.
    bool add(int descriptor, const iovec *pieces, int count, std::size_t tag);
    // Adds a receive of up to `size` bytes into `buffer` (kept alive by the caller until run()
    // returns) from `descriptor`, tagged with `tag`. False when there is no room (or no ring).
    bool addReceive(int descriptor, char *buffer, std::size_t size, std::size_t tag);

    struct Result {
        std::size_t tag;
        long bytes; // sent or received (0 from a receive: the end of the stream), or -errno
    };
    // Runs everything added, in one system call, and returns each one's result in the order
    // added. Empty when the submission itself failed: the caller does every one of them itself.
    const std::vector<Result> &run();

    // What this thread's batches carried: how many went, with how many sends and receives in all.
    struct Stats {
        unsigned long long batches = 0;
        unsigned long long sends = 0;
        unsigned long long receives = 0;
    };
    const Stats &stats() const { return m_stats; }

private:
    SocketBatch();
    struct Ring;

    std::unique_ptr<Ring> m_ring;
    std::vector<Result> m_results;
    bool reserve(std::size_t tag); // the next entry's result slot; false when full
    std::size_t m_added = 0;
    std::size_t m_receivesAdded = 0;
    Stats m_stats;
};

} // namespace sb
