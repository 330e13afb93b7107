#include "engine/Gateway.h"

#include "engine/AdapterProbeTransport.h"
#include "engine/ProxyHandler.h"
#include "health/HeartbeatProber.h"
#include "net/HttpServer.h"

#include <QHostAddress>
#include <QThread>
#include <QTimer>

#include <spdlog/spdlog.h>

namespace sb {

// Lives on the control thread: the 1-second heartbeat of the engine.
class ControlLoop : public QObject {
public:
    ControlLoop(Gateway &gateway, EngineContext &context) : m_gateway(gateway), m_context(context) {}

    void begin()
    {
        m_transport = std::make_unique<AdapterProbeTransport>(m_context);
        m_prober = std::make_unique<HeartbeatProber>(m_context.clock(), m_context.router().pool(), *m_transport,
                                                     m_context.config()->probe);
        m_context.router().setProber(m_prober.get());
        m_timer = new QTimer(this);
        m_timer->setTimerType(Qt::PreciseTimer);
        connect(m_timer, &QTimer::timeout, this, [this] { tick(); });
        m_timer->start(1000);
    }

    void end()
    {
        if (m_timer)
            m_timer->stop();
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
    std::unique_ptr<AdapterProbeTransport> m_transport;
    std::unique_ptr<HeartbeatProber> m_prober;
    QTimer *m_timer = nullptr;
};

bool listenAddressAllowed(const ProxyConfig &proxy, QString *error)
{
    const QHostAddress address(proxy.listenHost == QLatin1String("localhost") ? QStringLiteral("127.0.0.1") : proxy.listenHost);
    if (address.isNull()) {
        *error = QStringLiteral("The listen address \"%1\" is not an IP address; use e.g. 127.0.0.1.").arg(proxy.listenHost);
        return false;
    }
    if (!address.isLoopback() && proxy.localToken.isEmpty()) {
        *error = QStringLiteral("Refusing to listen on %1 without a local token: anyone on the network could spend your API keys. "
                                "Set a local token in Settings (or --config), or listen on 127.0.0.1.")
                     .arg(proxy.listenHost);
        return false;
    }
    return true;
}

Gateway::Gateway(const Clock &clock, Random &random, EngineConfigPtr config, QObject *parent)
    : QObject(parent), m_clock(clock), m_context(clock, random, std::move(config))
{
    qRegisterMetaType<sb::MetricsSnapshot>();
    qRegisterMetaType<sb::HealthEvent>();
    m_context.router().setEventSink([this](const HealthEvent &event) { emit healthEvent(event); });
}

Gateway::~Gateway()
{
    stop(std::chrono::milliseconds(0));
    m_context.router().setEventSink({});
}

bool Gateway::start(QString *error)
{
    if (m_server)
        return true;
    const EngineConfigPtr config = m_context.config();
    if (!listenAddressAllowed(config->proxy, error))
        return false;

    HttpServerLimits limits;
    limits.maxBodyBytes = config->proxy.maxBodyBytes;
    limits.maxHeaderBytes = config->proxy.maxHeaderBytes;
    limits.idleTimeout = config->proxy.idleTimeout;
    auto server = std::make_unique<HttpServer>(
        limits, [this](int workerIndex) { return std::make_unique<ProxyHandler>(m_context, workerIndex); });
    const QString host = config->proxy.listenHost == QLatin1String("localhost") ? QStringLiteral("127.0.0.1") : config->proxy.listenHost;
    QString listenError;
    if (!server->listen(QHostAddress(host), static_cast<quint16>(config->proxy.listenPort), &listenError)) {
        *error = QStringLiteral("Cannot open the proxy port %1:%2 (%3). Is another Switchboard running? Choose another port with --listen.")
                     .arg(host)
                     .arg(config->proxy.listenPort)
                     .arg(listenError);
        return false;
    }
    m_server = std::move(server);

    m_controlThread = new QThread;
    m_controlThread->setObjectName(QStringLiteral("sb-control"));
    m_control = new ControlLoop(*this, m_context);
    m_control->moveToThread(m_controlThread);
    m_controlThread->start();
    QMetaObject::invokeMethod(m_control, [control = m_control] { control->begin(); }, Qt::BlockingQueuedConnection);
    spdlog::info("proxy listening on {}", baseUrl().toStdString());
    return true;
}

void Gateway::stop(std::chrono::milliseconds drain)
{
    if (m_control) {
        QMetaObject::invokeMethod(m_control, [control = m_control] { control->end(); }, Qt::BlockingQueuedConnection);
        QMetaObject::invokeMethod(m_control, [control = m_control] { delete control; }, Qt::BlockingQueuedConnection);
        m_control = nullptr;
        m_controlThread->quit();
        m_controlThread->wait();
        delete m_controlThread;
        m_controlThread = nullptr;
    }
    if (m_server) {
        m_server->shutdown(drain);
        m_server.reset();
    }
}

void Gateway::applyConfig(EngineConfigPtr config)
{
    const ProbeConfig probe = config->probe;
    m_context.setConfig(std::move(config));
    if (m_control)
        QMetaObject::invokeMethod(m_control, [control = m_control, probe] { control->setProbeConfig(probe); });
}

quint16 Gateway::port() const
{
    return m_server ? m_server->serverPort() : 0;
}

QString Gateway::baseUrl() const
{
    const auto config = m_context.config();
    return QStringLiteral("http://%1:%2/v1").arg(config->proxy.listenHost).arg(port() ? port() : config->proxy.listenPort);
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
    if (m_server)
        s.server = m_server->stats();
    if (m_control)
        s.prober = m_control->proberStats();
    return s;
}

} // namespace sb
