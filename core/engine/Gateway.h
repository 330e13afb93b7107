#pragma once

#include "engine/EngineContext.h"
#include "engine/MetricsSnapshot.h"
#include "health/HealthEvent.h"

#include <QObject>
#include <QString>

#include <chrono>
#include <memory>

class QThread;

namespace sb {

class HttpServer;
class ControlLoop;

// The one object app/ and ui/ talk to (ARCHITECTURE.md, engine/): it owns the routing engine, the
// local proxy port with its worker threads, and the control thread that ticks health, breakers,
// pool rules and heartbeats every second and publishes a MetricsSnapshot.
class Gateway : public QObject {
    Q_OBJECT
public:
    Gateway(const Clock &clock, Random &random, EngineConfigPtr config, QObject *parent = nullptr);
    ~Gateway() override;

    // Opens the proxy port (config->proxy.listenHost/listenPort; port 0 = any free port) and starts
    // the control thread. False with a sentence in *error when it cannot.
    bool start(QString *error);
    // Stops accepting, lets in-flight streams finish up to `drain`, then stops every thread.
    void stop(std::chrono::milliseconds drain = std::chrono::seconds(10));
    bool isRunning() const { return m_server != nullptr; }

    // A saved configuration, applied live: requests in flight finish on the config they started with.
    void applyConfig(EngineConfigPtr config);
    EngineConfigPtr config() const { return m_context.config(); }

    quint16 port() const;
    QString baseUrl() const; // "http://127.0.0.1:8400/v1"

    EngineContext &context() { return m_context; }
    Router &router() { return m_context.router(); }
    // Computed on demand; thread-safe.
    MetricsSnapshot snapshot() const;

signals:
    // Once a second from the control thread; connect with a queued connection from the GUI.
    void snapshotReady(const sb::MetricsSnapshot &snapshot);
    // Breaker, pool, failover and panic events as they happen, from whichever thread caused them.
    void healthEvent(const sb::HealthEvent &event);

private:
    const Clock &m_clock;
    EngineContext m_context;
    std::unique_ptr<HttpServer> m_server;
    QThread *m_controlThread = nullptr;
    ControlLoop *m_control = nullptr;
};

// Refuses an address that is not loopback unless a local token is set (issue: binding to a
// non-loopback address without a token is refused at start-up).
bool listenAddressAllowed(const ProxyConfig &proxy, QString *error);

} // namespace sb

Q_DECLARE_METATYPE(sb::HealthEvent)
