#include "net/ResponseWriter.h"

#include "common/ByteAssembly.h"
#include "net/HttpConnection.h"

#include <QDebug>
#include <QThread>

#include <charconv>
#include <cstring>

namespace sb {

namespace {

QByteArrayView reasonPhrase(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 499: return "Client Closed Request";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return status < 300 ? "OK" : status < 400 ? "Redirect" : status < 500 ? "Client Error" : "Server Error";
    }
}

bool isFramingHeader(const QByteArray &name)
{
    const qsizetype size = name.size();
    if (size != 14 && size != 17 && size != 10) // the lengths of the four names below
        return false;
    return name.compare("Content-Length", Qt::CaseInsensitive) == 0
           || name.compare("Transfer-Encoding", Qt::CaseInsensitive) == 0
           || name.compare("Connection", Qt::CaseInsensitive) == 0
           || name.compare("Keep-Alive", Qt::CaseInsensitive) == 0;
}

} // namespace

// A response belongs to its connection's worker thread; touching it from another thread would race
// with the socket. Checked in debug builds, where the tests run.
#define SB_ASSERT_WORKER_THREAD() \
    Q_ASSERT_X(!m_connection || m_connection->thread() == QThread::currentThread(), "sb::ResponseWriter", \
               "used outside its connection's worker thread")

ResponseWriter::ResponseWriter(HttpConnection *connection, quint64 sequence, bool headRequest, int httpMinor)
    : m_connection(connection)
    , m_sequence(sequence)
    , m_headRequest(headRequest)
    , m_httpMinor(httpMinor)
{
}

ResponseWriter::~ResponseWriter()
{
    if ((m_state == State::Pending || m_state == State::Streaming) && m_connection) {
        // Deferred: this destructor may run inside the connection's own call stack.
        QPointer<HttpConnection> connection = m_connection;
        const quint64 sequence = m_sequence;
        QMetaObject::invokeMethod(
            connection.data(),
            [connection, sequence] {
                if (connection)
                    connection->responseAbandoned(sequence);
            },
            Qt::QueuedConnection);
    }
}

QByteArray ResponseWriter::head(int status, const HttpHeaders &headers, QByteArrayView framing, QByteArrayView body)
{
    char statusText[12];
    const char *statusEnd = std::to_chars(statusText, statusText + sizeof statusText, status).ptr;
    ByteAssembly out;
    out << "HTTP/1.1 " << QByteArrayView(statusText, statusEnd) << " " << reasonPhrase(status) << "\r\n";
    for (const auto &[name, value] : headers.fields()) {
        if (!isFramingHeader(name))
            out << name << ": " << value << "\r\n";
    }
    out << framing;
    // A close-delimited stream (HTTP/1.0 client) forces the connection closed after it.
    const bool needsClose = m_state == State::Pending && framing.isEmpty() && !m_headRequest && status != 204
                            && status != 304 && status >= 200;
    if (m_connection && m_connection->closesAfterResponse(m_sequence, needsClose))
        out << "Connection: close\r\n";
    else if (m_httpMinor == 0)
        out << "Connection: keep-alive\r\n";
    out << "\r\n" << body;
    return out.take();
}

void ResponseWriter::push(const QByteArray &bytes)
{
    if (!m_connection)
        return;
    if (m_connection->writeResponseBytes(m_sequence, bytes))
        m_bytesSent += bytes.size();
}

void ResponseWriter::send(int status, const HttpHeaders &headers, const QByteArray &body)
{
    SB_ASSERT_WORKER_THREAD();
    if (m_state != State::Pending) {
        if (m_state != State::Closed)
            qWarning("sb::ResponseWriter::send called on a response already started");
        return;
    }
    auto keepAlive = shared_from_this();
    m_status = status;
    const bool bodyless = status < 200 || status == 204 || status == 304;
    char framing[48] = "Content-Length: ";
    char *framingEnd = framing + std::strlen(framing);
    framingEnd = std::to_chars(framingEnd, framing + sizeof framing - 2, body.size()).ptr;
    *framingEnd++ = '\r';
    *framingEnd++ = '\n';
    const QByteArrayView framingView = bodyless ? QByteArrayView() : QByteArrayView(framing, framingEnd);
    const QByteArray out = head(status, headers, framingView, !bodyless && !m_headRequest ? QByteArrayView(body) : QByteArrayView());
    m_state = State::Streaming; // until complete(): a close in between must still run onClosed
    push(out);
    complete();
}

void ResponseWriter::startStream(int status, const HttpHeaders &headers)
{
    SB_ASSERT_WORKER_THREAD();
    if (m_state != State::Pending) {
        if (m_state != State::Closed)
            qWarning("sb::ResponseWriter::startStream called on a response already started");
        return;
    }
    auto keepAlive = shared_from_this();
    m_status = status;
    // HTTP/1.0 has no chunked encoding: the stream ends when the connection closes.
    m_chunked = m_httpMinor >= 1;
    const QByteArray framing = m_chunked ? QByteArray("Transfer-Encoding: chunked\r\n") : QByteArray();
    const QByteArray out = head(status, headers, framing);
    m_state = State::Streaming;
    push(out);
}

void ResponseWriter::write(const QByteArray &bytes)
{
    SB_ASSERT_WORKER_THREAD();
    if (m_state != State::Streaming || bytes.isEmpty() || m_headRequest)
        return;
    auto keepAlive = shared_from_this();
    if (!m_chunked) {
        push(bytes);
        return;
    }
    QByteArray chunk;
    chunk.reserve(bytes.size() + 16);
    chunk += QByteArray::number(bytes.size(), 16);
    chunk += "\r\n";
    chunk += bytes;
    chunk += "\r\n";
    push(chunk);
}

void ResponseWriter::finish()
{
    SB_ASSERT_WORKER_THREAD();
    if (m_state != State::Streaming)
        return;
    auto keepAlive = shared_from_this();
    if (m_chunked && !m_headRequest)
        push(QByteArrayLiteral("0\r\n\r\n"));
    complete();
}

void ResponseWriter::abort()
{
    SB_ASSERT_WORKER_THREAD();
    if (m_state != State::Pending && m_state != State::Streaming)
        return;
    auto keepAlive = shared_from_this();
    if (m_connection)
        m_connection->resetConnection(m_sequence); // calls connectionClosed() through teardown
    connectionClosed(); // no-op when the connection already did it
}

void ResponseWriter::complete()
{
    if (m_state != State::Streaming)
        return; // the connection closed while writing
    m_state = State::Finished;
    m_closedCallbacks.clear();
    m_drainedCallback = nullptr;
    if (m_connection)
        m_connection->responseComplete(m_sequence, m_status);
}

bool ResponseWriter::isOpen() const
{
    return (m_state == State::Pending || m_state == State::Streaming) && m_connection && m_connection->isOpen();
}

void ResponseWriter::onClosed(std::function<void()> callback)
{
    if (!callback)
        return;
    if (m_state == State::Closed) {
        callback();
        return;
    }
    if (m_state == State::Finished)
        return;
    m_closedCallbacks.push_back(std::move(callback));
}

qint64 ResponseWriter::bufferedBytes() const
{
    return m_connection ? m_connection->bufferedBytes() : 0;
}

void ResponseWriter::onDrained(qint64 lowWatermark, std::function<void()> callback)
{
    m_lowWatermark = lowWatermark;
    m_drainedCallback = std::move(callback);
}

void ResponseWriter::connectionClosed()
{
    if (m_state != State::Pending && m_state != State::Streaming)
        return;
    m_state = State::Closed;
    m_drainedCallback = nullptr;
    // Moved out first: a callback may drop the handler's last reference to this writer.
    auto callbacks = std::move(m_closedCallbacks);
    m_closedCallbacks.clear();
    for (auto &callback : callbacks)
        callback();
}

void ResponseWriter::bytesDrained(qint64 buffered)
{
    if (m_state == State::Streaming && m_drainedCallback && buffered < m_lowWatermark) {
        auto callback = m_drainedCallback; // may replace itself
        callback();
    }
}

} // namespace sb
