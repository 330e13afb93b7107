#include "net/TcpStream.h"

#include "net/SocketBatch.h"
#include "net/TlsServerContext.h"
#include "net/TlsSession.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <fcntl.h>

namespace sb {

namespace {

// Bytes asked of the kernel per read call: a small request arrives in one, a large body in a few.
constexpr qsizetype kReadSlice = 16 * 1024;

// The largest write held to the end of its turn (TurnEndWrites).
constexpr qsizetype kMostHeldBytes = 64 * 1024;

// Every TLS connection opens with a record of type handshake (22); an HTTP request, with a letter.
constexpr unsigned char kTlsHandshakeRecord = 0x16;

bool wouldBlock(int error)
{
    return error == EAGAIN || error == EWOULDBLOCK;
}

} // namespace

TcpStream::TcpStream(int descriptor, qsizetype readBufferSize, QObject *parent)
    : QObject(parent)
    , m_descriptor(descriptor)
    , m_readBufferSize(readBufferSize)
{
    const int flags = ::fcntl(m_descriptor, F_GETFL);
    ::fcntl(m_descriptor, F_SETFL, flags | O_NONBLOCK);
    // Streamed tokens must leave at once, not wait for Nagle's algorithm to fill a segment.
    const int on = 1;
    ::setsockopt(m_descriptor, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);

    m_readWatch = std::make_unique<SocketWatch>(m_descriptor, SocketWatch::Direction::Read, [this] { onReadable(); });
    m_readWatch->setReadAhead(this);
    m_readWatch->setEnabled(true);
    m_writeWatch = std::make_unique<SocketWatch>(m_descriptor, SocketWatch::Direction::Write, [this] { onWritable(); });
}

TcpStream::~TcpStream()
{
    abort();
}

void TcpStream::serveTls(std::shared_ptr<const TlsServerContext> context)
{
    m_tlsContext = std::move(context);
    m_tlsState = m_tlsContext ? TlsState::AwaitingHello : TlsState::None;
}

QHostAddress TcpStream::peerAddress() const
{
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (m_descriptor < 0 || ::getpeername(m_descriptor, reinterpret_cast<sockaddr *>(&address), &length) != 0)
        return {};
    return QHostAddress(reinterpret_cast<const sockaddr *>(&address));
}

QByteArray TcpStream::read(qsizetype max)
{
    QByteArray taken;
    if (m_input.size() <= max) {
        taken = std::exchange(m_input, {});
    } else {
        taken = m_input.left(max);
        m_input.remove(0, max);
    }
    if (!taken.isEmpty())
        m_readAheadUnheard = false; // the reader has seen the input
    updateReadWatch();
    return taken;
}

QByteArray TcpStream::readAll()
{
    // What the kernel holds goes too: a caller discarding input wants the client's window open.
    // An end of stream found here is reported by the next onReadable(): the read watch stays on.
    if (isOpen() && !m_endOfInput && m_tlsState != TlsState::Handshaking)
        fill();
    return read(m_input.size());
}

bool TcpStream::write(const QByteArray &bytes)
{
    if (!isOpen())
        return false;
    if (bytes.isEmpty())
        return true;
    // Behind what waits (the write watch is on, or the turn holds it), or before TLS is up (it
    // sends once it is).
    if (bytesToWrite() > 0 || m_tlsState == TlsState::AwaitingHello || m_tlsState == TlsState::Handshaking) {
        m_output.append(bytes);
        return true;
    }
    // A large answer goes at once: held, it would count against the client's buffer limit, and
    // it fills segments of its own anyway.
    if (bytes.size() <= kMostHeldBytes && TurnEndWrites::hold(this)) {
        m_writeHeld = true;
        m_output = bytes;
        m_outputSent = 0;
        return true;
    }
    const qsizetype taken = sendSome(bytes.data(), bytes.size());
    if (taken < 0)
        return false;
    if (taken < bytes.size()) {
        m_output = QByteArray(bytes.data() + taken, bytes.size() - taken);
        m_outputSent = 0;
        m_writeWatch->setEnabled(true);
    }
    return true;
}

qsizetype TcpStream::sendSome(const char *data, qsizetype size)
{
    if (usesTls()) {
        qsizetype total = 0;
        while (total < size) {
            std::size_t written = 0;
            const TlsSession::Step step = m_tls->write(data + total, static_cast<std::size_t>(size - total), &written);
            if (step == TlsSession::Step::WantWrite || step == TlsSession::Step::WantRead)
                return total; // retried from here, with these same bytes, once the socket is writable
            if (step != TlsSession::Step::Done)
                return -1;
            total += static_cast<qsizetype>(written);
        }
        return total;
    }
    for (;;) {
        const ssize_t sent = ::send(m_descriptor, data, static_cast<size_t>(size), MSG_NOSIGNAL);
        if (sent >= 0)
            return static_cast<qsizetype>(sent);
        if (errno != EINTR)
            return wouldBlock(errno) ? 0 : -1;
    }
}

void TcpStream::shutdownWrite()
{
    if (!isOpen())
        return;
    // close_notify before the FIN: a TLS client can then tell the end from a cut connection.
    if (m_tlsState == TlsState::Established)
        m_tls->closeNotify();
    ::shutdown(m_descriptor, SHUT_WR);
}

void TcpStream::abort()
{
    if (!isOpen())
        return;
    if (m_writeHeld) {
        // What the turn holds goes to the kernel first, as it would have at once without the
        // hold: an answer's last bytes written before a reset (a stream cut short) still arrive.
        TurnEndWrites::forget(this);
        m_writeHeld = false;
        flush();
    }
    // The watches go before the descriptor: a watch left on a closed (and soon reused)
    // descriptor number would watch someone else's socket.
    m_readWatch.reset();
    m_writeWatch.reset();
    m_tls.reset();
    ::close(m_descriptor);
    m_descriptor = -1;
    m_readAheadOutcome = ReadAhead::Outcome::Unknown;
    m_readAheadUnheard = false;
    m_input.clear();
    m_output.clear();
    m_outputSent = 0;
}

bool TcpStream::fill()
{
    char slice[kReadSlice];
    if (usesTls()) {
        m_tlsMayHoldInput = false;
        while (m_input.size() < m_readBufferSize) {
            const qsizetype wanted = std::min(kReadSlice, m_readBufferSize - m_input.size());
            std::size_t got = 0;
            switch (m_tls->read(slice, static_cast<std::size_t>(wanted), &got)) {
            case TlsSession::Step::Done:
                m_input.append(slice, static_cast<qsizetype>(got));
                if (static_cast<qsizetype>(got) < wanted)
                    return true; // TLS reached the socket's end of what waits
                continue;
            case TlsSession::Step::WantRead:
                return true;
            case TlsSession::Step::WantWrite:
                m_readWaitsForWritable = true;
                m_writeWatch->setEnabled(true);
                return true;
            case TlsSession::Step::Closed:
                m_endOfInput = true;
                return false;
            case TlsSession::Step::Failed:
                return false;
            }
        }
        m_tlsMayHoldInput = true;
        return true;
    }
    switch (std::exchange(m_readAheadOutcome, ReadAhead::Outcome::Unknown)) {
    case ReadAhead::Outcome::Drained:
        return true; // asking again would only cost a call that says so
    case ReadAhead::Outcome::EndOfStream:
        m_endOfInput = true;
        return false;
    case ReadAhead::Outcome::Failed:
        return false;
    case ReadAhead::Outcome::MayHoldMore:
    case ReadAhead::Outcome::Unknown:
        break;
    }
    while (m_input.size() < m_readBufferSize) {
        const qsizetype wanted = std::min(kReadSlice, m_readBufferSize - m_input.size());
        const ssize_t got = ::read(m_descriptor, slice, static_cast<size_t>(wanted));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return wouldBlock(errno);
        }
        if (got == 0) {
            m_endOfInput = true;
            return false;
        }
        m_input.append(slice, static_cast<qsizetype>(got));
        if (got < wanted)
            break; // the kernel had no more: asking again would only cost a call that says so
    }
    return true;
}

TcpStream::Progress TcpStream::readHello()
{
    unsigned char first = 0;
    const ssize_t got = ::recv(m_descriptor, &first, 1, MSG_PEEK);
    if (got < 0 && (errno == EINTR || wouldBlock(errno)))
        return Progress::Waiting;
    if (got <= 0)
        return Progress::Failed; // gone before a word
    if (first != kTlsHandshakeRecord) {
        m_tlsState = TlsState::PlainText;
        return Progress::Ready;
    }
    m_tls = std::make_unique<TlsSession>(m_tlsContext->context(), m_descriptor);
    if (!m_tls->isValid()) {
        m_tlsError = m_tls->error();
        return Progress::Failed;
    }
    m_tlsState = TlsState::Handshaking;
    return continueHandshake();
}

TcpStream::Progress TcpStream::continueHandshake()
{
    switch (m_tls->handshake()) {
    case TlsSession::Step::Done:
        m_tlsState = TlsState::Established;
        m_writeWatch->setEnabled(bytesToWrite() > 0);
        updateReadWatch();
        return Progress::Ready;
    case TlsSession::Step::WantRead:
        m_writeWatch->setEnabled(false);
        m_readWatch->setEnabled(true);
        return Progress::Waiting;
    case TlsSession::Step::WantWrite:
        m_readWatch->setEnabled(false);
        m_writeWatch->setEnabled(true);
        return Progress::Waiting;
    case TlsSession::Step::Closed:
        m_tlsError = QStringLiteral("the client closed the connection during the TLS handshake");
        return Progress::Failed;
    case TlsSession::Step::Failed:
        break;
    }
    m_tlsError = m_tls->error();
    return Progress::Failed;
}

void TcpStream::onReadable()
{
    if (m_tlsState == TlsState::AwaitingHello || m_tlsState == TlsState::Handshaking) {
        const Progress progress = m_tlsState == TlsState::AwaitingHello ? readHello() : continueHandshake();
        if (progress == Progress::Waiting)
            return;
        if (progress == Progress::Failed) {
            reportFailedStart();
            return;
        }
        // Up: the client's first request often came in the handshake's last flight, so read on.
    }
    const qsizetype before = m_input.size();
    const bool open = fill();
    if (!open)
        m_disconnectReported = true;
    updateReadWatch();
    if (m_input.size() > before || std::exchange(m_readAheadUnheard, false))
        heard(&Listener::streamReadable); // may abort or delete-later the stream; it stays a valid object here
    if (!open && isOpen())
        heard(&Listener::streamClosed);
}

void TcpStream::onWritable()
{
    if (m_tlsState == TlsState::Handshaking) {
        const Progress progress = continueHandshake();
        if (progress == Progress::Failed)
            reportFailedStart();
        else if (progress == Progress::Ready)
            onReadable();
        return;
    }
    if (m_readWaitsForWritable) {
        m_readWaitsForWritable = false;
        onReadable();
        if (!isOpen())
            return;
    }
    sendBuffered();
}

void TcpStream::sendBuffered()
{
    if (!flush()) {
        heard(&Listener::streamClosed);
        return;
    }
    heard(&Listener::streamWritten);
}

bool TcpStream::batchHeld(SocketBatch &batch, std::size_t tag)
{
    // Through TLS the bytes are encrypted on their way out: those go by writeHeld().
    if (!isOpen() || usesTls() || bytesToWrite() == 0)
        return false;
    const iovec piece{const_cast<char *>(m_output.constData() + m_outputSent), static_cast<std::size_t>(bytesToWrite())};
    return batch.add(m_descriptor, &piece, 1, tag);
}

void TcpStream::heldBatchSent(long sent)
{
    m_writeHeld = false;
    if (sent > 0)
        m_outputSent += sent;
    // Whatever is left (a full socket, or an error the next send meets again) goes as after a
    // short send.
    if (isOpen())
        sendBuffered();
}

void TcpStream::writeHeld()
{
    m_writeHeld = false;
    if (isOpen())
        sendBuffered();
}

std::size_t TcpStream::readAheadRoom() const
{
    // Over TLS (or before it is settled) the records are read and decrypted by TLS itself.
    if (m_tlsState != TlsState::None || !isOpen() || m_disconnectReported || m_readAheadOutcome != ReadAhead::Outcome::Unknown)
        return 0;
    return static_cast<std::size_t>(std::max<qsizetype>(0, std::min(kReadSlice, m_readBufferSize - m_input.size())));
}

void TcpStream::readAheadDone(const char *data, long result, std::size_t asked)
{
    if (result > 0) {
        m_input.append(data, static_cast<qsizetype>(result));
        m_readAheadUnheard = true;
    }
    m_readAheadOutcome = ReadAhead::outcome(result, asked);
}

void TcpStream::reportFailedStart()
{
    m_disconnectReported = true;
    m_readWatch->setEnabled(false);
    m_writeWatch->setEnabled(false);
    heard(&Listener::streamClosed);
}

bool TcpStream::flush()
{
    while (bytesToWrite() > 0) {
        const qsizetype sent = sendSome(m_output.constData() + m_outputSent, bytesToWrite());
        if (sent < 0)
            return false;
        if (sent == 0) {
            m_writeWatch->setEnabled(true); // the rest leaves when the socket is writable
            return true;
        }
        m_outputSent += sent;
    }
    m_output.clear();
    m_outputSent = 0;
    m_writeWatch->setEnabled(m_readWaitsForWritable);
    return true;
}

void TcpStream::updateReadWatch()
{
    // The handshake decides what it waits for.
    if (!m_readWatch || m_tlsState == TlsState::AwaitingHello || m_tlsState == TlsState::Handshaking) {
        if (m_readWatch && m_tlsState == TlsState::AwaitingHello)
            m_readWatch->setEnabled(true);
        return;
    }
    // Off while the buffer is full (flow control) and once the end of the stream was reported; on
    // while what was read ahead is still to be heard, whose event must come (the kernel, drained,
    // would not announce it again).
    const bool readAheadWaits = m_readAheadUnheard || m_readAheadOutcome != ReadAhead::Outcome::Unknown;
    const bool wanted = readAheadWaits || (!m_disconnectReported && m_input.size() < m_readBufferSize);
    m_readWatch->setEnabled(wanted);
    // Records TLS read ahead while the buffer was full are in its own buffer, and no socket event
    // will announce them: they are read on the next pass of the loop.
    if (wanted && m_tlsMayHoldInput && !m_readPosted) {
        m_tlsMayHoldInput = false;
        m_readPosted = true;
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_readPosted = false;
                if (isOpen() && !m_disconnectReported)
                    onReadable();
            },
            Qt::QueuedConnection);
    }
}

} // namespace sb
