#include "net/IdlePollWindow.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace sb {

void IdlePollWindow::waitEnded(bool caughtWhilePolling, Duration idle, bool byEvent)
{
    if (caughtWhilePolling)
        return;
    if (idle > kLongest) {
        m_window /= 2;
        if (m_window < kFirst)
            m_window = Duration{0};
        return;
    }
    // A timer's deadline comes when it comes: polling longer would not have brought it sooner.
    if (byEvent)
        m_window = std::min(kLongest, std::max(kFirst, m_window * 2));
}

bool IdlePollWindow::enabledByEnvironment()
{
    const char *setting = std::getenv("SWITCHBOARD_IDLE_POLL");
    return !setting || std::strcmp(setting, "0") != 0;
}

} // namespace sb
