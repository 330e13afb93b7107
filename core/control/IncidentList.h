#pragma once

#include "control/EventLog.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace sb {

// Incidents for GET /admin/incidents, derived from the event log alone: a channel's incident opens
// when its breaker opens, it is ejected, or its route panics onto it, and closes once the breaker is
// closed again and the channel is back in the pool. Failovers away from the channel while it is open
// are counted against it. Deliberately small: the console builds its own richer view (ui/).
struct Incident {
    std::uint64_t id = 0;        // the sequence of the event that opened it
    int channelId = 0;
    QString channelName;
    QString cause;               // the opening event's reason
    std::int64_t openedAtMs = 0; // wall clock
    std::int64_t closedAtMs = 0; // 0 while open
    bool open = true;
    int events = 0;              // events about this channel while it was open, the opening one included
    int failovers = 0;           // requests moved away from it while it was open
    QString breaker = QStringLiteral("closed"); // last known states
    QString pool = QStringLiteral("active");
};

// Newest first.
std::vector<Incident> deriveIncidents(const std::vector<EventLog::Entry> &events);

} // namespace sb
