#pragma once

#include <atomic>
#include <cstdint>

namespace sb {

// The live counters behind HttpServer::Stats, shared by the acceptor and every worker thread.
struct ServerCounters {
    std::atomic<std::uint64_t> connectionsAccepted{0};
    std::atomic<std::int64_t> connectionsOpen{0};
    std::atomic<std::uint64_t> connectionsRefused{0};
    std::atomic<std::uint64_t> requests{0};
    std::atomic<std::uint64_t> responses1xx{0};
    std::atomic<std::uint64_t> responses2xx{0};
    std::atomic<std::uint64_t> responses3xx{0};
    std::atomic<std::uint64_t> responses4xx{0};
    std::atomic<std::uint64_t> responses5xx{0};
    std::atomic<std::uint64_t> parseErrors{0};
    std::atomic<std::uint64_t> timeouts{0};
    std::atomic<std::uint64_t> idleCloses{0};
    std::atomic<std::uint64_t> slowClientCloses{0};
    std::atomic<std::uint64_t> clientAborts{0};
    std::atomic<std::uint64_t> tlsHandshakeFailures{0};
    std::atomic<std::uint64_t> resets{0}; // connections the server reset (ResponseWriter::abort)
    std::atomic<std::uint64_t> bytesIn{0};
    std::atomic<std::uint64_t> bytesOut{0};
    std::atomic<std::uint64_t> nextConnectionId{0};

    void countResponse(int status);
};

} // namespace sb
