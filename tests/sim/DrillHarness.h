#pragma once

#include "sim/DrillReport.h"
#include "sim/EmbeddedDrill.h"
#include "sim/FakeProvider.h"

#include "control/Gateway.h"
#include "control/MetricsSnapshot.h"

#include <QMap>
#include <QString>

#include <functional>
#include <memory>

namespace sb::sim::test {

// What the drill tests read after a shipped drill ran through a real Gateway (EmbeddedDrill, the
// code path of the console's Drills page), captured while the drill's providers and config were live.
struct DrillOutcome {
    DrillReport report;
    QMap<QString, FakeProvider::Stats> providers;      // by provider name
    QMap<QString, std::vector<quint64>> admittedPerKey; // by provider name, keys in scenario order
    QMap<QString, KeyRing::Stats> keyRings;            // the proxy's key ring per provider
    MetricsSnapshot snapshot;                          // the Gateway's, at the end of the load
    EngineConfigPtr drillConfig;
    int roundedFields = 0;
    bool configRestored = false; // the Gateway runs its previous config again afterwards
    QString error;               // set when the drill could not start or did not finish
};

// Loads resources/drills/<name>.json, starts a Gateway on 127.0.0.1:0 and runs the drill at `timeScale`.
DrillOutcome runShippedDrill(const QString &name, double timeScale);

} // namespace sb::sim::test
