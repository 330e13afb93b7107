#pragma once

#include "health/HealthEvent.h"
#include "telemetry/HistoryRecords.h"

namespace sb {

// A health event as the history stores it (kind, states and a sentence). Shared by the embedded
// engine's history writer and the attached console's Incidents page, which builds its incidents
// from a remote instance's events without a database: both must group and word them the same way.
EventRecord toEventRecord(const HealthEvent &event);

} // namespace sb
