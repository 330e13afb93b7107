#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <cstddef>
#include <cstdint>

struct ssl_st;
struct ssl_ctx_st;
struct ssl_session_st;

namespace sb {

// Who the client expects at the other end of a TLS connection: the name sent in SNI and checked
// against the certificate (a DNS name, or an IP address checked against the certificate's IP
// entries and never sent as SNI), and whether anything is checked at all.
struct TlsPeer {
    QByteArray host; // "api.example.com", "127.0.0.1", "::1"
    bool verify = true;
};

// One TLS connection over a connected non-blocking socket, either side of it: OpenSSL reading and
// writing the descriptor itself (read-ahead on, so a record costs one recv(); bytes the loop read
// for it, received(), come first), every call returning what the socket must wait for instead of
// blocking. Renegotiation is refused, so writes never need the socket readable; a read may need it
// writable on the server side, where TLS 1.3 answers a client's key update.
class TlsSession {
public:
    enum class Step {
        Done,      // handshake finished / bytes moved
        WantRead,  // call again once the socket is readable
        WantWrite, // call again once the socket is writable
        Closed,    // the peer ended the stream (close_notify, or its FIN)
        Failed,    // error() says why
    };

    // The client's side for `descriptor` under `context` (an SSL_CTX), resuming a copy of
    // `resume` (an SSL_SESSION, may be null; the caller keeps it) when the server agrees.
    // isValid() false, with error(), when OpenSSL refused.
    TlsSession(ssl_ctx_st *context, int descriptor, const TlsPeer &peer, ssl_session_st *resume);
    // The server's side for an accepted `descriptor` under `context`, which holds the certificate.
    TlsSession(ssl_ctx_st *context, int descriptor);
    ~TlsSession();
    TlsSession(const TlsSession &) = delete;
    TlsSession &operator=(const TlsSession &) = delete;

    bool isValid() const { return m_ssl != nullptr; }
    Step handshake();
    bool handshakeDone() const { return m_handshakeDone; }
    // Whether the handshake resumed an earlier TLS session (no certificate sent or checked again).
    bool resumed() const;

    Step write(const char *data, std::size_t size, std::size_t *written);
    // Fills `buffer` with what is decrypted and waiting, up to `capacity`: Done with `*got` > 0,
    // or why nothing came.
    Step read(char *buffer, std::size_t capacity, std::size_t *got);
    // Decrypted or received bytes OpenSSL holds (or bytes read for it, below) that no socket event
    // will announce.
    bool hasBufferedInput() const;

    // Bytes of the socket read for this TLS connection by someone else (the loop's read ahead:
    // ReadAhead), `asked` having been asked: OpenSSL takes them before it reads the socket again.
    // `result` is as recv(2) would have returned it, negated errno on failure; the end of the
    // stream is left for the socket to say again. A read that came short says the socket held no
    // more: the read() that takes the last of them does not ask it at once.
    void received(const char *data, long result, std::size_t asked);
    // Whether bytes read for it wait to be taken.
    bool holdsReceived() const { return !m_received.isEmpty() || m_receiveError != 0; }

    // A new reference to the TLS session the server issued, when it can resume (the caller frees it
    // with SSL_SESSION_free), else null. Client side.
    ssl_session_st *resumableSession() const;

    // Encrypts all `size` bytes into records kept here rather than sent, so that a batch of the
    // turn's sends (SocketBatch) can hand them to the kernel with the others. Done when all were
    // taken (`*taken` says how many); the records are then recordsWaiting().
    Step writeForBatch(const char *data, std::size_t size, std::size_t *taken);
    // Records written but not sent yet: kept by writeForBatch(), or the part a batch's send left.
    // They go before any later record: while some wait, write() sends them first (WantWrite when
    // the socket takes not all of them).
    QByteArrayView recordsWaiting() const { return QByteArrayView(m_recordsWaiting).sliced(m_recordsSent); }
    // The first `count` waiting records' bytes left (a batch sent them).
    void recordsSent(std::size_t count);
    // Sends what waits: Done when nothing does any more, WantWrite, or Failed.
    Step sendWaitingRecords();

    // Sends close_notify once, without waiting for the peer's: the server's side says so before
    // its FIN, so the client can tell the end of a response from a cut connection.
    void closeNotify();

    const QString &error() const { return m_error; }

    // OpenSSL's socket writes come here first (the BIO's write). Kept: the record was kept
    // (inside writeForBatch()); Send: send it, nothing waits before it; Wait: records wait that
    // the socket does not take now; Failed: the connection is broken (errno says how).
    enum class Record { Kept, Send, Wait, Failed };
    Record beforeRecord(const char *data, int size);
    // OpenSSL's socket reads come here first (the BIO's read). Taken: `*taken` bytes read for it
    // (received()); ReadSocket: read the socket; WouldBlock: the socket held no more when they were
    // read; Failed: the read ahead failed (errno says how).
    enum class Received { Taken, ReadSocket, WouldBlock, Failed };
    Received takeReceived(char *data, int size, int *taken);

private:
    bool adopt(ssl_ctx_st *context, int descriptor);
    Step failure(int result);

    bool m_server = false;
    ssl_st *m_ssl = nullptr;
    bool m_handshakeDone = false;
    QString m_error;
    int m_descriptor = -1;
    QByteArray m_recordsWaiting;
    qsizetype m_recordsSent = 0;
    bool m_keepingRecords = false; // inside writeForBatch()
    QByteArray m_received;           // read for it, not yet taken by OpenSSL
    qsizetype m_receivedTaken = 0;   // of m_received
    bool m_receivedDrained = false;  // m_received came short: the socket held no more
    bool m_socketKnownDrained = false; // within read(): the last of m_received was taken, and drained
    int m_receiveError = 0;          // the read ahead failed: errno, reported once
};

} // namespace sb
