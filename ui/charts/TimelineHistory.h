#pragma once

#include "ConsoleStyle.h"
#include "control/MetricsSnapshot.h"
#include "health/HealthEvent.h"

#include <QString>

#include <cstdint>
#include <deque>
#include <map>

namespace sb {

// What the Overview charts draw, kept as bounded rings (60 min at one snapshot a second) so a
// console left open for days uses the same memory as one opened a minute ago.
class TimelineHistory {
public:
    static constexpr std::size_t kCapacity = 3600;  // points per ring: 60 min at 1/s
    static constexpr std::size_t kMarkerCapacity = 3600;

    struct ChannelSample {
        std::int64_t wallMillis = 0;
        double score = 100.0;
        ChannelState state = ChannelState::Closed;
    };
    struct ChannelTrack {
        int channelId = 0;
        QString name;
        std::deque<ChannelSample> samples;
    };
    struct TotalsSample {
        std::int64_t wallMillis = 0;
        double ttftP50Ms = 0, ttftP95Ms = 0;
        std::uint64_t failovers = 0;
    };
    // Failovers are counted per second and direction: at 1,000 req/s an incident produces hundreds a
    // second, and one marker per request would hide the chart.
    struct FailoverMarker {
        std::int64_t secondMillis = 0;
        int fromChannelId = 0;
        int toChannelId = 0;
        QString fromName, toName;
        int count = 0;
        QString lastReason;
    };

    explicit TimelineHistory(std::size_t capacity = kCapacity);

    void addSnapshot(const MetricsSnapshot &snapshot);
    void addFailover(const HealthEvent &event);

    // History mode fills a separate TimelineHistory from the database (per-minute rows), oldest
    // first, with a capacity large enough for the range asked for.
    void addChannelSample(int channelId, const QString &name, std::int64_t wallMillis, double score, ChannelState state);
    void addTotals(std::int64_t wallMillis, double ttftP50Ms, double ttftP95Ms);
    void addMarker(const FailoverMarker &marker);
    void clear();
    bool hasChannels() const { return !m_channels.empty(); }

    bool isEmpty() const { return m_totals.empty(); }
    std::int64_t latestMillis() const { return m_totals.empty() ? 0 : m_totals.back().wallMillis; }
    const std::map<int, ChannelTrack> &channels() const { return m_channels; }
    const std::deque<TotalsSample> &totals() const { return m_totals; }
    const std::deque<FailoverMarker> &failovers() const { return m_markers; }
    // Failovers counted by snapshots over the last `seconds` (the ring's span at most).
    std::uint64_t failoversSince(std::int64_t fromMillis) const;

private:
    std::size_t m_capacity;
    std::map<int, ChannelTrack> m_channels;
    std::deque<TotalsSample> m_totals;
    std::deque<FailoverMarker> m_markers;
};

} // namespace sb
