#pragma once

#include "control/MetricsSnapshot.h"
#include "model/EngineConfig.h"
#include "telemetry/RequestMetrics.h"

#include <QByteArray>

namespace sb {

// GET /metrics: the engine's state in the Prometheus text format (telemetry/PrometheusExporter).
// Channel and provider labels carry names from the configuration (ids as channel_id), so a
// dashboard survives a renamed channel only by id — both are there.
QByteArray renderPrometheusMetrics(const MetricsSnapshot &snapshot, const RequestMetrics::Snapshot &requests,
                                   const EngineConfig &config);

} // namespace sb
