#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QHostAddress>
#include <QObject>

class QSocketNotifier;

namespace sb {

// One accepted TCP connection as a non-blocking descriptor watched by two QSocketNotifiers: the
// client side of the proxy port. It replaces QTcpSocket there because QTcpSocket costs extra system
// calls per request on top of the read and the write (a FIONREAD before every read, an eventfd
// wake-up for the events it posts, a poll for POLLOUT before it sends): with it the proxy spent
// ~169 us of CPU per small request through nginx's canned upstream, without it ~135 us (wrk, one
// and 50 connections, Release).
//
// Reads are buffered up to a bound, as QTcpSocket::setReadBufferSize does: past it the descriptor
// is no longer read, so TCP flow control holds a client back that sends faster than it is served.
// Writes go to the kernel at once; what it does not take waits and leaves when the socket is
// writable. Lives on one thread; not thread-safe.
class TcpStream : public QObject {
    Q_OBJECT
public:
    // Adopts a connected socket (made non-blocking, TCP_NODELAY) and closes it when destroyed.
    TcpStream(int descriptor, qsizetype readBufferSize, QObject *parent = nullptr);
    ~TcpStream() override;

    bool isOpen() const { return m_descriptor >= 0; }
    int descriptor() const { return m_descriptor; }
    QHostAddress peerAddress() const;

    // Takes up to `max` received bytes (empty: none yet).
    QByteArray read(qsizetype max);
    // Takes every received byte, reading what the kernel holds first (a closing connection
    // discards what the client still sends).
    QByteArray readAll();

    // Hands the bytes to the kernel at once; what it cannot take yet is buffered. False when the
    // connection is broken: the caller tears down (no disconnected() follows for this).
    bool write(QByteArrayView bytes);
    qint64 bytesToWrite() const { return m_output.size() - m_outputSent; }

    // Sends FIN after what is buffered is out: the caller checks bytesToWrite() first.
    void shutdownWrite();
    // Closes at once, dropping what is buffered; no signal follows.
    void abort();

signals:
    void readyRead();
    // Some buffered bytes left; bytesToWrite() says how many remain.
    void bytesWritten();
    // The client closed its side, or the connection failed.
    void disconnected();

private:
    void onReadable();
    void onWritable();
    // Reads from the kernel until the buffer is full or nothing waits. False at end of stream or
    // on an error.
    bool fill();
    bool flush();
    void updateReadNotifier();

    int m_descriptor;
    const qsizetype m_readBufferSize;
    QSocketNotifier *m_readNotifier = nullptr;
    QSocketNotifier *m_writeNotifier = nullptr;
    QByteArray m_input;
    QByteArray m_output;
    qsizetype m_outputSent = 0; // bytes at the front of m_output already sent
    bool m_endOfInput = false;         // the client's FIN was read
    bool m_disconnectReported = false; // disconnected() was emitted: nothing more to read
};

} // namespace sb
