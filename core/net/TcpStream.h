#pragma once

#include "net/ReadAhead.h"
#include "net/SocketWatch.h"
#include "net/TurnEndWrites.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHostAddress>
#include <QObject>

#include <memory>


namespace sb {

class TlsServerContext;
class TlsSession;

// One accepted TCP connection as a non-blocking descriptor watched by two SocketWatches: the
// client side of the proxy port. It replaces QTcpSocket there because QTcpSocket costs extra system
// calls per request on top of the read and the write (a FIONREAD before every read, an eventfd
// wake-up for the events it posts, a poll for POLLOUT before it sends): with it the proxy spent
// ~169 us of CPU per small request through nginx's canned upstream, without it ~135 us (wrk, one
// and 50 connections, Release).
//
// Reads are buffered up to a bound, as QTcpSocket::setReadBufferSize does: past it the descriptor
// is no longer read, so TCP flow control holds a client back that sends faster than it is served.
// A plain stream's loop may read for it before its readable event (ReadAhead).
// Writes go to the kernel at once, or at the end of the event-loop turn that made them when the
// turn holds them (TurnEndWrites); what the kernel does not take waits and leaves when the socket
// is writable. Lives on one thread; not thread-safe.
//
// On a port that serves HTTPS the stream is TLS's server side (serveTls): the client's handshake
// is answered first, and read() and write() then carry the decrypted bytes. A client that speaks
// plain HTTP there is told apart by its first byte and passed up as it is, marked
// (plainTextOnTlsPort()), so the server can answer it in words instead of a failed handshake.
class TcpStream : public QObject, private TurnEndWrites::Writer, private CallbackDispatcher::ReadAheadClient {
    Q_OBJECT
public:
    // Who hears what the stream does: called directly (a signal's hop cost ~350 instructions a
    // turn). A call may abort the stream or delete it later, not delete it at once.
    class Listener {
    public:
        virtual void streamReadable() = 0;
        // Some buffered bytes left; bytesToWrite() says how many remain.
        virtual void streamWritten() = 0;
        // The client closed its side, or the connection failed.
        virtual void streamClosed() = 0;

    protected:
        ~Listener() = default;
    };

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

    // Hands the bytes to the kernel now or at the end of the turn; what it cannot take yet is
    // buffered. False when the connection is broken: the caller tears down (no streamClosed()
    // follows for this). A held write that finds it broken is heard as streamClosed(), one that
    // went out as streamWritten().
    bool write(const QByteArray &bytes);
    qint64 bytesToWrite() const { return m_output.size() - m_outputSent; }

    // Sends FIN after what is buffered is out: the caller checks bytesToWrite() first.
    void shutdownWrite();
    // Closes at once, dropping what is buffered (a write the turn holds is first offered to the
    // kernel, as it would have been without the hold); nothing is heard after.
    void abort();
    // nullptr: nobody hears any more.
    void setListener(Listener *listener) { m_listener = listener; }

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
    bool batchHeld(SocketBatch &batch, std::size_t tag) override;
    void heldBatchSent(long sent) override;
    void writeHeld() override;
    std::size_t readAheadRoom() const override;
    void readAheadDone(const char *data, long result, std::size_t asked) override;
    // Sends what is buffered; the listener hears that bytes left, or that the connection broke.
    void sendBuffered();
    // Looks at the first byte a client sent and starts TLS when it opens a handshake.
    Progress readHello();
    Progress continueHandshake();
    // The handshake failed or the client left before it: disconnected(), nothing more watched.
    void reportFailedStart();
    void heard(void (Listener::*event)())
    {
        if (m_listener)
            (m_listener->*event)();
    }
    bool usesTls() const { return m_tlsState == TlsState::Handshaking || m_tlsState == TlsState::Established; }
    // Hands bytes to the kernel (through TLS when it is on): how many it took, -1 when the
    // connection is broken.
    qsizetype sendSome(const char *data, qsizetype size);
    // Reads from the kernel until the buffer is full or nothing waits. False at end of stream or
    // on an error.
    bool fill();
    bool flush();
    void updateReadWatch();

    int m_descriptor;
    const qsizetype m_readBufferSize;
    Listener *m_listener = nullptr;
    std::unique_ptr<SocketWatch> m_readWatch;
    std::unique_ptr<SocketWatch> m_writeWatch;
    QByteArray m_input;
    QByteArray m_output;
    qsizetype m_outputSent = 0; // bytes at the front of m_output already sent
    bool m_writeHeld = false;   // m_output waits for the end of the turn
    bool m_endOfInput = false;         // the client's FIN was read
    // What the loop's read ahead found, for the next fill(): whether the kernel held more, the end
    // or an error; and whether its bytes, already in m_input, are still to be announced.
    ReadAhead::Outcome m_readAheadOutcome = ReadAhead::Outcome::Unknown;
    bool m_readAheadUnheard = false;
    bool m_disconnectReported = false; // the end was read (or the start failed): nothing more to read

    std::shared_ptr<const TlsServerContext> m_tlsContext;
    TlsState m_tlsState = TlsState::None;
    std::unique_ptr<TlsSession> m_tls;
    QString m_tlsError;
    bool m_readWaitsForWritable = false; // TLS must send (a key update's answer) before it reads on
    bool m_tlsMayHoldInput = false;      // the buffer filled while TLS may hold more in its own
    bool m_readPosted = false;           // a read of what TLS holds is queued
};

} // namespace sb
