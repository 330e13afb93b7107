#pragma once

#include "common/Random.h"

#include <QString>

#include <memory>
#include <vector>

namespace sb::sim {
class FakeProvider;
class ScenarioClock;
}

// The built-in simulator behind the demo configuration: the launch-day scenario's two providers
// (ports 18401 and 18402), healthy, in this process, so a first start works with no API keys.
// Faults are for drills; the demo providers play none.
class DemoProviders {
public:
    DemoProviders();
    ~DemoProviders();

    // False with a sentence when a port is taken (another Switchboard or simulator running).
    bool start(QString *error);
    void stop();

private:
    sb::SplitMixRandom m_random;
    std::unique_ptr<sb::sim::ScenarioClock> m_clock;
    std::vector<std::unique_ptr<sb::sim::FakeProvider>> m_providers;
};
