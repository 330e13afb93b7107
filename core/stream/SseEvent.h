#pragma once

#include <QByteArray>

#include <optional>

namespace sb {

// One Server-Sent Event as the SSE spec defines it, after the parser has joined multi-line data.
struct SseEvent {
    QByteArray event; // the "event:" field; empty means the default "message"
    QByteArray data;  // the "data:" lines joined with '\n'
    QByteArray id;
    std::optional<int> retryMillis;
};

} // namespace sb
