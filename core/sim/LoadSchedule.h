#pragma once

#include "sim/Scenario.h"

#include <QString>

#include <vector>

namespace sb::sim {

struct PlannedRequest {
    double at = 0.0; // scenario seconds since the start
    QString model;
    bool stream = true;
};

// The load of a drill, planned up front from the seed: arrival times (constant spacing or a Poisson
// process), each with a model from the mix and stream on/off by the ratio. Planning first keeps the
// load identical between two runs of a scenario, whatever the proxy does.
class LoadSchedule {
public:
    static std::vector<PlannedRequest> plan(const LoadSpec &load, Random &random);
};

} // namespace sb::sim
