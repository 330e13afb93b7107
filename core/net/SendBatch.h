#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace sb {

// Many sockets' sends handed to the kernel in one system call, through an io_uring of this
// thread's own.
//
// A turn of a worker's loop ends with a dozen or more held writes to different sockets (requests
// to upstreams, answers to clients). On a VM a system call's entry and exit are dear (a microsecond
// for getppid on the machine the benchmarks run on), and the sends were two of a request's four or
// five system calls; batched, the proxy served 12-37 % more requests a second (medians of
// alternating rounds) than the same build sending one by one (tests/bench/RESULTS.md, "sends
// batched in one system call").
//
// Each send is tried once without waiting: what the socket cannot take now comes back as a short
// count or -EAGAIN, and the caller goes on from there as after a short send(2). Where io_uring is
// missing (an older kernel, a container whose seccomp profile refuses it) or turned off with
// SWITCHBOARD_IO_URING=0, available() is false and callers send as before.
class SendBatch {
public:
    // The calling thread's batch, made on first use.
    static SendBatch &forThisThread();

    SendBatch(const SendBatch &) = delete;
    SendBatch &operator=(const SendBatch &) = delete;
    ~SendBatch();

    bool available() const { return m_ring != nullptr; }
    // Whether another send can be added now.
    bool hasRoom() const;

    // Adds a send of `pieces` (kept alive by the caller until run() returns) to `descriptor`,
    // tagged with `tag`. False when there is no room (or no ring): the caller sends it itself.
    bool add(int descriptor, const iovec *pieces, int count, std::size_t tag);

    struct Result {
        std::size_t tag;
        long sent; // bytes taken, or -errno
    };
    // Sends everything added, in one system call, and returns each send's result in the order
    // added. Empty when the submission itself failed: the caller sends every one of them itself.
    const std::vector<Result> &run();

    // What this thread's batches carried: how many went, with how many sends in all.
    struct Stats {
        unsigned long long batches = 0;
        unsigned long long sends = 0;
    };
    const Stats &stats() const { return m_stats; }

private:
    SendBatch();
    struct Ring;

    std::unique_ptr<Ring> m_ring;
    std::vector<Result> m_results;
    std::size_t m_added = 0;
    Stats m_stats;
};

} // namespace sb
