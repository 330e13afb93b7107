#include "sim/ScenarioClock.h"

namespace sb::sim {

ScenarioClock::ScenarioClock(const Clock &clock, double timeScale)
    : m_clock(clock), m_timeScale(timeScale > 0 ? timeScale : 1.0), m_start(clock.now())
{
}

void ScenarioClock::restart()
{
    m_start = m_clock.now();
}

double ScenarioClock::now() const
{
    return toSeconds(m_clock.now() - m_start) * m_timeScale;
}

} // namespace sb::sim
