#include "net/HttpConnection.h"

#include "net/ErrorBody.h"
#include "net/ResponseWriter.h"
#include "net/ServerCounters.h"

#include "net/TcpStream.h"

#include <sys/socket.h>
#include <unistd.h>

#include <exception>

namespace sb {

namespace {

// Bytes taken from the socket per parse round: bounds the work (and the pipelined requests
// queued) per event-loop turn.
constexpr qint64 kReadChunk = 64 * 1024;

} // namespace

void ServerCounters::countResponse(int status)
{
    if (status < 200)
        ++responses1xx;
    else if (status < 300)
        ++responses2xx;
    else if (status < 400)
        ++responses3xx;
    else if (status < 500)
        ++responses4xx;
    else
        ++responses5xx;
}

HttpConnection::HttpConnection(const Clock &clock, qintptr descriptor, quint64 id, int workerIndex,
                               const HttpServerLimits &limits, HttpHandler *handler, ServerCounters &counters,
                               std::shared_ptr<const TlsServerContext> tls, QObject *parent)
    : QObject(parent)
    , m_socket(new TcpStream(static_cast<int>(descriptor), kReadChunk, this))
    , m_id(id)
    , m_workerIndex(workerIndex)
    , m_limits(limits)
    , m_handler(handler)
    , m_counters(counters)
    , m_reader(limits, *this)
    , m_timer(clock, [this] { onTimeout(); })
{
    ++m_counters.connectionsOpen;
    if (tls)
        m_socket->serveTls(std::move(tls));

    m_peer = m_socket->peerAddress();
    // The read buffer is bounded (kReadChunk): when we stop reading (pipelined queue full, error
    // answered), TCP flow control pushes back on the client instead of its upload piling up here.
    // Bytes the client wrote before the worker adopted the socket wake the read watch at once.
    m_socket->setListener(this);
    updateTimer();
}

void HttpConnection::streamClosed()
{
    if (!m_socket->tlsError().isEmpty())
        ++m_counters.tlsHandshakeFailures;
    teardown(true);
}

HttpConnection::~HttpConnection()
{
    if (!m_tornDown) {
        m_tornDown = true;
        --m_counters.connectionsOpen;
        if (auto writer = m_activeWriter.lock())
            writer->connectionClosed();
    }
}

// ---- what the reader reads -------------------------------------------------------------------

void HttpConnection::headStarted()
{
    setPhase(Phase::Headers);
}

void HttpConnection::bodyProgressed()
{
    if (m_phase == Phase::Body)
        m_timer.start(m_limits.bodyTimeout); // the body timeout is a gap between pieces, not a total
    else
        setPhase(Phase::Body);
}

void HttpConnection::requestEnded()
{
    setPhase(Phase::None);
}

// ---- input -------------------------------------------------------------------------------------

void HttpConnection::streamReadable()
{
    if (m_tornDown)
        return;
    if (m_lingering || m_stopParsing) {
        if (m_lingering) {
            // Discard what the client still sends so our close does not turn into a reset that
            // destroys the answer in its receive buffer.
            const QByteArray discarded = m_socket->readAll();
            m_counters.bytesIn += static_cast<std::uint64_t>(discarded.size());
        }
        return;
    }
    pump();
}

void HttpConnection::parseInput()
{
    while (!m_tornDown && !m_stopParsing && static_cast<int>(m_queue.size()) < m_limits.maxPipelinedRequests) {
        if (m_input.isEmpty()) {
            m_input = m_socket->read(kReadChunk);
            if (m_input.isEmpty())
                return;
            m_counters.bytesIn += static_cast<std::uint64_t>(m_input.size());
        }
        if (m_socket->plainTextOnTlsPort()) {
            // Answered in plain HTTP, the only thing this client reads: a handshake error would
            // leave its user with "connection reset" and no hint.
            failParse({400, QStringLiteral("This port speaks HTTPS: use an https:// URL for it."), QStringLiteral("https_required")});
            return;
        }
        qsizetype consumed = 0;
        const HttpRequestReader::Result result = m_reader.read(m_input, &consumed);
        if (result == HttpRequestReader::Result::Failed) {
            failParse(m_reader.failure());
            return;
        }
        if (consumed >= m_input.size())
            m_input.clear();
        else
            m_input.remove(0, consumed);
        if (result == HttpRequestReader::Result::Request) {
            HttpRequest request = m_reader.takeRequest();
            request.peer = m_peer;
            request.connectionId = m_id;
            request.workerIndex = m_workerIndex;
            m_queue.push_back(Pending{std::move(request), 0, QString(), QString()});
        }
    }
}

void HttpConnection::failParse(const HttpRequestReader::Failure &failure)
{
    if (m_stopParsing)
        return;
    ++m_counters.parseErrors;
    if (failure.status == 408)
        ++m_counters.timeouts;
    m_stopParsing = true;
    m_input.clear();
    Pending pending;
    const HttpRequest &partial = m_reader.partial();
    pending.request.method = partial.method;
    pending.request.httpMinor = partial.method.isEmpty() ? 1 : partial.httpMinor;
    pending.request.keepAlive = false;
    pending.errorStatus = failure.status;
    pending.errorMessage = failure.message;
    pending.errorCode = failure.code;
    m_queue.push_back(std::move(pending));
}

// ---- dispatch ----------------------------------------------------------------------------------

void HttpConnection::pump()
{
    // A handler that answers synchronously re-enters here through responseComplete(); the outer
    // call keeps looping instead, so requests are dispatched strictly one after another.
    if (m_pumping) {
        m_pumpAgain = true;
        return;
    }
    m_pumping = true;
    do {
        m_pumpAgain = false;
        while (!m_tornDown && !m_closing && !m_responseActive && !m_queue.empty()) {
            Pending next = std::move(m_queue.front());
            m_queue.erase(m_queue.begin());
            dispatch(std::move(next));
        }
        if (!m_tornDown && !m_closing)
            parseInput();
    } while (!m_tornDown && !m_closing && (m_pumpAgain || (!m_responseActive && !m_queue.empty())));
    m_pumping = false;
    maybeSendContinue();
    updateTimer();
}

void HttpConnection::dispatch(Pending pending)
{
    const quint64 sequence = ++m_nextSequence;
    m_responseActive = true;
    m_activeStarted = false;
    m_activeSequence = sequence;
    m_activeKeepAlive = pending.request.keepAlive && pending.errorStatus == 0;
    const bool head = pending.request.method == "HEAD";
    m_activeHead = head;
    m_activeHttpMinor = pending.request.httpMinor;
    std::shared_ptr<ResponseWriter> writer(new ResponseWriter(this, sequence, head, pending.request.httpMinor));
    m_activeWriter = writer;

    HttpHeaders json;
    json.add("Content-Type", "application/json");
    if (pending.errorStatus != 0) {
        writer->send(pending.errorStatus, json,
                     openAiErrorBody(pending.errorMessage, QStringLiteral("invalid_request_error"), pending.errorCode));
        return;
    }
    ++m_counters.requests;
    if (m_draining) {
        m_activeKeepAlive = false;
        writer->send(503, json,
                     openAiErrorBody(QStringLiteral("The server is shutting down; retry on a new connection."),
                                     QStringLiteral("server_error"), QStringLiteral("server_shutting_down")));
        return;
    }
    if (pending.request.method == "OPTIONS" && pending.request.target == "*") {
        HttpHeaders allow;
        allow.add("Allow", "GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS");
        writer->send(204, allow, QByteArray());
        return;
    }
    try {
        m_handler->handle(pending.request, writer);
    } catch (const std::exception &e) {
        if (!writer->isStarted())
            writer->send(500, json,
                         openAiErrorBody(QStringLiteral("Internal error: %1").arg(QString::fromUtf8(e.what())),
                                         QStringLiteral("server_error"), QStringLiteral("internal_error")));
        else
            teardown(false);
    }
}

void HttpConnection::maybeSendContinue()
{
    // 100 Continue may only go out when no earlier response is being written, or it would land
    // in the middle of that response.
    if (m_reader.wantsContinue() && !m_tornDown && !m_closing && !m_stopParsing && !m_responseActive && m_queue.empty()
        && m_reader.inMessage()) {
        m_reader.continueAnswered();
        m_counters.countResponse(100);
        writeRaw(QByteArrayLiteral("HTTP/1.1 100 Continue\r\n\r\n"));
    }
}

// ---- timers ------------------------------------------------------------------------------------

void HttpConnection::setPhase(Phase phase)
{
    if (phase == m_phase)
        return;
    m_phase = phase;
    switch (phase) {
    case Phase::None:
        m_timer.stop();
        break;
    case Phase::Idle:
        m_timer.start(m_limits.idleTimeout);
        break;
    case Phase::Headers:
        m_timer.start(m_limits.headerTimeout);
        break;
    case Phase::Body:
        m_timer.start(m_limits.bodyTimeout);
        break;
    case Phase::Closing:
        m_timer.start(m_limits.idleTimeout); // a client that never takes the last bytes
        break;
    case Phase::Linger:
        m_timer.start(m_limits.lingerTimeout);
        break;
    }
}

void HttpConnection::updateTimer()
{
    if (m_tornDown || m_closing || m_lingering)
        return;
    if (m_reader.inMessage() && !m_stopParsing)
        return; // the header or body timer of the message being read runs
    // While the handler works on a request there is no connection timeout: the handler has its own.
    setPhase(m_responseActive || !m_queue.empty() ? Phase::None : Phase::Idle);
}

void HttpConnection::onTimeout()
{
    if (m_tornDown)
        return;
    switch (m_phase) {
    case Phase::Idle:
        ++m_counters.idleCloses;
        teardown(false);
        return;
    case Phase::Headers:
    case Phase::Body: {
        const bool headers = m_phase == Phase::Headers;
        m_phase = Phase::None;
        failParse({408,
                   headers ? QStringLiteral("The request headers did not arrive in time.")
                           : QStringLiteral("The request body did not arrive in time."),
                   QStringLiteral("request_timeout")});
        pump();
        return;
    }
    case Phase::Closing:
    case Phase::Linger:
    case Phase::None:
        teardown(false);
        return;
    }
}

// ---- output ------------------------------------------------------------------------------------

void HttpConnection::writeRaw(const QByteArray &bytes)
{
    if (m_tornDown || bytes.isEmpty())
        return;
    // Straight to the kernel (TCP_NODELAY: no Nagle wait); only what it cannot take yet is buffered.
    if (!m_socket->write(bytes)) {
        teardown(true);
        return;
    }
    m_counters.bytesOut += static_cast<std::uint64_t>(bytes.size());
    if (m_socket->bytesToWrite() > m_limits.maxBufferedResponseBytes) {
        ++m_counters.slowClientCloses;
        teardown(false);
        return;
    }
}

bool HttpConnection::writeResponseBytes(quint64 sequence, const QByteArray &bytes)
{
    if (m_tornDown || !m_responseActive || sequence != m_activeSequence)
        return false;
    m_activeStarted = true;
    writeRaw(bytes);
    return !m_tornDown;
}

bool HttpConnection::closesAfterResponse(quint64 sequence, bool needsClose)
{
    if (sequence == m_activeSequence && needsClose)
        m_closeAfterResponse = true;
    return !m_activeKeepAlive || m_closeAfterResponse || m_draining || m_closing;
}

void HttpConnection::responseComplete(quint64 sequence, int status)
{
    if (m_tornDown || !m_responseActive || sequence != m_activeSequence)
        return;
    m_counters.countResponse(status);
    m_responseActive = false;
    m_activeWriter.reset();
    if (!m_activeKeepAlive || m_closeAfterResponse || m_draining) {
        closeGracefully();
        return;
    }
    pump();
}

void HttpConnection::responseAbandoned(quint64 sequence)
{
    if (m_tornDown || !m_responseActive || sequence != m_activeSequence)
        return;
    if (m_activeStarted) {
        // Half a response cannot be completed honestly; closing tells the client it is truncated.
        teardown(false);
        return;
    }
    // A fresh writer under the same sequence answers for the handler that forgot to.
    auto writer = std::shared_ptr<ResponseWriter>(new ResponseWriter(this, sequence, m_activeHead, m_activeHttpMinor));
    m_activeWriter = writer;
    HttpHeaders json;
    json.add("Content-Type", "application/json");
    writer->send(500, json,
                 openAiErrorBody(QStringLiteral("The request handler did not produce a response."),
                                 QStringLiteral("server_error"), QStringLiteral("internal_error")));
}

qint64 HttpConnection::bufferedBytes() const
{
    return m_tornDown ? 0 : m_socket->bytesToWrite();
}

void HttpConnection::resetConnection(quint64 sequence)
{
    if (m_tornDown || !m_responseActive || sequence != m_activeSequence)
        return;
    // SO_LINGER with a zero timeout makes close() send RST and drop unsent bytes, which is what a
    // reset means; a plain close would deliver the buffered bytes and a FIN (a clean end).
    const linger reset{1, 0};
    ::setsockopt(m_socket->descriptor(), SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    ++m_counters.resets;
    teardown(false);
}

void HttpConnection::streamWritten()
{
    if (m_tornDown)
        return;
    if (m_closing && !m_lingering && m_socket->bytesToWrite() == 0) {
        startLinger();
        return;
    }
    if (auto writer = m_activeWriter.lock())
        writer->bytesDrained(m_socket->bytesToWrite());
}

// ---- closing -----------------------------------------------------------------------------------

void HttpConnection::closeGracefully()
{
    if (m_tornDown || m_closing)
        return;
    m_closing = true;
    m_stopParsing = true;
    m_queue.clear();
    m_input.clear();
    if (m_socket->bytesToWrite() == 0)
        startLinger();
    else
        setPhase(Phase::Closing);
}

void HttpConnection::startLinger()
{
    m_lingering = true;
    // Half-close: the client reads our FIN after the answer; whatever it still sends is drained
    // until it closes or the linger time ends.
    m_socket->shutdownWrite();
    setPhase(Phase::Linger);
    const QByteArray discarded = m_socket->readAll();
    m_counters.bytesIn += static_cast<std::uint64_t>(discarded.size());
}

void HttpConnection::startDrain()
{
    if (m_tornDown)
        return;
    m_draining = true;
    if (!m_responseActive)
        closeGracefully();
}

void HttpConnection::abort()
{
    teardown(false);
}

void HttpConnection::teardown(bool clientGone)
{
    if (m_tornDown)
        return;
    m_tornDown = true;
    m_timer.stop();
    m_queue.clear();
    --m_counters.connectionsOpen;
    if (clientGone && m_responseActive)
        ++m_counters.clientAborts;
    m_socket->setListener(nullptr);
    m_socket->abort();
    m_responseActive = false;
    if (auto writer = m_activeWriter.lock())
        writer->connectionClosed();
    m_activeWriter.reset();
    emit closed(this);
    deleteLater();
}

} // namespace sb
