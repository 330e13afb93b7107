#pragma once

#include "control/FleetStatus.h"
#include "control/MetricsSnapshot.h"
#include "model/EngineConfig.h"
#include "telemetry/RequestMetrics.h"

#include <QByteArray>

#include <optional>

namespace sb {

// GET /metrics: the engine's state in the Prometheus text format (telemetry/PrometheusExporter).
// Channel and provider labels carry names from the configuration (ids as channel_id), so a
// dashboard survives a renamed channel only by id — both are there.
// An instance of a fleet (`fleet` set) labels every sample with instance_id (not "instance", which
// Prometheus sets itself to the scraped address) and adds the switchboard_fleet_* families.
QByteArray renderPrometheusMetrics(const MetricsSnapshot &snapshot, const RequestMetrics::Snapshot &requests,
                                   const EngineConfig &config, const std::optional<FleetStatus> &fleet = std::nullopt);

} // namespace sb
