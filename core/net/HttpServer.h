#pragma once

#include "common/Clock.h"
#include "net/HttpHandler.h"
#include "net/HttpServerLimits.h"

#include <QHostAddress>
#include <QObject>
#include <QString>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

class QThread;

namespace sb {

class ServerWorker;
class TlsServerContext;
struct ServerCounters;

// The local HTTP/1.1 server behind the proxy port. One acceptor (a QTcpServer on its own thread, so
// a busy GUI thread never delays accepts) hands each accepted socket round-robin to one of N worker threads; a
// connection and every request on it live on that worker. Parsing is llhttp's; the handler made
// by the factory for each worker answers.
class HttpServer : public QObject {
    Q_OBJECT
public:
    struct Stats {
        std::uint64_t connectionsAccepted = 0;
        std::int64_t connectionsOpen = 0;
        std::uint64_t connectionsRefused = 0; // over maxConnections
        std::uint64_t requests = 0;           // handed to the handler
        std::uint64_t responses1xx = 0;       // 100 Continue
        std::uint64_t responses2xx = 0;
        std::uint64_t responses3xx = 0;
        std::uint64_t responses4xx = 0;
        std::uint64_t responses5xx = 0;
        std::uint64_t parseErrors = 0;        // requests refused at the HTTP level (400, 408, 413, 431, 501, …)
        std::uint64_t timeouts = 0;           // header or body timeouts (408)
        std::uint64_t idleCloses = 0;
        std::uint64_t slowClientCloses = 0;   // response buffer over maxBufferedResponseBytes
        std::uint64_t clientAborts = 0;       // client gone while its response was in progress
        std::uint64_t tlsHandshakeFailures = 0; // HTTPS connections that ended before TLS was up
        std::uint64_t resets = 0;             // connections reset by a handler (ResponseWriter::abort)
        std::uint64_t bytesIn = 0;
        std::uint64_t bytesOut = 0;
    };

    // workerCount <= 0: max(2, cores) (ARCHITECTURE.md, "Threads"). The factory runs once on each
    // worker thread, before this constructor returns.
    HttpServer(const Clock &clock, const HttpServerLimits &limits, HttpHandlerFactory handlerFactory,
               int workerCount = 0, QObject *parent = nullptr);
    // A server whose timeouts run on the real clock.
    HttpServer(const HttpServerLimits &limits, HttpHandlerFactory handlerFactory, int workerCount = 0,
               QObject *parent = nullptr)
        : HttpServer(SystemClock::instance(), limits, std::move(handlerFactory), workerCount, parent)
    {
    }
    ~HttpServer() override;

    // Port 0 picks a free port (serverPort() tells which).
    bool listen(const QHostAddress &address, quint16 port, QString *error = nullptr);
    bool isListening() const;
    QHostAddress serverAddress() const;
    quint16 serverPort() const;
    int workerCount() const { return static_cast<int>(m_workers.size()); }
    const HttpServerLimits &limits() const { return m_limits; }

    // Stops accepting, lets in-flight responses finish until the deadline, then cuts the rest and
    // stops the workers. Blocks the calling thread until done (at most about the deadline), so it
    // must not be called from a worker thread (a handler): post it to the owner's thread instead.
    void shutdown(std::chrono::milliseconds drainDeadline);

    // HTTPS with `context`'s certificate for every connection accepted from now on (null: plain
    // HTTP); connections already open keep what they began with, so a renewed certificate
    // applies without closing anything. Thread-safe.
    void setTls(std::shared_ptr<const TlsServerContext> context);
    std::shared_ptr<const TlsServerContext> tls() const;

    // Thread-safe.
    Stats stats() const;

private:
    class Acceptor;
    void handOver(qintptr descriptor);

    const HttpServerLimits m_limits;
    std::shared_ptr<ServerCounters> m_counters;
    Acceptor *m_acceptor;
    QThread *m_acceptorThread;
    QHostAddress m_address;
    quint16 m_port = 0;
    bool m_listening = false;
    std::vector<QThread *> m_threads;
    std::vector<ServerWorker *> m_workers;
    std::size_t m_nextWorker = 0; // acceptor thread only
    mutable std::mutex m_tlsMutex;
    std::shared_ptr<const TlsServerContext> m_tls;
    bool m_stopped = false;
};

} // namespace sb
