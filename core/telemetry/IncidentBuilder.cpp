#include "telemetry/IncidentBuilder.h"

#include <algorithm>

namespace sb {

namespace {

// What one channel looks like while its events are replayed.
struct ChannelTrack {
    QString breaker = QStringLiteral("closed");
    QString pool = QStringLiteral("active");
    bool open = false;              // an incident is running
    std::size_t current = 0;        // its index in the output
};

bool breakerBad(const QString &state)
{
    return state == QLatin1String("open") || state == QLatin1String("half_open");
}

bool poolBad(const QString &state)
{
    return state == QLatin1String("ejected") || state == QLatin1String("drained") || state == QLatin1String("degraded")
        || state == QLatin1String("misconfigured");
}

QString nameFromMessage(const QString &message)
{
    // Breaker and pool event messages start with "<channel>: ".
    const qsizetype colon = message.indexOf(QStringLiteral(": "));
    return colon > 0 ? message.left(colon) : QString();
}

} // namespace

IncidentBuilder::IncidentBuilder() = default;

IncidentBuilder::IncidentBuilder(Options options) : m_options(options) {}

int IncidentBuilder::severity(const QString &state)
{
    if (state == QLatin1String("degraded"))
        return 1;
    if (state == QLatin1String("half_open"))
        return 2;
    if (state == QLatin1String("open"))
        return 3;
    if (state == QLatin1String("drained"))
        return 4;
    if (state == QLatin1String("ejected"))
        return 5;
    if (state == QLatin1String("misconfigured")) // a person has to fix something
        return 6;
    return 0;
}

std::vector<Incident> IncidentBuilder::build(std::vector<EventRecord> events, const std::map<int, QString> &names) const
{
    std::stable_sort(events.begin(), events.end(), [](const EventRecord &a, const EventRecord &b) {
        return a.timeMs != b.timeMs ? a.timeMs < b.timeMs : a.id < b.id;
    });
    std::vector<Incident> out;
    std::map<int, ChannelTrack> tracks;
    for (const EventRecord &e : events) {
        // Budget alerts name a route, not a channel: spending is not a channel being unhealthy, so
        // they never open or extend an incident (the Incidents page lists them on their own).
        if (e.channelId == 0 || e.kind == EventKind::Budget)
            continue;
        QString *field = nullptr;
        switch (e.kind) {
        case EventKind::CircuitTransition: field = &tracks[e.channelId].breaker; break;
        case EventKind::Ejection:
        case EventKind::Readmission: field = &tracks[e.channelId].pool; break;
        case EventKind::Other:
            // Pool moves between active and degraded are stored as "other"; panics too (no state).
            if (poolBad(e.toState) || e.toState == QLatin1String("active"))
                field = &tracks[e.channelId].pool;
            break;
        default: break;
        }
        ChannelTrack &track = tracks[e.channelId];
        if (!field) {
            // Context (failovers, key cooldowns) belongs to a running incident on that channel.
            if (track.open)
                out[track.current].events.push_back(e);
            continue;
        }
        *field = e.toState;
        const bool bad = breakerBad(track.breaker) || poolBad(track.pool);
        if (bad) {
            if (!track.open) {
                Incident *previous = nullptr;
                for (auto it = out.rbegin(); it != out.rend(); ++it) {
                    if (it->channelId == e.channelId) {
                        previous = &*it;
                        break;
                    }
                }
                if (previous && !previous->isOpen() && e.timeMs - previous->endMs <= m_options.mergeGapMs) {
                    previous->endMs = -1; // flapping: the same incident goes on
                    track.current = std::size_t(previous - out.data());
                } else {
                    Incident incident;
                    incident.channelId = e.channelId;
                    const auto named = names.find(e.channelId);
                    incident.channelName = named != names.end() ? named->second : nameFromMessage(e.message);
                    if (incident.channelName.isEmpty())
                        incident.channelName = QStringLiteral("#%1").arg(e.channelId);
                    incident.startMs = e.timeMs;
                    incident.cause = e.message.isEmpty() ? QStringLiteral("%1 → %2").arg(e.fromState, e.toState) : e.message;
                    out.push_back(std::move(incident));
                    track.current = out.size() - 1;
                }
                track.open = true;
            }
            Incident &incident = out[track.current];
            incident.breaker = track.breaker;
            incident.pool = track.pool;
            if (severity(e.toState) > 0)
                ++incident.transitions;
            if (severity(e.toState) > severity(incident.worstState))
                incident.worstState = e.toState;
            incident.events.push_back(e);
        } else if (track.open) {
            Incident &incident = out[track.current];
            incident.breaker = track.breaker;
            incident.pool = track.pool;
            incident.events.push_back(e);
            incident.endMs = e.timeMs;
            track.open = false;
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Incident &a, const Incident &b) { return a.startMs > b.startMs; });
    return out;
}

} // namespace sb
