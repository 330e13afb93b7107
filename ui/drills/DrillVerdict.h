#pragma once

#include "sim/DrillReport.h"
#include "sim/Scenario.h"
#include "model/EngineConfig.h"

#include <QString>

#include <optional>
#include <vector>

namespace sb {

// One line of a drill's report as the Drills page shows it: the figure, the target next to it and
// whether the drill met it. `pass` is empty for figures without a target.
struct DrillFigure {
    QString name;
    QString value;
    QString target;
    std::optional<bool> pass;
};

// The report's figures against their targets (ARCHITECTURE.md, "Defaults and why", launch-day drill):
//   success rate ≥ 99.5 %; TTFT p95 < 1 s (the SLA); failovers ≤ 10 % of requests (no storm);
//   time to full failover ≤ 1 s after the outage began; time to recovery ≤ the breaker's open
//   duration plus three heartbeat intervals after it ended (the primary is back once half-open trials
//   and probes have seen it answer). Times are scenario times; `config` is the drill's unscaled
//   engine config (open duration, probe interval), null when not known.
std::vector<DrillFigure> drillFigures(const sim::DrillReport &report, const EngineConfig *config);

// All targets met (figures without a target do not count).
bool drillPassed(const std::vector<DrillFigure> &figures);

} // namespace sb
