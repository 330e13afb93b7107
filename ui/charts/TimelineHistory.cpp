#include "charts/TimelineHistory.h"

namespace sb {

TimelineHistory::TimelineHistory(std::size_t capacity) : m_capacity(capacity) {}

void TimelineHistory::addChannelSample(int channelId, const QString &name, std::int64_t wallMillis, double score, ChannelState state)
{
    ChannelTrack &track = m_channels[channelId];
    track.channelId = channelId;
    track.name = name;
    track.samples.push_back({wallMillis, score, state});
    if (track.samples.size() > m_capacity)
        track.samples.pop_front();
}

void TimelineHistory::addTotals(std::int64_t wallMillis, double ttftP50Ms, double ttftP95Ms)
{
    m_totals.push_back({wallMillis, ttftP50Ms, ttftP95Ms, m_totals.empty() ? 0 : m_totals.back().failovers});
    if (m_totals.size() > m_capacity)
        m_totals.pop_front();
}

void TimelineHistory::addMarker(const FailoverMarker &marker)
{
    m_markers.push_back(marker);
    if (m_markers.size() > m_capacity)
        m_markers.pop_front();
}

void TimelineHistory::clear()
{
    m_channels.clear();
    m_totals.clear();
    m_markers.clear();
}

void TimelineHistory::addSnapshot(const MetricsSnapshot &snapshot)
{
    // A snapshot older than the last one (clock stepped back) would fold the time axis over itself.
    if (!m_totals.empty() && snapshot.wallMillis <= m_totals.back().wallMillis)
        return;
    m_totals.push_back({snapshot.wallMillis, snapshot.ttftP50Ms, snapshot.ttftP95Ms, snapshot.failovers});
    if (m_totals.size() > m_capacity)
        m_totals.pop_front();

    for (const ChannelSnapshot &channel : snapshot.channels) {
        ChannelTrack &track = m_channels[channel.channelId];
        track.channelId = channel.channelId;
        track.name = channel.name;
        track.samples.push_back({snapshot.wallMillis, channel.score, channelState(channel)});
        if (track.samples.size() > m_capacity)
            track.samples.pop_front();
    }
    // Channels gone from the config fade out of the window, then leave.
    const std::int64_t oldest = m_totals.front().wallMillis;
    for (auto it = m_channels.begin(); it != m_channels.end();) {
        while (!it->second.samples.empty() && it->second.samples.front().wallMillis < oldest)
            it->second.samples.pop_front();
        it = it->second.samples.empty() ? m_channels.erase(it) : std::next(it);
    }
    while (!m_markers.empty() && m_markers.front().secondMillis < oldest - 1000)
        m_markers.pop_front();
}

void TimelineHistory::addFailover(const HealthEvent &event)
{
    std::int64_t at = event.wallMillis > 0 ? event.wallMillis : latestMillis();
    at -= at % 1000;
    for (auto it = m_markers.rbegin(); it != m_markers.rend() && it->secondMillis == at; ++it) {
        if (it->fromChannelId == event.fromChannelId && it->toChannelId == event.channelId) {
            ++it->count;
            if (!event.reason.isEmpty())
                it->lastReason = event.reason;
            return;
        }
    }
    FailoverMarker marker;
    marker.secondMillis = at;
    marker.fromChannelId = event.fromChannelId;
    marker.toChannelId = event.channelId;
    const auto from = m_channels.find(event.fromChannelId);
    marker.fromName = from != m_channels.end() ? from->second.name : QStringLiteral("#%1").arg(event.fromChannelId);
    marker.toName = event.channelName.isEmpty() ? QStringLiteral("#%1").arg(event.channelId) : event.channelName;
    marker.count = 1;
    marker.lastReason = event.reason;
    // Events arrive nearly in order; keep the ring sorted so the chart can binary-search it.
    auto pos = m_markers.end();
    while (pos != m_markers.begin() && std::prev(pos)->secondMillis > at)
        --pos;
    m_markers.insert(pos, marker);
    if (m_markers.size() > std::max(m_capacity, kMarkerCapacity))
        m_markers.pop_front();
}

std::uint64_t TimelineHistory::failoversSince(std::int64_t fromMillis) const
{
    if (m_totals.empty())
        return 0;
    for (const TotalsSample &sample : m_totals) {
        if (sample.wallMillis >= fromMillis)
            return m_totals.back().failovers - sample.failovers;
    }
    return 0;
}

} // namespace sb
