#pragma once

#include "common/Clock.h"
#include "fleet/FleetChange.h"
#include "health/HealthEvent.h"
#include "model/EngineConfig.h"

#include <optional>

namespace sb {

class Router;

// What of this instance's health the fleet shares, and how another instance's change is taken in.
// Shared: a circuit that opens (with its deadline) or closes, a channel ejected, drained or
// re-admitted, a key cooling down (with its end) or disabled. Local: HALF_OPEN (the trials are
// coordinated by lease, FleetLink), degradation (a weight, each instance's own), misconfiguration,
// failovers, panics, buckets, budgets. Channels and providers travel by name, keys by fingerprint.

// The change a local event means to the fleet; nullopt for what stays local, for an event that was
// itself adopted from the fleet (no echo), and for a key the configuration no longer has.
std::optional<FleetChange> fleetChangeFor(const HealthEvent &event, const EngineConfig &config, Router &router,
                                          const QString &instance, const Clock &clock);

// Applies another instance's change here; true when something changed. A change about a channel,
// provider or key this configuration does not have is ignored (instances mid-reload differ).
bool adoptFleetChange(const FleetChange &change, const EngineConfig &config, Router &router, const Clock &clock);

} // namespace sb
