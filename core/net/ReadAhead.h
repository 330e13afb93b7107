#pragma once

#include "common/CallbackDispatcher.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace sb {

// The readable sockets of a turn read in one system call, before their events are delivered.
//
// At 50 connections a worker's turn finds some 18 sockets readable (clients' requests, upstreams'
// answers), and each handler read its own with a recv(2): two of the 2.6 system calls a proxied
// request made. On a VM a call's entry and exit are dear (1.1 us for getppid on the machine the
// benchmarks run on); 18 loopback TCP sockets cost 1.4 us a socket read through one io_uring
// submission (SocketBatch) against 3.2 us one by one (bench_receive_batch), and the proxy made
// 0.65 calls a request and served 1.15x the requests a second of the same build with this off
// (tests/bench/RESULTS.md, "reads ahead").
//
// The loop offers each readable watch's reader (CallbackDispatcher::ReadAheadClient) a read of up
// to a slot's bytes; with two or more offers it reads them all at once and hands each reader its
// bytes, which it keeps until its event; the event then finds them, and a short read tells it
// that the kernel had no more. With one offer the reader reads for itself, as before: one call
// either way. Where io_uring is missing or turned off, nothing is read ahead.
class ReadAhead {
public:
    ReadAhead();
    ~ReadAhead();
    ReadAhead(const ReadAhead &) = delete;
    ReadAhead &operator=(const ReadAhead &) = delete;

    // Offers `client` a read of `descriptor` in this turn's batch, if it wants one and a slot is free.
    void offer(int descriptor, CallbackDispatcher::ReadAheadClient *client);
    // Reads what was offered (two or more) and tells each reader what it got; the offers are gone after.
    void run();

    // What this loop's reads ahead did: batches, sockets read, and offers left to their readers.
    struct Stats {
        unsigned long long batches = 0;
        unsigned long long reads = 0;
        unsigned long long alone = 0;
    };
    const Stats &stats() const { return m_stats; }

    // The most bytes one read ahead takes: a small request or answer arrives whole in one, and a
    // larger one is read on by its reader.
    static constexpr std::size_t kSlotSize = 16 * 1024;

    // What a reader learns of its socket from a read ahead (`result` bytes of `asked`, 0 at the
    // end, or -errno), beside its bytes: the kernel held no more (a short read, or nothing), it may
    // hold more (the read filled), the stream ended, the socket failed, or nothing (interrupted:
    // the reader reads for itself).
    enum class Outcome { Unknown, Drained, MayHoldMore, EndOfStream, Failed };
    static Outcome outcome(long result, std::size_t asked);

private:
    struct Offer {
        int descriptor;
        CallbackDispatcher::ReadAheadClient *client;
        std::size_t size;
    };
    std::vector<Offer> m_offers;
    std::unique_ptr<char[]> m_slots; // made at the first batch
    Stats m_stats;
};

} // namespace sb
