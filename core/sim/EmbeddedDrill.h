#pragma once

#include "common/Clock.h"
#include "sim/DrillReport.h"
#include "sim/Scenario.h"
#include "model/EngineConfig.h"

#include <QMetaType>
#include <QObject>

#include <memory>

namespace sb {
class Gateway;
}

namespace sb::sim {

class DrillRunner;

struct DrillProgress {
    double elapsed = 0.0; // scenario seconds since the start
    double total = 0.0;   // the load's duration, scenario seconds
    int sent = 0;
    int succeeded = 0;
    int dropped = 0;
};

// One drill against the embedded engine (the console's Drills page; the drill tests): the scenario's
// fake providers on free loopback ports, a drill configuration applied live to the Gateway (scaled
// by the time scale with scaleEngineConfig), the load sent at the Gateway's own base URL, and the
// configuration that was running before put back when the drill ends or is cancelled. Only the
// Gateway is touched, never a stored configuration. Event-driven on the thread it lives on (the
// console gives it a thread of its own, so the load's work never lands on the GUI thread); the
// Gateway must outlive it.
class EmbeddedDrill : public QObject {
    Q_OBJECT
public:
    EmbeddedDrill(Gateway &gateway, Scenario scenario, double timeScale, QObject *parent = nullptr);
    ~EmbeddedDrill() override;

    const Scenario &scenario() const { return m_scenario; }
    bool isRunning() const { return m_running; }
    // The runner, for tests that read the fake providers' stats (null before start()).
    DrillRunner *runner() const { return m_runner.get(); }
    // The configuration that was running when the drill started, and the drill's own (scaled) one.
    EngineConfigPtr originalConfig() const { return m_original; }
    EngineConfigPtr drillConfig() const { return m_drillConfig; }
    int roundedFields() const { return m_rounded; } // engine fields the scaling had to round up to 1 s
    DrillProgress progress() const;

public slots:
    // Emits started() or failed(sentence); the Gateway is left as it was on failure.
    void start();
    // Ends the drill early; finished(report so far, true) follows. Harmless when not running.
    void cancel();

signals:
    void started();
    void failed(const QString &error);
    void progressed(const sb::sim::DrillProgress &progress); // four times a second while running
    // The load is over and the drill's providers and configuration are still live: the moment to read
    // their stats (tests connect directly). finished() follows once the previous config is back.
    void aboutToRestore();
    void finished(const sb::sim::DrillReport &report, bool cancelled);

private:
    void end(bool cancelled);
    void restore();

    Gateway &m_gateway;
    Scenario m_scenario;
    std::unique_ptr<DrillRunner> m_runner;
    EngineConfigPtr m_original;
    EngineConfigPtr m_drillConfig;
    std::unique_ptr<Timer> m_progressTimer;
    int m_rounded = 0;
    bool m_running = false;
};

} // namespace sb::sim

Q_DECLARE_METATYPE(sb::sim::DrillProgress)
Q_DECLARE_METATYPE(sb::sim::DrillReport)
