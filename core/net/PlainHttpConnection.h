#pragma once

#include "net/HttpResponseParser.h"

#include <QByteArray>
#include <QString>

#include <sys/socket.h>

#include <chrono>
#include <cstddef>

class QObject;
class QSocketNotifier;

namespace sb {

// A socket address to connect to, with its text for messages ("127.0.0.1 port 8080").
struct SocketAddress {
    sockaddr_storage storage{};
    socklen_t length = 0;
    QString text;
};

// One TCP connection from the PlainHttpEngine to a plain-HTTP upstream: a non-blocking socket
// watched by two QSocketNotifiers, sending one request at a time and kept alive between them. It
// knows nothing of transfers; what its socket does goes to its Owner.
class PlainHttpConnection {
public:
    class Owner {
    public:
        virtual void connectionReadable(PlainHttpConnection &connection) = 0;
        // Connected (or failed to), or the kernel took buffered request bytes: see flush().
        virtual void connectionWritable(PlainHttpConnection &connection) = 0;

    protected:
        ~Owner() = default;
    };

    enum class Receive { Data, WouldBlock, EndOfStream, Failed };

    // `notifierParent` gives the notifiers their thread (the engine's).
    PlainHttpConnection(Owner &owner, QObject *notifierParent, QByteArray endpoint);
    ~PlainHttpConnection(); // closes
    PlainHttpConnection(const PlainHttpConnection &) = delete;
    PlainHttpConnection &operator=(const PlainHttpConnection &) = delete;

    // Starts a non-blocking connect (TCP_NODELAY, keep-alive probes). False with the reason when it
    // fails at once; otherwise connectionWritable() follows when it is up or has failed.
    bool open(const SocketAddress &address, QString *error);
    bool isConnecting() const { return m_connecting; }
    bool isOpen() const { return m_descriptor >= 0; }
    // After connectionWritable() while connecting: empty when the connection is up, else why not.
    QString finishConnect();

    // Queues a request (head, then body) and sends what the kernel takes now; the rest leaves on
    // flush() when the socket is writable. False with the reason when the connection is broken.
    bool send(QByteArray head, QByteArray body, QString *error);
    bool flush(QString *error);
    bool hasPendingOutput() const { return m_pieces > 0; }

    // One recv() into `buffer`; `*size` gets the byte count, `*error` the reason on Failed.
    Receive receive(char *buffer, std::size_t capacity, std::size_t *size, QString *error);
    // Whether readability is watched: off while a transfer is paused.
    void setReading(bool on);
    // Closes at once; nothing follows.
    void close();

    const QByteArray &endpoint() const { return m_endpoint; }
    HttpResponseParser &parser() { return m_parser; }

    quint64 transferId = 0; // the transfer it carries now; 0 while it waits in the idle pool
    int requestsSent = 0;

private:
    void watchWritable(bool on);

    Owner &m_owner;
    QObject *m_notifierParent;
    const QByteArray m_endpoint;
    int m_descriptor = -1;
    bool m_connecting = false;
    QSocketNotifier *m_read = nullptr;
    QSocketNotifier *m_write = nullptr;
    QByteArray m_output[2]; // head and body still to send, from m_outputSent on
    int m_pieces = 0;
    qsizetype m_outputSent = 0; // bytes of m_output[0] already sent
    HttpResponseParser m_parser;
};

} // namespace sb
