#pragma once

#include "common/Clock.h"

namespace sb::sim {

// Scenario time: seconds since the scenario started, running `timeScale` times faster than the
// clock (×10: a 300 s scenario takes 30 s). Faults, per-key limits and the report all speak
// scenario seconds; only the network layer converts back to real milliseconds for its timers.
class ScenarioClock {
public:
    ScenarioClock(const Clock &clock, double timeScale);

    void restart();
    double now() const; // scenario seconds since restart()
    double timeScale() const { return m_timeScale; }
    // A scenario duration → the real milliseconds a timer must wait for it.
    double toRealMs(double scenarioMs) const { return scenarioMs / m_timeScale; }
    // Real elapsed milliseconds → scenario milliseconds (what the report shows).
    double toScenarioMs(double realMs) const { return realMs * m_timeScale; }
    const Clock &clock() const { return m_clock; }

private:
    const Clock &m_clock;
    double m_timeScale;
    Clock::TimePoint m_start;
};

} // namespace sb::sim
