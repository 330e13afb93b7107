#pragma once

#include <QtGlobal>

#include <chrono>

namespace sb {

// Limits of the local HTTP server, one immutable value for all workers.
struct HttpServerLimits {
    // OpenAI's own request limit is in the tens of MiB; 32 MiB leaves room for long contexts with images.
    qint64 maxBodyBytes = 32 * 1024 * 1024;
    // nginx's large_client_header_buffers tops out around 32 KiB; API clients send far less.
    qint64 maxHeaderBytes = 64 * 1024;
    // Node.js's http server default (maxHeadersCount = 2000) is far more than any SDK needs.
    int maxHeaderCount = 100;
    // Slowloris: the whole header block must arrive within this time (nginx client_header_timeout 60 s; shorter here).
    std::chrono::milliseconds headerTimeout{10'000};
    // A keep-alive connection with nothing in flight is closed after this (nginx keepalive_timeout 75 s).
    std::chrono::milliseconds idleTimeout{60'000};
    // Slow upload: the longest gap between two pieces of a request body (nginx client_body_timeout 60 s).
    std::chrono::milliseconds bodyTimeout{30'000};
    // After an answer that closes the connection, unread input is drained this long before the close,
    // so the client reads the answer instead of a reset (nginx lingering_timeout 5 s).
    std::chrono::milliseconds lingerTimeout{2'000};
    // Response bytes buffered for a client that reads slower than the handler writes; past this the
    // connection is closed rather than growing memory without bound.
    qint64 maxBufferedResponseBytes = 8 * 1024 * 1024;
    // Requests a client may pipeline ahead of the one being answered before reading pauses.
    int maxPipelinedRequests = 16;
    // Open connections across all workers; beyond it new ones are closed at once.
    int maxConnections = 10'000;
};

} // namespace sb
