#pragma once

#include "model/EngineConfig.h"

namespace sb {

// The configuration seeded into an empty database on first start: two providers on
// the built-in simulator's launch-day ports, so the console works with no API keys at all. It is
// marked demo = true and the console labels it as such.
class DemoConfig {
public:
    static constexpr int PrimaryPort = 18401;  // switchboard-sim launch-day primary
    static constexpr int FallbackPort = 18402; // … and its fallback
    static EngineConfig build();
};

} // namespace sb
