#include "telemetry/RequestMetrics.h"

#include <mutex>

namespace sb {

template <typename Map, typename Key>
typename Map::mapped_type::element_type &RequestMetrics::series(Map &map, const Key &key)
{
    {
        std::shared_lock lock(m_mutex);
        if (const auto it = map.find(key); it != map.end())
            return *it->second;
    }
    std::unique_lock lock(m_mutex);
    auto &slot = map[key];
    if (!slot)
        slot = std::make_unique<typename Map::mapped_type::element_type>();
    return *slot; // never erased, so the reference outlives the lock
}

void RequestMetrics::record(const RequestRecord &request)
{
    series(m_requests, RequestKey{request.logicalModel, request.channelId, request.channelName, request.status, request.outcome})
        .value.fetch_add(1, std::memory_order_relaxed);
    RouteCounters &route = series(m_routes, request.logicalModel);
    if (request.failover)
        route.failovers.fetch_add(1, std::memory_order_relaxed);
    if (request.attempts.size() > 1)
        route.retries.fetch_add(request.attempts.size() - 1, std::memory_order_relaxed);
    for (const AttemptRecord &attempt : request.attempts) {
        series(m_attempts, AttemptKey{request.logicalModel, attempt.channelId, attempt.channelName, attempt.outcome})
            .value.fetch_add(1, std::memory_order_relaxed);
        ChannelSeries &channel = series(m_channels, ChannelKey{attempt.channelId, attempt.channelName});
        if (attempt.latencyMs >= 0)
            channel.latency.recordMillis(attempt.latencyMs);
        if (attempt.ttftMs >= 0 && attempt.outcome == OutcomeKind::Success)
            channel.ttft.recordMillis(attempt.ttftMs);
    }
}

RequestMetrics::Snapshot RequestMetrics::snapshot() const
{
    Snapshot s;
    std::shared_lock lock(m_mutex);
    for (const auto &[key, counter] : m_requests)
        s.requests.emplace(key, counter->value.load(std::memory_order_relaxed));
    for (const auto &[key, counter] : m_attempts)
        s.attempts.emplace(key, counter->value.load(std::memory_order_relaxed));
    for (const auto &[key, counters] : m_routes)
        s.routes.emplace(key, RouteTotals{counters->failovers.load(std::memory_order_relaxed),
                                          counters->retries.load(std::memory_order_relaxed)});
    for (const auto &[key, channel] : m_channels)
        s.channels.emplace(key, ChannelHistograms{channel->ttft.snapshot(), channel->latency.snapshot()});
    return s;
}

} // namespace sb
