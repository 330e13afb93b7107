#include "control/IncidentList.h"

#include <algorithm>
#include <map>

namespace sb {

namespace {

struct ChannelState {
    QString breaker = QStringLiteral("closed");
    QString pool = QStringLiteral("active");
    int openIncident = -1; // index into the result, -1 when none is open
};

bool outOfPool(const QString &pool)
{
    return pool == QLatin1String("ejected");
}

} // namespace

std::vector<Incident> deriveIncidents(const std::vector<EventLog::Entry> &events)
{
    std::vector<Incident> incidents;
    std::map<int, ChannelState> channels;
    for (const EventLog::Entry &entry : events) {
        const HealthEvent &e = entry.event;
        if (e.type == HealthEvent::Type::Failover) {
            // Failovers belong to the channel that was left.
            auto it = channels.find(e.fromChannelId);
            if (it != channels.end() && it->second.openIncident >= 0) {
                ++incidents[static_cast<std::size_t>(it->second.openIncident)].failovers;
                ++incidents[static_cast<std::size_t>(it->second.openIncident)].events;
            }
            continue;
        }
        if (e.channelId == 0)
            continue; // provider- and route-level events (keys, buckets, budgets) are not a channel's incident
        ChannelState &state = channels[e.channelId];
        if (e.type == HealthEvent::Type::Breaker)
            state.breaker = e.to;
        else if (e.type == HealthEvent::Type::Pool)
            state.pool = e.to;
        const bool bad = state.breaker == QLatin1String("open") || outOfPool(state.pool) || e.type == HealthEvent::Type::Panic;
        if (state.openIncident < 0 && bad) {
            Incident incident;
            incident.id = entry.sequence;
            incident.channelId = e.channelId;
            incident.channelName = e.channelName;
            incident.cause = e.reason.isEmpty() ? QStringLiteral("%1 → %2").arg(e.from, e.to) : e.reason;
            incident.openedAtMs = e.wallMillis;
            state.openIncident = static_cast<int>(incidents.size());
            incidents.push_back(incident);
        } else if (state.openIncident >= 0) {
            ++incidents[static_cast<std::size_t>(state.openIncident)].events;
        }
        if (state.openIncident < 0)
            continue;
        Incident &incident = incidents[static_cast<std::size_t>(state.openIncident)];
        if (incident.id == entry.sequence)
            incident.events = 1;
        incident.breaker = state.breaker;
        incident.pool = state.pool;
        const bool recovered = state.breaker == QLatin1String("closed") && !outOfPool(state.pool)
            && e.type != HealthEvent::Type::Panic;
        if (recovered) {
            incident.open = false;
            incident.closedAtMs = e.wallMillis;
            state.openIncident = -1;
        }
    }
    std::reverse(incidents.begin(), incidents.end());
    return incidents;
}

} // namespace sb
