#pragma once

#include "telemetry/HistoryRecords.h"

#include <QString>

#include <map>
#include <vector>

namespace sb {

// One stretch of trouble on one channel: from its first bad transition (circuit
// open or half-open, ejected or drained, degraded) until it is healthy again (circuit closed and
// back in the pool). A channel that recovers and fails again within the merge gap stays one
// incident: flapping is one story, not ten. The one definition of an incident: the console's
// Incidents page, its history and GET /admin/incidents all count with it.
struct Incident {
    int channelId = 0;
    QString channelName;
    qint64 startMs = 0;
    qint64 endMs = -1;          // -1 while it is still open
    QString worstState;         // "open", "half_open", "ejected", "drained", "degraded"
    int transitions = 0;        // bad transitions inside it (re-trips of a flapping channel count)
    QString cause;              // the message of the transition that opened it
    QString breaker = QStringLiteral("closed"); // the channel's last known states
    QString pool = QStringLiteral("active");
    std::vector<EventRecord> events; // the channel's events inside it, oldest first
    // From the request history, filled in afterwards (-1: not counted yet).
    qint64 affectedRequests = -1;    // requests with an attempt on the channel during the incident
    qint64 failedRequests = -1;      // … that the client saw fail
    qint64 failovers = -1;           // … that were answered by another channel

    bool isOpen() const { return endMs < 0; }
    qint64 durationMs(qint64 nowMs) const { return (isOpen() ? nowMs : endMs) - startMs; }
};

// Pure grouping logic: events in, incidents out. No database, no clock.
class IncidentBuilder {
public:
    struct Options {
        qint64 mergeGapMs = 60'000; // a re-trip within a minute of recovery continues the incident
    };

    IncidentBuilder();
    explicit IncidentBuilder(Options options);

    // Events in any order and of any kind (failovers, key and config events are context only).
    // Names come from `names` (channel id -> name), else from the event message, else "#id".
    // Incidents come newest first.
    std::vector<Incident> build(std::vector<EventRecord> events, const std::map<int, QString> &names = {}) const;

    // 0 for healthy states; a higher number is worse (used for worstState).
    static int severity(const QString &state);

private:
    Options m_options;
};

} // namespace sb
