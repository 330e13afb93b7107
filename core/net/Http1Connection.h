#pragma once

#include "net/HttpResponseParser.h"
#include "net/ReadAhead.h"
#include "net/SocketWatch.h"
#include "net/TlsSession.h"
#include "net/TurnEndWrites.h"

#include <QByteArray>
#include <QString>

#include <sys/socket.h>
#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <memory>

namespace sb {

// A socket address to connect to, with its text for messages ("127.0.0.1 port 8080").
struct SocketAddress {
    sockaddr_storage storage{};
    socklen_t length = 0;
    QString text;
};

// One connection from the Http1Engine to an HTTP/1.1 upstream, over TCP or TLS: a non-blocking
// socket watched by two SocketWatches, sending one request at a time and kept alive between
// them. It knows nothing of transfers; what its socket does goes to its Owner. A request sent
// while the loop's turn holds writes leaves at the turn's end (TurnEndWrites), through the same
// connectionWritable() a socket that became writable gets. While it carries a transfer, its loop
// may read for it before its readable event (ReadAhead); receive() hands those bytes on first
// (over TLS, as the records OpenSSL decrypts first).
class Http1Connection final : private TurnEndWrites::Writer, private CallbackDispatcher::ReadAheadClient {
public:
    class Owner {
    public:
        virtual void connectionReadable(Http1Connection &connection) = 0;
        // Connected (or failed to), or the kernel took buffered request bytes: see flush().
        virtual void connectionWritable(Http1Connection &connection) = 0;

    protected:
        ~Owner() = default;
    };

    enum class Receive { Data, WouldBlock, EndOfStream, Failed };

    // Made on the engine's thread, whose loop watches its socket.
    Http1Connection(Owner &owner, QByteArray endpoint);
    ~Http1Connection(); // closes
    Http1Connection(const Http1Connection &) = delete;
    Http1Connection &operator=(const Http1Connection &) = delete;

    // Starts a non-blocking connect (TCP_NODELAY, keep-alive probes). False with the reason when it
    // fails at once; otherwise connectionWritable() follows when it is up or has failed.
    bool open(const SocketAddress &address, QString *error);
    // Until the TCP connection, and the TLS handshake when there is one, are through.
    bool isConnecting() const { return m_connecting || (m_tls && !m_tls->handshakeDone()); }
    bool isOpen() const { return m_descriptor >= 0; }
    // After connectionWritable() while the TCP connect runs: empty when it is up, else why not.
    QString finishConnect();
    bool tcpConnecting() const { return m_connecting; }

    // Puts TLS over the connected socket; the handshake is then driven by handshake() on every
    // readable or writable event until it is Done. False, with the reason, when OpenSSL refuses.
    bool startTls(ssl_ctx_st *context, const TlsPeer &peer, ssl_session_st *resume, QString *error);
    bool isTls() const { return m_tls != nullptr; }
    enum class Handshake { Pending, Done, Failed };
    Handshake handshake(QString *error);
    const TlsSession *tls() const { return m_tls.get(); }
    bool sessionRemembered = false; // its TLS session was kept for the next connection

    // Queues a request (head, then body) and sends what the kernel takes now (or at the end of
    // the turn); the rest leaves on flush() when the socket is writable. False with the reason
    // when the connection is broken.
    bool send(QByteArray head, QByteArray body, QString *error);
    bool flush(QString *error);
    bool hasPendingOutput() const { return m_pieces > 0; }

    // One recv() into `buffer` (over TLS: what is decrypted, up to `capacity`); `*size` gets the
    // byte count, `*error` the reason on Failed.
    Receive receive(char *buffer, std::size_t capacity, std::size_t *size, QString *error);
    // Received bytes that no readable event will announce (TLS holds them, or they were read
    // ahead for an event that did not come): the owner reads them itself.
    bool hasBufferedInput() const { return (m_tls && m_tls->hasBufferedInput()) || m_readAheadOutcome != ReadAhead::Outcome::Unknown; }
    // An idle connection turned readable: true when that was only TLS's own housekeeping (a session
    // ticket) and it can carry the next request, false when the server closed it or sent bytes
    // nobody asked for.
    bool idleReadableIsHousekeeping(char *buffer, std::size_t capacity);
    // Whether readability is watched: off while a transfer is paused.
    void setReading(bool on);
    // Closes at once; nothing follows.
    void close();

    const QByteArray &endpoint() const { return m_endpoint; }
    HttpResponseParser &parser() { return m_parser; }

    quint64 transferId = 0; // the transfer it carries now; 0 while it waits in the idle pool
    int requestsSent = 0;

private:
    bool batchHeld(SocketBatch &batch, std::size_t tag) override;
    void heldBatchSent(long sent) override;
    void writeHeld() override;
    std::size_t readAheadRoom() const override;
    void readAheadDone(const char *data, long result, std::size_t asked) override;
    // receive() for what was read ahead.
    Receive takeReadAhead(char *buffer, std::size_t capacity, std::size_t *size, QString *error);
    // What waits to be sent, as `pieces` (head, then body): how many there are.
    int waitingPieces(iovec pieces[2]) const;
    // The first `sent` bytes of what waits have left.
    void consumeSent(qsizetype sent);
    void watchWritable(bool on);
    bool flushTls(QString *error);

    Owner &m_owner;
    const QByteArray m_endpoint;
    int m_descriptor = -1;
    bool m_connecting = false;
    std::unique_ptr<SocketWatch> m_read;
    std::unique_ptr<SocketWatch> m_write;
    QByteArray m_output[2]; // head and body still to send, from m_outputSent on
    int m_pieces = 0;
    qsizetype m_outputSent = 0; // bytes of m_output[0] already sent
    bool m_writeHeld = false;   // the request waits for the end of the turn
    HttpResponseParser m_parser;
    std::unique_ptr<TlsSession> m_tls;
    // What the loop read ahead over plain TCP, for the next receive(): its bytes, and what it
    // found beyond them (TLS keeps its own: TlsSession::received).
    ReadAhead::Outcome m_readAheadOutcome = ReadAhead::Outcome::Unknown;
    QByteArray m_readAheadBytes;
    QString m_readAheadError;
};

} // namespace sb
