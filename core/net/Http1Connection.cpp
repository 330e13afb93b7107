#include "net/Http1Connection.h"

#include "net/SocketBatch.h"

#include <QObject>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

namespace sb {

namespace {

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

void setOption(int descriptor, int level, int name, int value)
{
    ::setsockopt(descriptor, level, name, &value, sizeof value);
}

} // namespace

Http1Connection::Http1Connection(Owner &owner, QByteArray endpoint)
    : m_owner(owner), m_endpoint(std::move(endpoint))
{
}

Http1Connection::~Http1Connection()
{
    close();
}

bool Http1Connection::open(const SocketAddress &address, QString *error)
{
    close();
    const int family = reinterpret_cast<const sockaddr &>(address.storage).sa_family;
    m_descriptor = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m_descriptor < 0) {
        *error = QStringLiteral("Failed to connect to %1: %2").arg(address.text, errnoText(errno));
        return false;
    }
    // Streamed tokens must leave at once; keep-alive probes find a peer that vanished mid-stream
    // behind a NAT (the same settings the libcurl path uses).
    setOption(m_descriptor, IPPROTO_TCP, TCP_NODELAY, 1);
    setOption(m_descriptor, SOL_SOCKET, SO_KEEPALIVE, 1);
    setOption(m_descriptor, IPPROTO_TCP, TCP_KEEPIDLE, 30);
    setOption(m_descriptor, IPPROTO_TCP, TCP_KEEPINTVL, 15);
    if (::connect(m_descriptor, reinterpret_cast<const sockaddr *>(&address.storage), address.length) != 0 &&
        errno != EINPROGRESS) {
        *error = QStringLiteral("Failed to connect to %1: %2").arg(address.text, errnoText(errno));
        close();
        return false;
    }
    // Even a connect that finished at once (loopback) reports through the write watch, so the
    // caller has one path.
    m_connecting = true;
    m_read = std::make_unique<SocketWatch>(m_descriptor, SocketWatch::Direction::Read, [this] { m_owner.connectionReadable(*this); });
    m_read->setReadAhead(this);
    m_write = std::make_unique<SocketWatch>(m_descriptor, SocketWatch::Direction::Write, [this] { m_owner.connectionWritable(*this); });
    m_write->setEnabled(true);
    return true;
}

QString Http1Connection::finishConnect()
{
    int socketError = 0;
    socklen_t length = sizeof socketError;
    if (::getsockopt(m_descriptor, SOL_SOCKET, SO_ERROR, &socketError, &length) != 0)
        socketError = errno;
    if (socketError != 0)
        return errnoText(socketError);
    m_connecting = false;
    watchWritable(false);
    m_read->setEnabled(true);
    return {};
}

bool Http1Connection::startTls(ssl_ctx_st *context, const TlsPeer &peer, ssl_session_st *resume, QString *error)
{
    m_tls = std::make_unique<TlsSession>(context, m_descriptor, peer, resume);
    if (m_tls->isValid())
        return true;
    *error = m_tls->error();
    return false;
}

Http1Connection::Handshake Http1Connection::handshake(QString *error)
{
    switch (m_tls->handshake()) {
    case TlsSession::Step::Done:
        watchWritable(false);
        m_read->setEnabled(true);
        return Handshake::Done;
    case TlsSession::Step::WantRead:
        watchWritable(false);
        m_read->setEnabled(true);
        return Handshake::Pending;
    case TlsSession::Step::WantWrite:
        m_read->setEnabled(false);
        watchWritable(true);
        return Handshake::Pending;
    case TlsSession::Step::Closed:
        *error = QStringLiteral("the TLS handshake failed: the server closed the connection");
        return Handshake::Failed;
    case TlsSession::Step::Failed:
        break;
    }
    *error = m_tls->error();
    return Handshake::Failed;
}

bool Http1Connection::send(QByteArray head, QByteArray body, QString *error)
{
    if (m_tls && !body.isEmpty()) {
        // One TLS record (and one segment) for a small request, as the two pieces are one sendmsg
        // over plain TCP; the copy costs less than the second record's encryption and system call.
        head.append(body);
        body.clear();
    }
    m_output[0] = std::move(head);
    m_output[1] = std::move(body);
    m_pieces = m_output[1].isEmpty() ? 1 : 2;
    m_outputSent = 0;
    ++requestsSent;
    if (TurnEndWrites::hold(this)) {
        m_writeHeld = true;
        return true;
    }
    return flush(error);
}

bool Http1Connection::batchHeld(SocketBatch &batch, std::size_t tag)
{
    if (m_pieces == 0 || !isOpen())
        return false;
    if (m_tls) {
        // Encrypted now, and its records sent with the batch (send() left one piece). Not behind
        // records a socket did not take (the writable path sends those), nor without room.
        if (!m_tls->recordsWaiting().isEmpty() || !batch.hasRoom())
            return false;
        std::size_t taken = 0;
        const TlsSession::Step step = m_tls->writeForBatch(m_output[0].constData() + m_outputSent,
                                                          std::size_t(m_output[0].size() - m_outputSent), &taken);
        consumeSent(qsizetype(taken));
        if (step != TlsSession::Step::Done)
            return false; // broken: writeHeld() meets it again and the owner hears why
        const QByteArrayView records = m_tls->recordsWaiting();
        const iovec piece{const_cast<char *>(records.data()), static_cast<std::size_t>(records.size())};
        return batch.add(m_descriptor, &piece, 1, tag);
    }
    iovec pieces[2];
    return batch.add(m_descriptor, pieces, waitingPieces(pieces), tag);
}

void Http1Connection::heldBatchSent(long sent)
{
    m_writeHeld = false;
    if (sent > 0 && m_tls)
        m_tls->recordsSent(std::size_t(sent));
    else if (sent > 0)
        consumeSent(sent);
    // The owner carries on as for a writable socket: nothing left, or the rest sent (or found
    // broken) by its flush.
    if (isOpen())
        m_owner.connectionWritable(*this);
}

void Http1Connection::writeHeld()
{
    m_writeHeld = false;
    // The owner flushes, and hears why when the connection broke, as for a writable socket.
    if ((m_pieces > 0 || (m_tls && !m_tls->recordsWaiting().isEmpty())) && isOpen())
        m_owner.connectionWritable(*this);
}

bool Http1Connection::flush(QString *error)
{
    if (m_tls)
        return flushTls(error);
    while (m_pieces > 0) {
        iovec pieces[2];
        msghdr message{};
        message.msg_iov = pieces;
        message.msg_iovlen = static_cast<std::size_t>(waitingPieces(pieces));
        const ssize_t sent = ::sendmsg(m_descriptor, &message, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                watchWritable(true);
                return true;
            }
            *error = errnoText(errno);
            return false;
        }
        consumeSent(sent);
    }
    watchWritable(false);
    return true;
}

int Http1Connection::waitingPieces(iovec pieces[2]) const
{
    for (int i = 0; i < m_pieces; ++i) {
        const qsizetype skip = i == 0 ? m_outputSent : 0;
        pieces[i].iov_base = const_cast<char *>(m_output[i].constData() + skip);
        pieces[i].iov_len = static_cast<std::size_t>(m_output[i].size() - skip);
    }
    return m_pieces;
}

void Http1Connection::consumeSent(qsizetype sent)
{
    while (sent > 0 && m_pieces > 0) {
        const qsizetype rest = m_output[0].size() - m_outputSent;
        if (sent < rest) {
            m_outputSent += sent;
            return;
        }
        sent -= rest;
        m_output[0] = std::exchange(m_output[1], QByteArray());
        m_outputSent = 0;
        --m_pieces;
    }
}

bool Http1Connection::flushTls(QString *error)
{
    // First the records a batch's send left; then what is still to encrypt (send() left one
    // piece: the head with the body appended).
    switch (m_tls->sendWaitingRecords()) {
    case TlsSession::Step::Done:
        break;
    case TlsSession::Step::WantWrite:
        watchWritable(true);
        return true;
    default:
        *error = m_tls->error();
        return false;
    }
    while (m_pieces > 0) {
        std::size_t written = 0;
        const auto step = m_tls->write(m_output[0].constData() + m_outputSent,
                                       static_cast<std::size_t>(m_output[0].size() - m_outputSent), &written);
        if (step == TlsSession::Step::WantWrite) {
            watchWritable(true);
            return true;
        }
        if (step != TlsSession::Step::Done) {
            *error = step == TlsSession::Step::Closed ? QStringLiteral("the server closed the connection") : m_tls->error();
            return false;
        }
        m_outputSent += static_cast<qsizetype>(written);
        if (m_outputSent == m_output[0].size()) {
            m_output[0].clear();
            m_outputSent = 0;
            m_pieces = 0;
        }
    }
    watchWritable(false);
    return true;
}

Http1Connection::Receive Http1Connection::receive(char *buffer, std::size_t capacity, std::size_t *size,
                                                  QString *error)
{
    if (m_readAheadOutcome != ReadAhead::Outcome::Unknown)
        return takeReadAhead(buffer, capacity, size, error);
    if (m_tls) {
        switch (m_tls->read(buffer, capacity, size)) {
        case TlsSession::Step::Done:
            return Receive::Data;
        case TlsSession::Step::WantRead:
            return Receive::WouldBlock;
        case TlsSession::Step::Closed:
            return Receive::EndOfStream;
        case TlsSession::Step::WantWrite: // renegotiation is refused: cannot happen
        case TlsSession::Step::Failed:
            break;
        }
        *error = m_tls->error();
        return Receive::Failed;
    }
    for (;;) {
        const ssize_t got = ::recv(m_descriptor, buffer, capacity, 0);
        if (got > 0) {
            *size = static_cast<std::size_t>(got);
            return Receive::Data;
        }
        if (got == 0)
            return Receive::EndOfStream;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return Receive::WouldBlock;
        *error = errnoText(errno);
        return Receive::Failed;
    }
}

std::size_t Http1Connection::readAheadRoom() const
{
    // An idle connection's readable event is the server closing it (or TLS's own housekeeping),
    // one still connecting or shaking hands reads for itself, and what was read before is taken
    // first.
    if (isConnecting() || transferId == 0 || m_readAheadOutcome != ReadAhead::Outcome::Unknown
        || (m_tls && m_tls->holdsReceived()))
        return 0;
    return std::numeric_limits<std::size_t>::max(); // as much as the loop reads at once
}

void Http1Connection::readAheadDone(const char *data, long result, std::size_t asked)
{
    if (m_tls) {
        m_tls->received(data, result, asked); // records, which OpenSSL takes before the socket
        return;
    }
    if (result > 0)
        m_readAheadBytes = QByteArray(data, static_cast<qsizetype>(result));
    m_readAheadOutcome = ReadAhead::outcome(result, asked);
    if (m_readAheadOutcome == ReadAhead::Outcome::Failed)
        m_readAheadError = errnoText(int(-result));
}

Http1Connection::Receive Http1Connection::takeReadAhead(char *buffer, std::size_t capacity, std::size_t *size,
                                                        QString *error)
{
    if (m_readAheadBytes.isEmpty()) {
        switch (std::exchange(m_readAheadOutcome, ReadAhead::Outcome::Unknown)) {
        case ReadAhead::Outcome::EndOfStream:
            return Receive::EndOfStream;
        case ReadAhead::Outcome::Failed:
            *error = std::exchange(m_readAheadError, {});
            return Receive::Failed;
        case ReadAhead::Outcome::Drained:
            return Receive::WouldBlock;
        case ReadAhead::Outcome::MayHoldMore:
        case ReadAhead::Outcome::Unknown:
            break;
        }
        return receive(buffer, capacity, size, error);
    }
    const std::size_t taken = std::min(capacity, static_cast<std::size_t>(m_readAheadBytes.size()));
    std::memcpy(buffer, m_readAheadBytes.constData(), taken);
    *size = taken;
    if (taken < static_cast<std::size_t>(m_readAheadBytes.size())) {
        m_readAheadBytes.remove(0, static_cast<qsizetype>(taken));
        return Receive::Data; // a buffer smaller than a slot: the rest comes with the next call
    }
    m_readAheadBytes = QByteArray();
    // Drained: the caller sees a short read and waits for the next event, as after a recv that
    // drained the socket.
    if (std::exchange(m_readAheadOutcome, ReadAhead::Outcome::Unknown) != ReadAhead::Outcome::MayHoldMore || taken == capacity)
        return Receive::Data;
    // The slot filled and the kernel may hold more: read on into the rest of the buffer, so one
    // call takes as much as one recv of the whole buffer would have. An end or an error met there
    // is the next call's.
    std::size_t more = 0;
    QString failure;
    switch (receive(buffer + taken, capacity - taken, &more, &failure)) {
    case Receive::Data:
        *size += more;
        break;
    case Receive::EndOfStream:
        m_readAheadOutcome = ReadAhead::Outcome::EndOfStream;
        break;
    case Receive::Failed:
        m_readAheadOutcome = ReadAhead::Outcome::Failed;
        m_readAheadError = failure;
        break;
    case Receive::WouldBlock:
        break;
    }
    return Receive::Data;
}

bool Http1Connection::idleReadableIsHousekeeping(char *buffer, std::size_t capacity)
{
    if (!m_tls)
        return false;
    std::size_t size = 0;
    QString ignored;
    return receive(buffer, capacity, &size, &ignored) == Receive::WouldBlock;
}

void Http1Connection::setReading(bool on)
{
    if (m_read && !isConnecting())
        m_read->setEnabled(on); // a no-op when nothing changes
}

void Http1Connection::watchWritable(bool on)
{
    if (m_write)
        m_write->setEnabled(on);
}

void Http1Connection::close()
{
    if (m_writeHeld) {
        TurnEndWrites::forget(this);
        m_writeHeld = false;
    }
    // The watches leave before the descriptor (a number the kernel hands out again at once); this
    // may run inside one of their calls, which SocketWatch allows.
    m_read.reset();
    m_write.reset();
    m_tls.reset(); // before the descriptor it reads and writes
    if (m_descriptor >= 0)
        ::close(m_descriptor);
    m_descriptor = -1;
    m_connecting = false;
    m_output[0].clear();
    m_output[1].clear();
    m_pieces = 0;
    m_readAheadOutcome = ReadAhead::Outcome::Unknown;
    m_readAheadBytes.clear();
    m_readAheadError.clear();
}

} // namespace sb
