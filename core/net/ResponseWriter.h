#pragma once

#include "common/HttpHeaders.h"
#include "net/ClientResponse.h"

#include <QByteArray>
#include <QPointer>

#include <functional>
#include <memory>
#include <vector>

namespace sb {

class HttpConnection;

// The answer to one request. Created by the connection; the handler may keep the shared_ptr and
// answer later, but only ever on the connection's worker thread. Either send() once, or
// startStream(), any number of write()s and finish().
class ResponseWriter final : public ClientResponse, public std::enable_shared_from_this<ResponseWriter> {
public:
    ~ResponseWriter() override;
    ResponseWriter(const ResponseWriter &) = delete;
    ResponseWriter &operator=(const ResponseWriter &) = delete;

    // A complete response; Content-Length is set here (Content-Length, Transfer-Encoding and
    // Connection given by the handler are ignored: the server owns the framing).
    void send(int status, const HttpHeaders &headers, const QByteArray &body) override;
    // Starts a streamed response (chunked transfer encoding; close-delimited for HTTP/1.0 clients).
    void startStream(int status, const HttpHeaders &headers) override;
    // One piece of the stream, handed to the socket at once (TCP_NODELAY is set on every connection).
    void write(const QByteArray &bytes) override;
    void finish() override;
    // Resets the connection (TCP RST) instead of closing it cleanly: the client sees a broken
    // connection, not a truncated answer it might take for a complete one. For "reset" faults (the
    // simulator) and for a handler that must not let a half-written answer look finished. The
    // onClosed callbacks run; the response is closed afterwards (isOpen() is false).
    void abort();

    // False once the client went away, the connection was cut (slow reader, shutdown deadline) or
    // the response is complete.
    bool isOpen() const override;
    bool isStarted() const { return m_state != State::Pending; }
    bool isFinished() const { return m_state == State::Finished; }
    // Called once if the connection closes before finish(): the handler cancels its upstream work.
    // Registered after the close, it runs at once.
    void onClosed(std::function<void()> callback) override;
    // Bytes of this response handed to the socket (status line, headers and chunk framing included).
    qint64 bytesSent() const { return m_bytesSent; }
    // Bytes of this connection written but not yet taken by the client. A streaming handler pauses
    // its upstream when this grows; past HttpServerLimits::maxBufferedResponseBytes the connection is cut.
    qint64 bufferedBytes() const override;
    // Called whenever the client has taken bytes and fewer than `lowWatermark` remain buffered.
    void onDrained(qint64 lowWatermark, std::function<void()> callback) override;

    int status() const { return m_status; }

private:
    friend class HttpConnection;
    enum class State { Pending, Streaming, Finished, Closed };

    ResponseWriter(HttpConnection *connection, quint64 sequence, bool headRequest, int httpMinor);
    // The status line and headers, and `body` after them in the same allocation.
    QByteArray head(int status, const HttpHeaders &headers, QByteArrayView framing, QByteArrayView body = {});
    void push(const QByteArray &bytes);
    void complete();
    // From the connection: the client went away or the connection was cut.
    void connectionClosed();
    void bytesDrained(qint64 buffered);

    QPointer<HttpConnection> m_connection;
    quint64 m_sequence;
    bool m_headRequest;
    int m_httpMinor;
    bool m_chunked = false;
    State m_state = State::Pending;
    int m_status = 0;
    qint64 m_bytesSent = 0;
    std::vector<std::function<void()>> m_closedCallbacks;
    std::function<void()> m_drainedCallback;
    qint64 m_lowWatermark = 0;
};

} // namespace sb
