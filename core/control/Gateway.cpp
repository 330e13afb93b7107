#include "control/Gateway.h"

#include "control/AdapterProbeTransport.h"
#include "control/AdminApi.h"
#include "control/FleetLink.h"
#include "proxy/ProxyHandler.h"
#include "health/HeartbeatProber.h"
#include "net/HttpServer.h"
#include "net/TlsServerContext.h"
#include "net/TlsTrust.h"

#include <QHostAddress>
#include <QPointer>
#include <QThread>

#include <set>

#include <spdlog/spdlog.h>

namespace sb {

// Lives on the control thread: the 1-second heartbeat of the engine.
class ControlLoop : public QObject {
public:
    ControlLoop(Gateway &gateway, EngineContext &context, OperatorLog &operatorLog)
        : m_gateway(gateway), m_context(context), m_operatorLog(operatorLog) {}

    // With a fleet configured, this instance joins it (FleetLink); the link lives here, on the
    // control thread, with the rest of the engine's housekeeping.
    void begin(std::unique_ptr<FleetLink> fleet)
    {
        m_fleet = std::move(fleet);
        if (m_fleet)
            m_fleet->start();
        m_transport = std::make_unique<AdapterProbeTransport>(m_context);
        m_prober = std::make_unique<HeartbeatProber>(m_context.clock(), m_context.router().pool(), *m_transport,
                                                     m_context.config()->probe);
        m_context.router().setProber(m_prober.get());
        m_timer = m_context.clock().createTimer([this] { tick(); }, TimerKind::Repeating);
        m_timer->start(std::chrono::seconds(1));
        m_operatorLog.start();
    }

    void end()
    {
        if (m_timer)
            m_timer->stop();
        m_operatorLog.stop();
        if (m_fleet)
            m_fleet->stop();
        m_context.router().setProber(nullptr);
        m_prober.reset();
        m_transport.reset();
    }

    void setProbeConfig(const ProbeConfig &config)
    {
        if (m_prober)
            m_prober->setConfig(config);
    }

    HeartbeatProber::Stats proberStats() const { return m_prober ? m_prober->stats() : HeartbeatProber::Stats{}; }

    // "Probe now" from the console or the admin API: the same transport and the same bookkeeping
    // on the channel as a heartbeat, outside the prober's schedule (which skips drained channels,
    // exactly the ones an operator wants to check before re-admitting them).
    void probeNow(int channelId)
    {
        if (!m_transport || !m_probing.insert(channelId).second)
            return;
        {
            std::lock_guard lock(m_statsMutex);
            ++m_manual.started;
        }
        const auto timeout = Clock::Duration(m_context.config()->probe.timeout);
        QPointer<ControlLoop> self(this);
        m_transport->startProbe(channelId, timeout, [this, self, channelId](bool ok, Clock::Duration latency, const QString &) {
            // The transport reports on this thread; the loop may have ended meanwhile.
            if (!self)
                return;
            m_probing.erase(channelId);
            {
                std::lock_guard lock(m_statsMutex);
                ++(ok ? m_manual.succeeded : m_manual.failed);
            }
            if (auto channel = m_context.router().pool().channel(channelId))
                channel->recordProbe(ok, latency);
            emit m_gateway.snapshotReady(m_gateway.snapshot());
        });
    }

    bool isProbing(int channelId) const { return m_probing.count(channelId) != 0; }

    FleetLink *fleet() const { return m_fleet.get(); }
    void configChanged()
    {
        if (m_fleet)
            m_fleet->configChanged();
    }

    Gateway::ManualProbeStats manualStats() const
    {
        std::lock_guard lock(m_statsMutex);
        return m_manual;
    }

private:
    void tick()
    {
        m_context.router().tick();
        if (m_prober)
            m_prober->tick();
        emit m_gateway.snapshotReady(m_gateway.snapshot());
    }

    Gateway &m_gateway;
    EngineContext &m_context;
    OperatorLog &m_operatorLog;
    std::unique_ptr<AdapterProbeTransport> m_transport;
    std::unique_ptr<HeartbeatProber> m_prober;
    std::unique_ptr<Timer> m_timer;
    std::unique_ptr<FleetLink> m_fleet;
    std::set<int> m_probing; // control thread only
    mutable std::mutex m_statsMutex;
    Gateway::ManualProbeStats m_manual;
};

// The CA bundles the configuration's enabled HTTPS providers verify against ("" for the system's),
// and a warning for each one that verifies nothing. The bundles are parsed on the control thread,
// so the first connection a worker opens to a provider finds its store ready (TlsTrust).
void prepareTls(const EngineConfig &config, QObject *controlThreadObject)
{
    QStringList bundles;
    for (const ProviderConfig &p : config.providers) {
        if (!p.enabled)
            continue;
        if (p.tlsSkipVerify) {
            spdlog::warn("provider \"{}\": TLS verification is off (tls_skip_verify); its certificate and host name are not checked, "
                         "so anyone on the path could read its keys and answers", p.name.toStdString());
            continue;
        }
        if (!p.baseUrl.trimmed().startsWith(QLatin1String("https:"), Qt::CaseInsensitive) && p.caBundle.isEmpty())
            continue;
        if (!bundles.contains(p.caBundle))
            bundles << p.caBundle;
    }
    if (!bundles.isEmpty() && controlThreadObject)
        QMetaObject::invokeMethod(controlThreadObject, [bundles] { TlsTrust::preload(bundles); });
}

bool listenAddressAllowed(const ProxyConfig &proxy, QString *error)
{
    const QHostAddress address(proxy.listenHost == QLatin1String("localhost") ? QStringLiteral("127.0.0.1") : proxy.listenHost);
    if (address.isNull()) {
        *error = QStringLiteral("The listen address \"%1\" is not an IP address; use e.g. 127.0.0.1.").arg(proxy.listenHost);
        return false;
    }
    // A token that is set but unreadable refuses every request, so the address is safe to keep.
    if (!address.isLoopback() && proxy.localToken.isEmpty() && proxy.localTokenUnreadable.isEmpty()) {
        *error = QStringLiteral("Refusing to listen on %1 without a local token: anyone on the network could spend your API keys. "
                                "Set a local token in Settings (or --config), or listen on 127.0.0.1.")
                     .arg(proxy.listenHost);
        return false;
    }
    return true;
}

namespace {

// The certificate the proxy port serves with as `proxy` names it: null for plain HTTP; false with
// a sentence when the files cannot serve.
bool proxyTls(const ProxyConfig &proxy, std::shared_ptr<const TlsServerContext> *tls, QString *error)
{
    tls->reset();
    if (!proxy.servesTls())
        return true;
    QString why;
    *tls = TlsServerContext::load(proxy.tlsCertFile.trimmed(), proxy.tlsKeyFile.trimmed(), &why);
    if (!*tls)
        *error = QStringLiteral("Cannot serve HTTPS on the proxy port: %1").arg(why);
    return *tls != nullptr;
}

} // namespace

Gateway::Gateway(const Clock &clock, Random &random, EngineConfigPtr config, QObject *parent)
    : QObject(parent), m_clock(clock), m_context(clock, random, std::move(config)), m_operatorLog(clock)
{
    qRegisterMetaType<sb::MetricsSnapshot>();
    qRegisterMetaType<sb::HealthEvent>();
    m_adminRoutes = std::make_unique<AdminRoutes>(m_context, *this);
    m_context.router().setEventSink([this](const HealthEvent &event) {
        if (FleetLink *fleet = m_fleet.load()) {
            fleet->noteLocal(event);
            if (fleet->holdBudgetAlert(event, [this](const HealthEvent &e) { deliver(e); }))
                return;
        }
        deliver(event);
    });
}

void Gateway::deliver(const HealthEvent &event)
{
    m_events.append(event);
    m_operatorLog.note(event);
    emit healthEvent(event);
}

Gateway::~Gateway()
{
    stop(std::chrono::milliseconds(0));
    m_context.router().setEventSink({});
}

std::unique_ptr<HttpServer> Gateway::openServer(const ProxyConfig &proxy, QString *error)
{
    if (!listenAddressAllowed(proxy, error))
        return nullptr;
    std::shared_ptr<const TlsServerContext> tls;
    if (!proxyTls(proxy, &tls, error))
        return nullptr;
    HttpServerLimits limits;
    limits.maxBodyBytes = proxy.maxBodyBytes;
    limits.maxHeaderBytes = proxy.maxHeaderBytes;
    limits.idleTimeout = proxy.idleTimeout;
    auto server = std::make_unique<HttpServer>(
        limits, [this](int workerIndex) { return std::make_unique<ProxyHandler>(m_context, workerIndex, m_adminRoutes.get()); });
    server->setTls(std::move(tls));
    const QString host = proxy.listenHost == QLatin1String("localhost") ? QStringLiteral("127.0.0.1") : proxy.listenHost;
    QString listenError;
    if (!server->listen(QHostAddress(host), static_cast<quint16>(proxy.listenPort), &listenError)) {
        *error = QStringLiteral("Cannot open the proxy port %1:%2 (%3). Is another Switchboard running? Choose another port with --listen.")
                     .arg(host)
                     .arg(proxy.listenPort)
                     .arg(listenError);
        return nullptr;
    }
    return server;
}

bool Gateway::start(QString *error)
{
    if (m_server)
        return true;
    auto server = openServer(m_context.config()->proxy, error);
    if (!server)
        return false;
    {
        std::lock_guard lock(m_serverMutex);
        m_server = std::move(server);
    }

    m_controlThread = new QThread;
    m_controlThread->setObjectName(QStringLiteral("sb-control"));
    auto *control = new ControlLoop(*this, m_context, m_operatorLog);
    control->moveToThread(m_controlThread);
    m_controlThread->start();
    const FleetConfig fleet = m_context.config()->fleet;
    const QString instance = fleet.instanceId.trimmed().isEmpty() ? FleetLink::defaultInstanceId(port()) : fleet.instanceId.trimmed();
    FleetLink *link = nullptr;
    // The link and its connections are made on the control thread, whose event loop runs them.
    QMetaObject::invokeMethod(
        control,
        [this, control, &fleet, &instance, &link] {
            std::unique_ptr<FleetLink> made;
            if (fleet.enabled())
                made = std::make_unique<FleetLink>(m_context, fleet, instance, [this](const HealthEvent &e) { deliver(e); });
            link = made.get();
            control->begin(std::move(made));
        },
        Qt::BlockingQueuedConnection);
    m_control = control;
    m_fleet = link;
    prepareTls(*m_context.config(), control);
    spdlog::info("proxy listening on {}", baseUrl().toStdString());
    warnIfInClear(m_context.config()->proxy);
    return true;
}

void Gateway::warnIfInClear(const ProxyConfig &proxy) const
{
    const QHostAddress address(proxy.listenHost == QLatin1String("localhost") ? QStringLiteral("127.0.0.1") : proxy.listenHost);
    if (address.isLoopback() || proxy.servesTls())
        return;
    spdlog::warn("the proxy port on {} speaks plain HTTP: the local token, prompts and answers cross the network in clear; "
                 "set proxy.tls_cert_file and proxy.tls_key_file to serve HTTPS",
                 proxy.listenHost.toStdString());
}

bool Gateway::renewTls(const ProxyConfig &proxy, QString *error)
{
    std::shared_ptr<const TlsServerContext> tls;
    if (!proxyTls(proxy, &tls, error))
        return false;
    std::lock_guard lock(m_serverMutex);
    if (m_server)
        m_server->setTls(std::move(tls));
    return true;
}

std::optional<TlsCertificateInfo> Gateway::tlsCertificate() const
{
    std::lock_guard lock(m_serverMutex);
    const auto tls = m_server ? m_server->tls() : nullptr;
    return tls ? std::optional(tls->certificate()) : std::nullopt;
}

void Gateway::stop(std::chrono::milliseconds drain)
{
    // The port first: admin requests still in flight may call into the control loop, and the
    // health bookkeeping keeps running while the last streams drain.
    std::unique_ptr<HttpServer> server;
    {
        std::lock_guard lock(m_serverMutex);
        server = std::move(m_server);
    }
    if (server)
        server->shutdown(drain);
    joinRetired();
    m_fleet = nullptr;
    if (ControlLoop *control = m_control.exchange(nullptr)) {
        QMetaObject::invokeMethod(control, [control] { control->end(); }, Qt::BlockingQueuedConnection);
        QMetaObject::invokeMethod(control, [control] { delete control; }, Qt::BlockingQueuedConnection);
        m_controlThread->quit();
        m_controlThread->wait();
        delete m_controlThread;
        m_controlThread = nullptr;
    }
}

void Gateway::retire(std::unique_ptr<HttpServer> server, std::chrono::milliseconds drain)
{
    // shutdown() blocks until the old connections are done; the owner (the GUI thread) must not.
    m_retiring.emplace_back([server = std::move(server), drain]() mutable {
        server->shutdown(drain);
        server.reset();
    });
}

void Gateway::joinRetired()
{
    for (std::thread &thread : m_retiring)
        thread.join();
    m_retiring.clear();
}

void Gateway::applyConfig(EngineConfigPtr config)
{
    const EngineConfigPtr current = m_context.config();
    bool rebound = false;
    const bool moved = config->proxy.listenHost != current->proxy.listenHost || config->proxy.listenPort != current->proxy.listenPort;
    if (moved && m_server) {
        QString error;
        auto server = openServer(config->proxy, &error);
        if (!server) {
            spdlog::warn("proxy stays on {}: {}", baseUrl().toStdString(), error.toStdString());
            // Everything else in the new configuration still applies; only the address stays.
            auto kept = std::make_shared<EngineConfig>(*config);
            kept->proxy.listenHost = current->proxy.listenHost;
            kept->proxy.listenPort = current->proxy.listenPort;
            kept->proxy.tlsCertFile = current->proxy.tlsCertFile;
            kept->proxy.tlsKeyFile = current->proxy.tlsKeyFile;
            config = std::move(kept);
            emit listenFailed(QStringLiteral("%1 The proxy keeps listening on %2.").arg(error, baseUrl()));
        } else {
            std::unique_ptr<HttpServer> old;
            {
                std::lock_guard lock(m_serverMutex);
                old = std::exchange(m_server, std::move(server));
            }
            retire(std::move(old), current->proxy.drainTimeout);
            rebound = true;
        }
    }
    const bool wasHttps = current->proxy.servesTls();
    // The certificate is read again on every apply, so a renewed one at the same paths (a reload
    // after certbot ran) serves new connections; those open keep the one they began with.
    if (!rebound && m_server && (config->proxy.servesTls() || wasHttps)) {
        QString error;
        if (!renewTls(config->proxy, &error)) {
            spdlog::warn("{}", error.toStdString());
            auto kept = std::make_shared<EngineConfig>(*config);
            kept->proxy.tlsCertFile = current->proxy.tlsCertFile;
            kept->proxy.tlsKeyFile = current->proxy.tlsKeyFile;
            config = std::move(kept);
            emit listenFailed(QStringLiteral("%1 The proxy keeps serving %2 as before.").arg(error, wasHttps ? QStringLiteral("HTTPS") : QStringLiteral("plain HTTP")));
        }
    }
    const bool schemeChanged = config->proxy.servesTls() != wasHttps;
    const ProbeConfig probe = config->probe;
    prepareTls(*config, m_control.load());
    m_context.setConfig(std::move(config));
    if (ControlLoop *control = m_control)
        QMetaObject::invokeMethod(control, [control, probe] {
            control->setProbeConfig(probe);
            control->configChanged();
        });
    if (rebound || schemeChanged) {
        spdlog::info("proxy moved to {}", baseUrl().toStdString());
        emit listenAddressChanged(baseUrl());
    }
}

quint16 Gateway::port() const
{
    std::lock_guard lock(m_serverMutex);
    return m_server ? m_server->serverPort() : 0;
}

bool Gateway::probeNow(int channelId)
{
    ControlLoop *control = m_control;
    if (!control || !m_context.router().pool().channel(channelId))
        return false;
    bool accepted = false;
    // Blocking so the caller learns whether it started; the control thread never waits on anyone.
    QMetaObject::invokeMethod(
        control,
        [control, channelId, &accepted] {
            accepted = !control->isProbing(channelId);
            control->probeNow(channelId);
        },
        QThread::currentThread() == m_controlThread ? Qt::DirectConnection : Qt::BlockingQueuedConnection);
    return accepted;
}

Gateway::ManualProbeStats Gateway::manualProbeStats() const
{
    const ControlLoop *control = m_control;
    return control ? control->manualStats() : ManualProbeStats{};
}

void Gateway::setReloadHandler(ReloadHandler handler)
{
    m_reloadHandler = std::move(handler);
}

void Gateway::requestReload(QObject *replyContext, std::function<void(bool, const QString &)> reply)
{
    QPointer<QObject> context(replyContext);
    QMetaObject::invokeMethod(this, [this, context, reply = std::move(reply)] {
        QString message;
        bool ok = false;
        if (!m_reloadHandler)
            message = QStringLiteral("This instance has no stored configuration to reload (it was started without one).");
        else
            ok = m_reloadHandler(&message);
        if (context)
            QMetaObject::invokeMethod(context, [context, reply, ok, message] {
                if (context)
                    reply(ok, message);
            });
    });
}

void Gateway::setKeyReenableHandler(KeyReenableHandler handler)
{
    m_keyReenableHandler = std::move(handler);
}

void Gateway::requestKeyReenable(int keyId, QObject *replyContext, std::function<void(bool, const QString &)> reply)
{
    QPointer<QObject> context(replyContext);
    QMetaObject::invokeMethod(this, [this, keyId, context, reply = std::move(reply)] {
        QString message;
        bool ok = false;
        if (!m_keyReenableHandler)
            message = QStringLiteral("This instance runs on a configuration it cannot change (a --config file or none); edit the key there.");
        else
            ok = m_keyReenableHandler(keyId, &message);
        if (context)
            QMetaObject::invokeMethod(context, [context, reply, ok, message] {
                if (context)
                    reply(ok, message);
            });
    });
}

void Gateway::requestFleet(QObject *replyContext, std::function<void(const QJsonObject &)> reply)
{
    QPointer<QObject> context(replyContext);
    auto answer = [context, reply = std::move(reply)](const QJsonObject &body) {
        if (context)
            QMetaObject::invokeMethod(context, [context, reply, body] {
                if (context)
                    reply(body);
            });
    };
    ControlLoop *control = m_control;
    if (!control) {
        answer(QJsonObject{{QStringLiteral("configured"), false}});
        return;
    }
    QMetaObject::invokeMethod(control, [control, answer] {
        if (FleetLink *fleet = control->fleet())
            fleet->describe([answer](QJsonObject body) {
                body.insert(QStringLiteral("configured"), true);
                answer(body);
            });
        else
            answer(QJsonObject{{QStringLiteral("configured"), false}});
    });
}

std::optional<FleetStatus> Gateway::fleetStatus() const
{
    if (const FleetLink *fleet = m_fleet.load())
        return fleet->status();
    return std::nullopt;
}

QString Gateway::baseUrl() const
{
    const auto config = m_context.config();
    return QStringLiteral("%1://%2:%3/v1")
        .arg(config->proxy.servesTls() ? QStringLiteral("https") : QStringLiteral("http"), config->proxy.listenHost)
        .arg(port() ? port() : config->proxy.listenPort);
}

MetricsSnapshot Gateway::snapshot() const
{
    const EngineContext &context = m_context;
    MetricsSnapshot s;
    s.wallMillis = m_clock.wallMillis();
    s.channels = context.router().snapshots();
    const GatewayCounters &c = context.counters();
    s.requests = c.requests.load(std::memory_order_relaxed);
    s.succeeded = c.succeeded.load(std::memory_order_relaxed);
    s.failed = c.failed.load(std::memory_order_relaxed);
    s.midStream = c.midStream.load(std::memory_order_relaxed);
    s.cancelled = c.cancelled.load(std::memory_order_relaxed);
    s.failovers = c.failovers.load(std::memory_order_relaxed);
    s.attempts = c.attempts.load(std::memory_order_relaxed);
    s.retryBudgetRefusals = c.retryBudgetRefusals.load(std::memory_order_relaxed);
    s.inFlight = c.inFlight.load(std::memory_order_relaxed);
    s.inputTokens = c.inputTokens.load(std::memory_order_relaxed);
    s.outputTokens = c.outputTokens.load(std::memory_order_relaxed);
    const CostMeter::Stats cost = context.costMeter().stats(s.wallMillis);
    s.costTodayUsd = cost.todayUsd;
    s.unpricedToday = cost.unpricedToday;
    s.routeSpend = context.costMeter().routeSpend(*context.config(), s.wallMillis);

    const Clock::TimePoint now = m_clock.now();
    const WindowSnapshot last10s = context.clientWindow().counts(now, std::chrono::seconds(10));
    s.requestsPerSecond = double(last10s.calls) / 10.0;
    const WindowSnapshot last5m = context.clientWindow().counts(now, std::chrono::seconds(300));
    s.answered5m = last5m.calls;
    s.availability5m = last5m.calls ? double(last5m.count(OutcomeKind::Success)) / double(last5m.calls) : 1.0;
    const WindowSnapshot lastMinute = context.clientWindow().snapshot(now, std::chrono::seconds(60));
    s.ttftP50Ms = lastMinute.ttftP50Ms;
    s.ttftP95Ms = lastMinute.ttftP95Ms;
    s.latencyP50Ms = lastMinute.latencyP50Ms;
    s.latencyP95Ms = lastMinute.latencyP95Ms;

    s.router = context.router().stats();
    s.retryBudget = context.retryBudget().stats();
    {
        std::lock_guard lock(m_serverMutex);
        if (m_server)
            s.server = m_server->stats();
    }
    if (const ControlLoop *control = m_control)
        s.prober = control->proberStats();
    return s;
}

} // namespace sb
