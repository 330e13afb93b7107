#include "net/IdlePollWindow.h"

#include <algorithm>

namespace sb {

void IdlePollWindow::caught()
{
    m_lastWaitShort = true;
}

void IdlePollWindow::slept(Duration idle, bool byEvent)
{
    // A timer's deadline comes when it comes: polling longer would not have brought it sooner.
    const bool shortWait = byEvent && idle <= kLongest;
    const bool followsAShortWait = m_lastWaitShort;
    m_lastWaitShort = shortWait;
    if (idle > kLongest) {
        m_window /= 2;
        if (m_window < kFirst)
            m_window = Duration{0};
    } else if (shortWait && followsAShortWait) {
        m_window = std::min(kLongest, std::max(kFirst, m_window * 2));
    }
}

} // namespace sb
