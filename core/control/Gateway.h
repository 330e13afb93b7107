#pragma once

#include "control/AdminControls.h"
#include "control/EventLog.h"
#include "control/OperatorLog.h"
#include "proxy/EngineContext.h"
#include "control/MetricsSnapshot.h"
#include "health/HealthEvent.h"
#include "net/TlsServerContext.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

class QThread;

namespace sb {

class HttpServer;
class ControlLoop;
class FleetLink;

// The one object app/ and ui/ talk to (ARCHITECTURE.md, "Layers" and "Threads"): it owns the routing engine, the
// local proxy port with its worker threads, and the control thread that ticks health, breakers,
// pool rules and heartbeats every second and publishes a MetricsSnapshot.
class AdminRoutes;

class Gateway : public QObject, public AdminControls {
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
    // A changed proxy.listenHost/listenPort rebinds: the new address is opened first, then the old
    // one stops accepting while its connections finish (up to proxy.drainTimeout). When the new
    // address is refused (listenAddressAllowed) or cannot be opened, the engine keeps serving on
    // the old one, keeps the old address in its config, and emits listenFailed with a sentence.
    // Call from the thread that owns the Gateway.
    void applyConfig(EngineConfigPtr config);
    EngineConfigPtr config() const { return m_context.config(); }

    quint16 port() const;
    QString baseUrl() const override; // "http://127.0.0.1:8400/v1", "https://…" when it serves TLS
    // The certificate the proxy port presents to new connections; nullopt over plain HTTP.
    // Thread-safe.
    std::optional<TlsCertificateInfo> tlsCertificate() const;

    EngineContext &context() { return m_context; }
    Router &router() { return m_context.router(); }
    // Computed on demand; thread-safe.
    MetricsSnapshot snapshot() const override;
    // The recent health events (for /admin/events and /admin/incidents); thread-safe.
    const EventLog &eventLog() const override { return m_events; }

    // Thread-safe: asks the control thread to send a heartbeat probe to the channel now. The result
    // flows like any heartbeat's (the channel's window and pool rules, then the next snapshot).
    // False when the channel is unknown, a manual probe of it is already running, or the engine is stopped.
    bool probeNow(int channelId) override;
    struct ManualProbeStats {
        std::uint64_t started = 0;
        std::uint64_t succeeded = 0;
        std::uint64_t failed = 0;
    };
    ManualProbeStats manualProbeStats() const;

    // How POST /admin/reload re-reads the configuration: set by whoever owns the configuration
    // (EngineHost reads its ConfigStore's database or the --config file). Runs on this object's
    // thread; returns false with a sentence when the stored configuration cannot be read.
    using ReloadHandler = std::function<bool(QString *message)>;
    void setReloadHandler(ReloadHandler handler);
    // Thread-safe: runs the reload handler on this object's thread, then calls `reply` on
    // `replyContext`'s thread (not at all if that object is gone by then).
    void requestReload(QObject *replyContext, std::function<void(bool ok, const QString &message)> reply) override;
    // How POST /admin/keys/{id}/enable re-enables a refused key: set by whoever owns the configuration
    // (EngineHost: ConfigStore::reenableKey). Runs on this object's thread.
    using KeyReenableHandler = std::function<bool(int keyId, QString *message)>;
    void setKeyReenableHandler(KeyReenableHandler handler);
    void requestKeyReenable(int keyId, QObject *replyContext, std::function<void(bool ok, const QString &message)> reply) override;
    // /admin/fleet's body (FleetLink::describe; {"configured": false} without a fleet), then
    // `reply` on `replyContext`'s thread.
    void requestFleet(QObject *replyContext, std::function<void(const QJsonObject &)> reply) override;
    // The fleet link's state; nullopt without a fleet (or while stopped). Thread-safe.
    std::optional<FleetStatus> fleetStatus() const override;

signals:
    // Once a second from the control thread; connect with a queued connection from the GUI.
    void snapshotReady(const sb::MetricsSnapshot &snapshot);
    // Breaker, pool, failover and panic events as they happen, from whichever thread caused them.
    void healthEvent(const sb::HealthEvent &event);
    // applyConfig moved the proxy to a new address ("http://HOST:PORT/v1").
    void listenAddressChanged(const QString &baseUrl);
    // applyConfig could not move the proxy; the old address still serves. A sentence for the user.
    void listenFailed(const QString &message);

private:
    std::unique_ptr<HttpServer> openServer(const ProxyConfig &proxy, QString *error);
    // The running port's certificate from `proxy`'s files (or plain HTTP); false with a sentence,
    // and nothing changed, when they cannot serve.
    bool renewTls(const ProxyConfig &proxy, QString *error);
    void warnIfInClear(const ProxyConfig &proxy) const;
    void deliver(const HealthEvent &event); // to the event log, the operator's log and healthEvent
    void rebind(EngineConfigPtr config);
    void retire(std::unique_ptr<HttpServer> server, std::chrono::milliseconds drain);
    void joinRetired();

    const Clock &m_clock;
    EngineContext m_context;
    EventLog m_events;
    OperatorLog m_operatorLog; // the log's lines for the same events; its timer runs on the control thread
    std::unique_ptr<AdminRoutes> m_adminRoutes; // what the workers hand /admin/* and /metrics to
    mutable std::mutex m_serverMutex; // guards m_server, which a rebind replaces while others read stats
    std::unique_ptr<HttpServer> m_server;
    std::vector<std::thread> m_retiring; // old servers draining after a rebind; owner thread only
    ReloadHandler m_reloadHandler;       // owner thread only
    KeyReenableHandler m_keyReenableHandler; // owner thread only
    QThread *m_controlThread = nullptr;
    std::atomic<ControlLoop *> m_control{nullptr}; // read by workers (probe now, snapshots)
    std::atomic<FleetLink *> m_fleet{nullptr};     // owned by the control loop; read by whoever emits an event
};

// Refuses an address that is not loopback unless a local token is set: anyone who can reach the
// port could otherwise spend the API keys.
bool listenAddressAllowed(const ProxyConfig &proxy, QString *error);

} // namespace sb

Q_DECLARE_METATYPE(sb::HealthEvent)
