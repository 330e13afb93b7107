#pragma once

#include "model/EngineConfig.h"

namespace sb::sim {

// The engine's windows, timeouts and backoffs divided by the drill's time-scale factor, so a ×10
// drill sees the same behaviour per scenario second as the full-length one.
// Fields the config keeps in whole seconds cannot go below 1 s; `roundedFields` (if given) counts
// how many had to be rounded, so a report can say the scaling was not exact.
EngineConfig scaleEngineConfig(const EngineConfig &config, double factor, int *roundedFields = nullptr);

} // namespace sb::sim
