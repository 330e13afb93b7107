#include "net/HttpConnection.h"

#include "net/ErrorBody.h"
#include "net/HttpSyntax.h"
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

bool isSupportedMethod(uint8_t method)
{
    switch (method) {
    case HTTP_GET:
    case HTTP_HEAD:
    case HTTP_POST:
    case HTTP_PUT:
    case HTTP_DELETE:
    case HTTP_PATCH:
    case HTTP_OPTIONS:
        return true;
    default:
        return false;
    }
}

// The method's name; the usual ones are static arrays a request shares instead of allocating.
QByteArray methodName(uint8_t method)
{
    switch (method) {
    case HTTP_GET: return QByteArrayLiteral("GET");
    case HTTP_POST: return QByteArrayLiteral("POST");
    case HTTP_OPTIONS: return QByteArrayLiteral("OPTIONS");
    default: return llhttp_method_name(static_cast<llhttp_method_t>(method));
    }
}

HttpConnection *self(llhttp_t *parser)
{
    return static_cast<HttpConnection *>(parser->data);
}

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

const llhttp_settings_t &HttpConnection::parserSettings()
{
    static const llhttp_settings_t settings = [] {
        llhttp_settings_t s;
        llhttp_settings_init(&s);
        s.on_message_begin = &HttpConnection::onMessageBegin;
        s.on_url = &HttpConnection::onUrl;
        s.on_header_field = &HttpConnection::onHeaderField;
        s.on_header_field_complete = &HttpConnection::onHeaderFieldComplete;
        s.on_header_value = &HttpConnection::onHeaderValue;
        s.on_header_value_complete = &HttpConnection::onHeaderValueComplete;
        s.on_headers_complete = &HttpConnection::onHeadersComplete;
        s.on_body = &HttpConnection::onBody;
        s.on_message_complete = &HttpConnection::onMessageComplete;
        return s;
    }();
    return settings;
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
    , m_timer(clock, [this] { onTimeout(); })
{
    llhttp_init(&m_parser, HTTP_REQUEST, &parserSettings());
    m_parser.data = this;
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

// ---- llhttp callbacks ------------------------------------------------------------------------

int HttpConnection::onMessageBegin(llhttp_t *parser)
{
    HttpConnection *c = self(parser);
    c->m_current.clearMessage();
    c->m_current.peer = c->m_peer;
    c->m_current.connectionId = c->m_id;
    c->m_current.workerIndex = c->m_workerIndex;
    c->m_head.restart();
    c->m_headerBytes = 0;
    c->m_headerCount = 0;
    c->m_inMessage = true;
    c->m_headersDone = false;
    c->m_continuePending = false;
    c->setPhase(Phase::Headers);
    return HPE_OK;
}

int HttpConnection::fail(int status, const QString &message, const QString &code)
{
    if (!m_failure)
        m_failure = ParseFailure{status, message, code};
    return HPE_USER;
}

bool HttpConnection::addHeaderBytes(qint64 bytes)
{
    m_headerBytes += bytes;
    return m_headerBytes <= m_limits.maxHeaderBytes;
}

int HttpConnection::onUrl(llhttp_t *parser, const char *at, size_t length)
{
    HttpConnection *c = self(parser);
    c->m_head.appendTarget(at, length);
    if (!c->addHeaderBytes(static_cast<qint64>(length)))
        return c->fail(414, QStringLiteral("The request URL is longer than the server accepts (%1 bytes).")
                                .arg(c->m_limits.maxHeaderBytes),
                       QStringLiteral("uri_too_long"));
    return HPE_OK;
}

int HttpConnection::onHeaderField(llhttp_t *parser, const char *at, size_t length)
{
    HttpConnection *c = self(parser);
    c->m_head.appendName(at, length);
    if (!c->addHeaderBytes(static_cast<qint64>(length)))
        return c->fail(431, QStringLiteral("The request headers are larger than the server accepts (%1 bytes).")
                                .arg(c->m_limits.maxHeaderBytes),
                       QStringLiteral("request_header_fields_too_large"));
    return HPE_OK;
}

int HttpConnection::onHeaderFieldComplete(llhttp_t *parser)
{
    HttpConnection *c = self(parser);
    if (!c->m_head.nameRepeats(c->m_current.headers.size()) && !isHttpToken(c->m_head.name()))
        return c->fail(400, QStringLiteral("A request header name is not a valid token."),
                       QStringLiteral("invalid_header"));
    if (++c->m_headerCount > c->m_limits.maxHeaderCount)
        return c->fail(431, QStringLiteral("The request has more header fields than the server accepts (%1).")
                                .arg(c->m_limits.maxHeaderCount),
                       QStringLiteral("request_header_fields_too_large"));
    // ": " and CRLF count toward the header block too.
    if (!c->addHeaderBytes(4))
        return c->fail(431, QStringLiteral("The request headers are larger than the server accepts (%1 bytes).")
                                .arg(c->m_limits.maxHeaderBytes),
                       QStringLiteral("request_header_fields_too_large"));
    return HPE_OK;
}

int HttpConnection::onHeaderValue(llhttp_t *parser, const char *at, size_t length)
{
    HttpConnection *c = self(parser);
    c->m_head.appendValue(at, length);
    if (!c->addHeaderBytes(static_cast<qint64>(length)))
        return c->fail(431, QStringLiteral("The request headers are larger than the server accepts (%1 bytes).")
                                .arg(c->m_limits.maxHeaderBytes),
                       QStringLiteral("request_header_fields_too_large"));
    return HPE_OK;
}

int HttpConnection::onHeaderValueComplete(llhttp_t *parser)
{
    HttpConnection *c = self(parser);
    c->m_head.addTo(c->m_current.headers);
    return HPE_OK;
}

int HttpConnection::onHeadersComplete(llhttp_t *parser)
{
    return self(parser)->headersComplete() == HPE_OK ? 0 : -1;
}

int HttpConnection::headersComplete()
{
    m_headersDone = true;
    m_head.remember(m_current.headers);
    m_current.target = m_head.takeTarget();
    const uint8_t method = llhttp_get_method(&m_parser);
    m_current.method = methodName(method);
    m_current.httpMinor = llhttp_get_http_minor(&m_parser);
    const qsizetype question = m_current.target.indexOf('?');
    m_current.path = question < 0 ? m_current.target : m_current.target.left(question);
    m_current.query = question < 0 ? QByteArray() : m_current.target.mid(question + 1);

    if (llhttp_get_http_major(&m_parser) != 1)
        return fail(505, QStringLiteral("Only HTTP/1.0 and HTTP/1.1 are supported."),
                    QStringLiteral("http_version_not_supported"));
    // RFC 9112 3.2: an HTTP/1.1 request without Host, with more than one, or with one that is no
    // host is a 400. A request that names no host is one a client got wrong, or one written by hand
    // to find what a server accepts; answering it anyway hides the first and helps the second.
    int hostFields = 0;
    QByteArray host;
    for (const auto &[name, value] : m_current.headers.fields())
        if (sameFieldName(name, "Host")) {
            ++hostFields;
            host = value;
        }
    if (hostFields == 0 && m_current.httpMinor >= 1)
        return fail(400, QStringLiteral("An HTTP/1.1 request must have a Host header (RFC 9112, section 3.2)."),
                    QStringLiteral("missing_host"));
    if (hostFields > 1)
        return fail(400, QStringLiteral("The request has more than one Host header; send exactly one."),
                    QStringLiteral("invalid_host"));
    if (hostFields == 1 && !isValidHostValue(host))
        return fail(400, QStringLiteral("The Host header is not a host name or address with an optional port."),
                    QStringLiteral("invalid_host"));
    if (!isSupportedMethod(method))
        return fail(501, QStringLiteral("The method %1 is not supported by this server.")
                             .arg(QString::fromLatin1(m_current.method)),
                    QStringLiteral("method_not_supported"));
    if ((m_parser.flags & F_CONTENT_LENGTH) && m_parser.content_length > static_cast<uint64_t>(m_limits.maxBodyBytes))
        return fail(413, QStringLiteral("The request body is larger than the server accepts (%1 bytes).")
                             .arg(m_limits.maxBodyBytes),
                    QStringLiteral("request_too_large"));

    const bool hasBody = (m_parser.flags & F_CHUNKED) || m_parser.content_length > 0;
    const QByteArray expect = m_current.headers.value("Expect");
    if (!expect.isEmpty()) {
        if (!sameFieldName(expect, "100-continue"))
            return fail(417, QStringLiteral("Only the expectation 100-continue is supported."),
                        QStringLiteral("expectation_failed"));
        if (hasBody && m_current.httpMinor >= 1)
            m_continuePending = true; // sent once no earlier response is being written
    }
    setPhase(hasBody ? Phase::Body : Phase::None);
    return HPE_OK;
}

int HttpConnection::onBody(llhttp_t *parser, const char *at, size_t length)
{
    HttpConnection *c = self(parser);
    // Chunked bodies have no declared length: the limit is checked as they arrive.
    if (c->m_current.body.size() + static_cast<qint64>(length) > c->m_limits.maxBodyBytes)
        return c->fail(413, QStringLiteral("The request body is larger than the server accepts (%1 bytes).")
                                .arg(c->m_limits.maxBodyBytes),
                       QStringLiteral("request_too_large"));
    c->m_current.body.append(at, static_cast<qsizetype>(length));
    c->m_timer.start(c->m_limits.bodyTimeout); // the body timeout is a gap between pieces, not a total
    return HPE_OK;
}

int HttpConnection::onMessageComplete(llhttp_t *parser)
{
    HttpConnection *c = self(parser);
    c->m_current.keepAlive = llhttp_should_keep_alive(parser) != 0;
    c->m_queue.push_back(Pending{std::move(c->m_current), 0, QString(), QString()});
    c->m_current.clearMessage();
    c->m_inMessage = false;
    c->m_continuePending = false;
    c->setPhase(Phase::None);
    // Stop after each message, so the caller knows exactly which bytes belong to it and can stop
    // reading when enough pipelined requests wait.
    return HPE_PAUSED;
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
        const char *begin = m_input.constData();
        const llhttp_errno_t error = llhttp_execute(&m_parser, begin, static_cast<size_t>(m_input.size()));
        if (error == HPE_OK) {
            m_input.clear();
            continue;
        }
        if (error == HPE_PAUSED || error == HPE_PAUSED_UPGRADE) {
            const qsizetype consumed = llhttp_get_error_pos(&m_parser) - begin;
            m_input.remove(0, consumed);
            if (error == HPE_PAUSED)
                llhttp_resume(&m_parser);
            else
                llhttp_reset(&m_parser); // an Upgrade we do not perform: the request was answered as plain HTTP
            continue;
        }
        if (m_failure) {
            failParse(*m_failure);
        } else if (error == HPE_PAUSED_H2_UPGRADE) {
            failParse({505, QStringLiteral("HTTP/2 is not supported; use HTTP/1.1."),
                       QStringLiteral("http_version_not_supported")});
        } else if (error == HPE_INVALID_METHOD) {
            failParse({400, QStringLiteral("The request method is not valid HTTP."), QStringLiteral("invalid_method")});
        } else {
            failParse({400,
                       QStringLiteral("The request is not valid HTTP/1.1 (%1).")
                           .arg(QString::fromLatin1(llhttp_get_error_reason(&m_parser))),
                       QStringLiteral("bad_request")});
        }
        return;
    }
}

void HttpConnection::failParse(const ParseFailure &failure)
{
    if (m_stopParsing)
        return;
    ++m_counters.parseErrors;
    if (failure.status == 408)
        ++m_counters.timeouts;
    m_stopParsing = true;
    m_inMessage = false;
    m_continuePending = false;
    m_input.clear();
    Pending pending;
    pending.request.method = m_current.method;
    pending.request.httpMinor = m_current.method.isEmpty() ? 1 : m_current.httpMinor;
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
    if (m_continuePending && !m_tornDown && !m_closing && !m_stopParsing && !m_responseActive && m_queue.empty()
        && m_inMessage) {
        m_continuePending = false;
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
    if (m_inMessage && !m_stopParsing)
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
