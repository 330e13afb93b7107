#include "net/TlsSession.h"

#include "net/OpenSslErrors.h"
#include "net/ReadAhead.h"

#include <QHostAddress>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <sys/socket.h>

namespace sb {

namespace {

// Before each SSL call, so that SSL_get_error reads only its own errors. OpenSSL 3's
// ERR_clear_error walks all sixteen slots of the thread's queue with two frees each, about 2,100
// instructions even when the queue is empty: three times a request on an HTTPS upstream, 5 % of
// the request. A peek costs a thread-local lookup and finds it empty nearly always.
void clearStaleErrors()
{
    if (ERR_peek_error() != 0)
        ERR_clear_error();
}

// OpenSSL's socket BIO writes with write(2), which raises SIGPIPE on a connection whose peer has
// gone, and OpenSSL writes on its own initiative too (an alert in the middle of a read that met
// the peer's FIN). SIGPIPE's default action ends the process: one vanished client or provider
// would take the proxy down. This BIO is the socket BIO but for its writes, which it sends with
// MSG_NOSIGNAL as TcpStream sends plain bytes, so a broken pipe comes back as EPIPE.
//
// Before it sends, the TlsSession it belongs to may keep the record instead (TlsSession::beforeRecord).
int sendWithoutSignal(BIO *bio, const char *data, int size)
{
    if (auto *owner = static_cast<TlsSession *>(BIO_get_data(bio))) {
        switch (owner->beforeRecord(data, size)) {
        case TlsSession::Record::Kept:
            BIO_clear_retry_flags(bio);
            return size;
        case TlsSession::Record::Wait:
            BIO_clear_retry_flags(bio);
            BIO_set_retry_write(bio);
            return -1;
        case TlsSession::Record::Failed:
            BIO_clear_retry_flags(bio);
            return -1;
        case TlsSession::Record::Send:
            break;
        }
    }
    int descriptor = -1;
    BIO_get_fd(bio, &descriptor);
    errno = 0;
    const ssize_t sent = ::send(descriptor, data, static_cast<std::size_t>(std::max(size, 0)), MSG_NOSIGNAL);
    BIO_clear_retry_flags(bio);
    if (sent <= 0 && BIO_sock_should_retry(static_cast<int>(sent)))
        BIO_set_retry_write(bio);
    return static_cast<int>(sent);
}

// The socket BIO's read, but for bytes already read for the session (TlsSession::received),
// which come first.
int readReceivedFirst(BIO *bio, char *data, int size)
{
    if (auto *owner = static_cast<TlsSession *>(BIO_get_data(bio))) {
        int taken = 0;
        switch (owner->takeReceived(data, size, &taken)) {
        case TlsSession::Received::Taken:
            BIO_clear_retry_flags(bio);
            return taken;
        case TlsSession::Received::WouldBlock:
            BIO_clear_retry_flags(bio);
            BIO_set_retry_read(bio);
            return -1;
        case TlsSession::Received::Failed:
            BIO_clear_retry_flags(bio);
            return -1;
        case TlsSession::Received::ReadSocket:
            break;
        }
    }
    static const auto readSocket = BIO_meth_get_read(BIO_s_socket());
    return readSocket(bio, data, size);
}

BIO_METHOD *socketWithoutSignals()
{
    static BIO_METHOD *const method = [] {
        const BIO_METHOD *socket = BIO_s_socket();
        BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "socket without SIGPIPE");
        if (m) {
            BIO_meth_set_write(m, sendWithoutSignal);
            BIO_meth_set_read(m, readReceivedFirst);
            BIO_meth_set_puts(m, BIO_meth_get_puts(socket));
            BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(socket));
            BIO_meth_set_create(m, BIO_meth_get_create(socket));
            BIO_meth_set_destroy(m, BIO_meth_get_destroy(socket));
        }
        return m; // kept for the life of the process, as OpenSSL's own methods are
    }();
    return method;
}

} // namespace

bool TlsSession::adopt(ssl_ctx_st *context, int descriptor)
{
    clearStaleErrors();
    SSL *ssl = SSL_new(context);
    BIO *socket = socketWithoutSignals() ? BIO_new(socketWithoutSignals()) : nullptr;
    if (!ssl || !socket) {
        m_error = QStringLiteral("OpenSSL could not start a TLS session: %1").arg(takeOpenSslErrors());
        BIO_free(socket);
        SSL_free(ssl);
        return false;
    }
    BIO_set_fd(socket, descriptor, BIO_NOCLOSE); // the descriptor stays the stream's to close
    BIO_set_data(socket, this);                   // the socket BIO itself uses no data pointer
    SSL_set_bio(ssl, socket, socket);
    m_descriptor = descriptor;
    m_ssl = ssl;
    return true;
}

TlsSession::TlsSession(ssl_ctx_st *context, int descriptor, const TlsPeer &peer, ssl_session_st *resume)
{
    if (!adopt(context, descriptor))
        return;
    const QHostAddress literal(QString::fromLatin1(peer.host));
    const bool isAddress = !literal.isNull();
    // SNI names a host, never an address (RFC 6066, section 3).
    if (!isAddress)
        SSL_set_tlsext_host_name(m_ssl, peer.host.constData());
    if (peer.verify) {
        X509_VERIFY_PARAM *param = SSL_get0_param(m_ssl);
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        const int named = isAddress ? X509_VERIFY_PARAM_set1_ip_asc(param, peer.host.constData())
                                    : X509_VERIFY_PARAM_set1_host(param, peer.host.constData(), 0);
        if (named != 1) {
            m_error = QStringLiteral("OpenSSL cannot check a certificate for \"%1\"").arg(QString::fromLatin1(peer.host));
            SSL_free(m_ssl);
            m_ssl = nullptr;
            return;
        }
    }
    if (resume) {
        // A copy of its own: OpenSSL marks the ticket a connection uses unresumable on some
        // failures, and every later connection offered that same object did the full handshake
        // (of a burst's 53 new connections to a TLS 1.3 server, 17-19 in three rounds of four,
        // against the warm-up's 4 in every round with copies; OpenSSL's advice for TLS 1.3 is one
        // resumption per SSL_SESSION object).
        SSL_SESSION *copy = SSL_SESSION_dup(resume);
        SSL_set_session(m_ssl, copy ? copy : resume);
        SSL_SESSION_free(copy);
    }
    SSL_set_connect_state(m_ssl);
}

TlsSession::TlsSession(ssl_ctx_st *context, int descriptor) : m_server(true)
{
    if (adopt(context, descriptor))
        SSL_set_accept_state(m_ssl);
}

TlsSession::~TlsSession()
{
    // The client's side sends no close_notify: the connection is torn down, and a client's notify
    // tells an HTTP server nothing its FIN does not. Marked as shut down all the same, since
    // OpenSSL takes a session freed without it for a bad one and makes it unresumable, the copy
    // kept for the next connection (or in the server's cache) included.
    if (m_ssl && m_handshakeDone)
        SSL_set_shutdown(m_ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_free(m_ssl);
}

void TlsSession::closeNotify()
{
    if (!m_ssl || !m_handshakeDone || (SSL_get_shutdown(m_ssl) & SSL_SENT_SHUTDOWN))
        return;
    clearStaleErrors();
    SSL_shutdown(m_ssl); // one alert into the socket; the peer's answer is not waited for
    clearStaleErrors();
}

TlsSession::Step TlsSession::handshake()
{
    clearStaleErrors();
    const int result = SSL_do_handshake(m_ssl);
    if (result == 1) {
        m_handshakeDone = true;
        return Step::Done;
    }
    return failure(result);
}

bool TlsSession::resumed() const
{
    return m_ssl && SSL_session_reused(m_ssl) == 1;
}

TlsSession::Step TlsSession::write(const char *data, std::size_t size, std::size_t *written)
{
    clearStaleErrors();
    *written = 0;
    if (SSL_write_ex(m_ssl, data, size, written) == 1)
        return Step::Done;
    return failure(0);
}

TlsSession::Step TlsSession::writeForBatch(const char *data, std::size_t size, std::size_t *taken)
{
    // Partial writes are on (a record at a time): every record is kept, so all of it goes.
    m_keepingRecords = true;
    *taken = 0;
    Step step = Step::Done;
    while (*taken < size && step == Step::Done) {
        std::size_t written = 0;
        step = write(data + *taken, size - *taken, &written);
        *taken += written;
    }
    m_keepingRecords = false;
    return step;
}

void TlsSession::recordsSent(std::size_t count)
{
    m_recordsSent = std::min(m_recordsWaiting.size(), m_recordsSent + static_cast<qsizetype>(count));
    if (m_recordsSent == m_recordsWaiting.size()) {
        m_recordsWaiting.clear();
        m_recordsSent = 0;
    }
}

TlsSession::Step TlsSession::sendWaitingRecords()
{
    while (!recordsWaiting().isEmpty()) {
        const QByteArrayView waiting = recordsWaiting();
        const ssize_t sent = ::send(m_descriptor, waiting.data(), static_cast<std::size_t>(waiting.size()), MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return Step::WantWrite;
            m_error = QStringLiteral("sending to the peer failed: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
            return Step::Failed;
        }
        recordsSent(static_cast<std::size_t>(sent));
    }
    return Step::Done;
}

TlsSession::Record TlsSession::beforeRecord(const char *data, int size)
{
    if (m_keepingRecords) {
        m_recordsWaiting.append(data, size);
        return Record::Kept;
    }
    if (recordsWaiting().isEmpty())
        return Record::Send;
    switch (sendWaitingRecords()) {
    case Step::Done:
        return Record::Send;
    case Step::WantWrite:
        errno = EAGAIN;
        return Record::Wait;
    default:
        return Record::Failed;
    }
}

TlsSession::Step TlsSession::read(char *buffer, std::size_t capacity, std::size_t *got)
{
    *got = 0;
    while (*got < capacity) {
        clearStaleErrors();
        std::size_t taken = 0;
        if (SSL_read_ex(m_ssl, buffer + *got, capacity - *got, &taken) == 1) {
            *got += taken;
            // Nothing more read ahead: the socket is asked again only when epoll (level-triggered)
            // says it has bytes, not at once to learn it has none (a recv() a request, EAGAIN).
            if (!hasBufferedInput()) {
                m_socketKnownDrained = false;
                return Step::Done;
            }
            continue;
        }
        m_socketKnownDrained = false;
        const Step step = failure(0);
        if (*got > 0 && step != Step::Failed)
            return Step::Done; // the end, or the wait, is reported by the next call
        return step;
    }
    return Step::Done;
}

bool TlsSession::hasBufferedInput() const
{
    return holdsReceived() || (m_ssl && SSL_has_pending(m_ssl) == 1);
}

void TlsSession::received(const char *data, long result, std::size_t asked)
{
    const ReadAhead::Outcome outcome = ReadAhead::outcome(result, asked);
    if (result > 0) {
        m_received.append(data, static_cast<qsizetype>(result));
        m_receivedDrained = outcome == ReadAhead::Outcome::Drained;
    } else if (outcome == ReadAhead::Outcome::Failed) {
        m_receiveError = static_cast<int>(-result);
    }
}

TlsSession::Received TlsSession::takeReceived(char *data, int size, int *taken)
{
    if (m_receivedTaken < m_received.size()) {
        const qsizetype count = std::min<qsizetype>(size, m_received.size() - m_receivedTaken);
        std::memcpy(data, m_received.constData() + m_receivedTaken, static_cast<std::size_t>(count));
        m_receivedTaken += count;
        *taken = static_cast<int>(count);
        if (m_receivedTaken == m_received.size()) {
            m_received.clear();
            m_receivedTaken = 0;
            m_socketKnownDrained = std::exchange(m_receivedDrained, false);
        }
        return Received::Taken;
    }
    if (m_receiveError != 0) {
        errno = std::exchange(m_receiveError, 0);
        return Received::Failed;
    }
    // Asked again in the same read() for more than was read ahead, which had found the socket
    // empty: it still is, as far as anyone knows, and epoll says when it is not.
    if (std::exchange(m_socketKnownDrained, false))
        return Received::WouldBlock;
    return Received::ReadSocket;
}

ssl_session_st *TlsSession::resumableSession() const
{
    SSL_SESSION *session = m_ssl ? SSL_get1_session(m_ssl) : nullptr;
    if (session && SSL_SESSION_is_resumable(session) != 1) {
        SSL_SESSION_free(session);
        return nullptr;
    }
    return session;
}

TlsSession::Step TlsSession::failure(int result)
{
    const int code = SSL_get_error(m_ssl, result);
    switch (code) {
    case SSL_ERROR_WANT_READ:
        return Step::WantRead;
    case SSL_ERROR_WANT_WRITE:
        return Step::WantWrite;
    case SSL_ERROR_ZERO_RETURN:
        return Step::Closed;
    default:
        break;
    }
    const int savedErrno = errno;
    if (!m_handshakeDone && !m_server) {
        const long verdict = SSL_get_verify_result(m_ssl);
        if (verdict != X509_V_OK) {
            m_error = QStringLiteral("SSL certificate problem: %1").arg(QString::fromLatin1(X509_verify_cert_error_string(verdict)));
            ERR_clear_error();
            return Step::Failed;
        }
    }
    QString detail = takeOpenSslErrors();
    if (detail.isEmpty() && code == SSL_ERROR_SYSCALL)
        detail = savedErrno != 0 ? QString::fromLocal8Bit(std::strerror(savedErrno))
                                 : m_server ? QStringLiteral("the client closed the connection")
                                            : QStringLiteral("the server closed the connection");
    if (detail.isEmpty())
        detail = QStringLiteral("OpenSSL error %1").arg(code);
    if (!m_handshakeDone) {
        m_error = QStringLiteral("the TLS handshake failed: %1").arg(detail);
        return Step::Failed;
    }
    m_error = detail;
    return Step::Failed;
}

} // namespace sb
