#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QHostAddress>
#include <QObject>

#include <memory>

class QSocketNotifier;

namespace sb {

class TlsServerContext;
class TlsSession;

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
//
// On a port that serves HTTPS the stream is TLS's server side (serveTls): the client's handshake
// is answered first, and read() and write() then carry the decrypted bytes. A client that speaks
// plain HTTP there is told apart by its first byte and passed up as it is, marked
// (plainTextOnTlsPort()), so the server can answer it in words instead of a failed handshake.
class TcpStream : public QObject {
    Q_OBJECT
public:
    // Adopts a connected socket (made non-blocking, TCP_NODELAY) and closes it when destroyed.
    TcpStream(int descriptor, qsizetype readBufferSize, QObject *parent = nullptr);
    ~TcpStream() override;

    // From now on the stream speaks TLS's server side with `context`'s certificate; called before
    // the event loop first runs for it.
    void serveTls(std::shared_ptr<const TlsServerContext> context);
    // The client sent something other than a TLS handshake to a port that serves HTTPS.
    bool plainTextOnTlsPort() const { return m_tlsState == TlsState::PlainText; }
    // Why the TLS handshake failed (empty while it has not).
    const QString &tlsError() const { return m_tlsError; }

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
    enum class TlsState {
        None,          // plain TCP
        AwaitingHello, // TLS wanted, nothing read yet
        Handshaking,
        Established,
        PlainText,     // TLS wanted, plain bytes came: passed up as they are
    };
    enum class Progress { Ready, Waiting, Failed };

    void onReadable();
    void onWritable();
    // Looks at the first byte a client sent and starts TLS when it opens a handshake.
    Progress readHello();
    Progress continueHandshake();
    // The handshake failed or the client left before it: disconnected(), nothing more watched.
    void reportFailedStart();
    bool usesTls() const { return m_tlsState == TlsState::Handshaking || m_tlsState == TlsState::Established; }
    // Hands bytes to the kernel (through TLS when it is on): how many it took, -1 when the
    // connection is broken.
    qsizetype sendSome(const char *data, qsizetype size);
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

    std::shared_ptr<const TlsServerContext> m_tlsContext;
    TlsState m_tlsState = TlsState::None;
    std::unique_ptr<TlsSession> m_tls;
    QString m_tlsError;
    bool m_readWaitsForWritable = false; // TLS must send (a key update's answer) before it reads on
    bool m_tlsMayHoldInput = false;      // the buffer filled while TLS may hold more in its own
    bool m_readPosted = false;           // a read of what TLS holds is queued
};

} // namespace sb
