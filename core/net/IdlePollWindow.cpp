#include "net/IdlePollWindow.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace sb {

void IdlePollWindow::waitEnded(bool caughtWhilePolling, Duration idle, bool byEvent)
{
    // A timer's deadline comes when it comes: polling longer would not have brought it sooner.
    const bool shortWait = caughtWhilePolling || (byEvent && idle <= kLongest);
    const bool followsAShortWait = m_lastWaitShort;
    m_lastWaitShort = shortWait;
    if (caughtWhilePolling)
        return;
    if (idle > kLongest) {
        m_window /= 2;
        if (m_window < kFirst)
            m_window = Duration{0};
        return;
    }
    if (shortWait && followsAShortWait)
        m_window = std::min(kLongest, std::max(kFirst, m_window * 2));
}

bool IdlePollWindow::enabledByEnvironment()
{
    const char *setting = std::getenv("SWITCHBOARD_IDLE_POLL");
    return !setting || std::strcmp(setting, "0") != 0;
}

} // namespace sb
