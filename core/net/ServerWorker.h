#pragma once

#include "common/Clock.h"
#include "net/HttpHandler.h"
#include "net/HttpServerLimits.h"

#include <QObject>

#include <chrono>
#include <functional>
#include <memory>
#include <unordered_set>

namespace sb {

class HttpConnection;
class TlsServerContext;
struct ServerCounters;

// One worker thread's share of the server: the handler made for this thread and the connections
// the acceptor handed over. Every method runs on the worker thread (HttpServer posts them there).
class ServerWorker : public QObject {
    Q_OBJECT
public:
    ServerWorker(const Clock &clock, int index, const HttpServerLimits &limits, std::shared_ptr<ServerCounters> counters);
    ~ServerWorker() override;

    void start(const HttpHandlerFactory &factory);
    // `tls` null: plain HTTP.
    void adoptDescriptor(qintptr descriptor, const std::shared_ptr<const TlsServerContext> &tls);
    // Graceful shutdown: idle connections close now, busy ones after their response; `done` runs
    // (on this thread) when none is left, at the latest at the deadline when the rest are cut.
    void beginDrain(std::chrono::milliseconds deadline, std::function<void()> done);
    // Cuts what is left and destroys the handler; the worker can then be deleted from any thread.
    void stop();

    int index() const { return m_index; }
    int connectionCount() const { return static_cast<int>(m_connections.size()); }

private:
    void connectionClosed(HttpConnection *connection);
    void finishDrain();

    const Clock &m_clock;
    const int m_index;
    const HttpServerLimits m_limits;
    std::shared_ptr<ServerCounters> m_counters;
    std::unique_ptr<HttpHandler> m_handler;
    std::unordered_set<HttpConnection *> m_connections;
    bool m_draining = false;
    std::unique_ptr<Timer> m_drainTimer;
    std::function<void()> m_drainDone;
};

} // namespace sb
