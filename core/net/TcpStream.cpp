#include "net/TcpStream.h"

#include <QSocketNotifier>

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

    m_readNotifier = new QSocketNotifier(m_descriptor, QSocketNotifier::Read, this);
    connect(m_readNotifier, &QSocketNotifier::activated, this, &TcpStream::onReadable);
    m_writeNotifier = new QSocketNotifier(m_descriptor, QSocketNotifier::Write, this);
    m_writeNotifier->setEnabled(false);
    connect(m_writeNotifier, &QSocketNotifier::activated, this, &TcpStream::onWritable);
}

TcpStream::~TcpStream()
{
    abort();
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
    updateReadNotifier();
    return taken;
}

QByteArray TcpStream::readAll()
{
    // What the kernel holds goes too: a caller discarding input wants the client's window open.
    // An end of stream found here is reported by the next onReadable(): the notifier stays on.
    if (isOpen() && !m_endOfInput)
        fill();
    return read(m_input.size());
}

bool TcpStream::write(QByteArrayView bytes)
{
    if (!isOpen())
        return false;
    if (bytes.isEmpty())
        return true;
    if (bytesToWrite() > 0) {
        m_output.append(bytes.data(), bytes.size()); // keeps the order; the write notifier is on
        return true;
    }
    const ssize_t sent = ::send(m_descriptor, bytes.data(), static_cast<size_t>(bytes.size()), MSG_NOSIGNAL);
    if (sent < 0 && !wouldBlock(errno))
        return false;
    const qsizetype taken = sent < 0 ? 0 : static_cast<qsizetype>(sent);
    if (taken < bytes.size()) {
        m_output = QByteArray(bytes.data() + taken, bytes.size() - taken);
        m_outputSent = 0;
        m_writeNotifier->setEnabled(true);
    }
    return true;
}

void TcpStream::shutdownWrite()
{
    if (isOpen())
        ::shutdown(m_descriptor, SHUT_WR);
}

void TcpStream::abort()
{
    if (!isOpen())
        return;
    // The notifiers go before the descriptor: a notifier left on a closed (and soon reused)
    // descriptor number would watch someone else's socket.
    delete m_readNotifier;
    delete m_writeNotifier;
    m_readNotifier = nullptr;
    m_writeNotifier = nullptr;
    ::close(m_descriptor);
    m_descriptor = -1;
    m_input.clear();
    m_output.clear();
    m_outputSent = 0;
}

bool TcpStream::fill()
{
    char slice[kReadSlice];
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

void TcpStream::onReadable()
{
    const qsizetype before = m_input.size();
    const bool open = fill();
    if (!open)
        m_disconnectReported = true;
    updateReadNotifier();
    if (m_input.size() > before)
        emit readyRead(); // may abort or delete-later the stream; it stays a valid object here
    if (!open && isOpen())
        emit disconnected();
}

void TcpStream::onWritable()
{
    if (!flush()) {
        emit disconnected();
        return;
    }
    emit bytesWritten();
}

bool TcpStream::flush()
{
    while (bytesToWrite() > 0) {
        const ssize_t sent = ::send(m_descriptor, m_output.constData() + m_outputSent,
                                    static_cast<size_t>(bytesToWrite()), MSG_NOSIGNAL);
        if (sent < 0) {
            if (wouldBlock(errno))
                return true;
            if (errno == EINTR)
                continue;
            return false;
        }
        m_outputSent += static_cast<qsizetype>(sent);
    }
    m_output.clear();
    m_outputSent = 0;
    m_writeNotifier->setEnabled(false);
    return true;
}

void TcpStream::updateReadNotifier()
{
    // Off while the buffer is full (flow control) and once the end of the stream was reported.
    if (m_readNotifier)
        m_readNotifier->setEnabled(!m_disconnectReported && m_input.size() < m_readBufferSize);
}

} // namespace sb
