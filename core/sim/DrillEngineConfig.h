#pragma once

#include "sim/Scenario.h"
#include "model/EngineConfig.h"

#include <QMap>
#include <QString>

#include <memory>

namespace sb::sim {

// The engine configuration a drill runs against when the drill sets the proxy up itself (the
// console's Drills page, the drill tests): one provider and one channel per fake provider, both
// named like the provider (so x-switchboard-channel matches the report's primary_channels), the
// scenario's routes and breaker preset, every other threshold at its default. Ids start above
// `idBase`, so the live engine never mistakes a drill channel for one of the user's (their health
// state is kept by id across applyConfig). `proxy` (listen address, local token) is copied from the
// running configuration: a drill must not move the port.
struct DrillEngineConfigInput {
    const Scenario *scenario = nullptr;
    QMap<QString, QString> baseUrls; // provider name → FakeProvider::baseUrl()
    ProxyConfig proxy;
    int idBase = 0;
};

// Null with a sentence in *error when the scenario's routes name providers without a base URL, or
// the result does not validate.
std::shared_ptr<EngineConfig> drillEngineConfig(const DrillEngineConfigInput &input, QString *error);

// The first id above every id in `config`, rounded up to a thousand (readable in logs).
int drillIdBase(const EngineConfig &config);

} // namespace sb::sim
