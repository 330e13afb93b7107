#pragma once

#include <QByteArray>

#include <functional>
#include <vector>

namespace sb {

// The cache-through tee (a cache that collected a streamed answer before replying turned a
// 280 ms TTFT into 3.8 s). The caller writes every event to the client first and only then hands
// it here, so this branch can never hold the client back; the accumulated answer reaches the sink
// only when the stream completed successfully, and only from a later turn of the event loop, after
// the client's last write has gone to the socket. A tee that is destroyed, abandoned or overflows
// delivers nothing: partial streams and errors are never saved.
class StreamTee {
public:
    struct Result {
        std::vector<QByteArray> events; // the chunk payloads, in order (a streamed answer)
        QByteArray whole;               // a complete non-stream answer
    };
    using Sink = std::function<void(Result &&)>;

    // maxBytes bounds what is accumulated; past it the tee gives up (the answer is still served).
    StreamTee(qint64 maxBytes, Sink sink);

    // Events that have already been written to the client.
    void append(const std::vector<QByteArray> &events);
    // The stream ended with its end marker and the client has had its last byte.
    void completeStream();
    // A non-stream answer that has been sent whole.
    void completeWhole(const QByteArray &json);
    // The answer failed (error, cut, client gone): nothing will be saved.
    void abandon();

    bool isDone() const { return m_done; }
    bool overflowed() const { return m_overflowed; }
    qint64 bytes() const { return m_bytes; }

private:
    void deliverLater(Result &&result);

    qint64 m_maxBytes;
    Sink m_sink;
    std::vector<QByteArray> m_events;
    qint64 m_bytes = 0;
    bool m_overflowed = false;
    bool m_done = false;
};

} // namespace sb
