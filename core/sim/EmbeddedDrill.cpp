#include "sim/EmbeddedDrill.h"

#include "sim/DrillEngineConfig.h"
#include "sim/DrillRunner.h"
#include "sim/EngineTimeScale.h"

#include "control/Gateway.h"

#include <QUrl>

#include <algorithm>

#include <spdlog/spdlog.h>

namespace sb::sim {

EmbeddedDrill::EmbeddedDrill(Gateway &gateway, Scenario scenario, double timeScale, QObject *parent)
    : QObject(parent)
    , m_gateway(gateway)
    , m_scenario(std::move(scenario))
    , m_progressTimer(gateway.context().clock().createTimer([this] { emit progressed(progress()); }, TimerKind::Repeating))
{
    qRegisterMetaType<sb::sim::DrillProgress>();
    qRegisterMetaType<sb::sim::DrillReport>();
    m_scenario.timeScale = timeScale;
    // Fixed ports are for proxies configured by hand (run-drill.sh); here the drill writes the config
    // itself, so any free port will do, and the demo providers on 18401/18402 can keep theirs.
    for (ProviderSpec &p : m_scenario.providers)
        p.port = 0;
}

EmbeddedDrill::~EmbeddedDrill()
{
    if (m_running) {
        m_runner->stopLoad();
        m_runner->stopProviders();
        restore();
    }
}

void EmbeddedDrill::restore()
{
    // A configuration saved while the drill ran is newer than the one the drill replaced: keep it.
    if (m_gateway.config() == m_drillConfig)
        m_gateway.applyConfig(m_original);
    else
        spdlog::warn("drill {}: the configuration changed while the drill ran; keeping the new one", m_scenario.name.toStdString());
}

void EmbeddedDrill::start()
{
    if (m_running || m_runner) {
        emit failed(QStringLiteral("This drill has already run; start a new one."));
        return;
    }
    m_runner = std::make_unique<DrillRunner>(m_scenario);
    QString error;
    if (!m_runner->startProviders(&error)) {
        emit failed(error);
        return;
    }
    m_original = m_gateway.config();
    DrillEngineConfigInput input;
    input.scenario = &m_runner->scenario();
    for (const auto &p : m_runner->providers())
        input.baseUrls.insert(p->spec().name, p->baseUrl());
    input.proxy = m_original->proxy;
    input.idBase = drillIdBase(*m_original);
    auto config = drillEngineConfig(input, &error);
    if (!config) {
        m_runner->stopProviders();
        emit failed(error);
        return;
    }
    m_drillConfig = std::make_shared<const EngineConfig>(scaleEngineConfig(*config, m_scenario.timeScale, &m_rounded));
    m_gateway.applyConfig(m_drillConfig);
    spdlog::info("drill {}: started at x{}, the engine runs the drill configuration until it ends",
                 m_scenario.name.toStdString(), m_scenario.timeScale);

    connect(m_runner.get(), &DrillRunner::finished, this, [this] { end(false); });
    // Over HTTPS the engine's own certificate is trusted, whoever signed it.
    if (!m_runner->startLoad(QUrl(m_gateway.baseUrl()), m_original->proxy.localToken.toUtf8(), &error,
                             m_original->proxy.tlsCertFile.trimmed())) {
        m_runner->stopProviders();
        m_gateway.applyConfig(m_original);
        emit failed(error);
        return;
    }
    m_running = true;
    m_progressTimer->start(std::chrono::milliseconds(250));
    emit started();
}

void EmbeddedDrill::cancel()
{
    if (m_running)
        end(true);
}

void EmbeddedDrill::end(bool cancelled)
{
    m_running = false;
    m_progressTimer->stop();
    if (cancelled)
        m_runner->stopLoad();
    const DrillReport report = m_runner->report();
    const DrillProgress last = progress();
    emit aboutToRestore();
    m_runner->stopProviders();
    restore();
    spdlog::info("drill {}: {}; the previous configuration is back", m_scenario.name.toStdString(),
                 cancelled ? "cancelled" : "finished");
    emit progressed(last);
    emit finished(report, cancelled);
}

DrillProgress EmbeddedDrill::progress() const
{
    DrillProgress p;
    p.total = m_scenario.load.duration;
    if (!m_runner)
        return p;
    p.elapsed = std::min(m_runner->clock().now(), p.total);
    const DrillReport so = m_runner->report();
    p.sent = so.requests;
    p.succeeded = so.succeeded;
    p.dropped = so.dropped;
    return p;
}

} // namespace sb::sim
