#include "telemetry/RequestMetrics.h"

#include <mutex>

namespace sb {

// With `lock` held shared: the series of `key`, created under the write lock when it is new.
template <typename Map, typename KeyRef>
typename Map::mapped_type::element_type &RequestMetrics::series(Map &map, const KeyRef &key,
                                                               std::shared_lock<std::shared_mutex> &lock)
{
    if (const auto it = map.find(key); it != map.end())
        return *it->second;
    lock.unlock();
    typename Map::mapped_type::element_type *made = nullptr;
    {
        std::unique_lock write(m_mutex);
        auto &slot = map[key.key()];
        if (!slot)
            slot = std::make_unique<typename Map::mapped_type::element_type>();
        made = slot.get();
    }
    lock.lock();
    return *made; // never erased, so the reference outlives the lock
}

void RequestMetrics::record(const RequestRecord &request)
{
    std::shared_lock lock(m_mutex); // once for every series the request touches
    series(m_requests, RequestKeyRef{request.logicalModel, request.channelId, request.channelName, request.status, request.outcome}, lock)
        .value.fetch_add(1, std::memory_order_relaxed);
    RouteCounters &route = series(m_routes, RouteKeyRef{request.logicalModel}, lock);
    if (request.failover)
        route.failovers.fetch_add(1, std::memory_order_relaxed);
    if (request.attempts.size() > 1)
        route.retries.fetch_add(request.attempts.size() - 1, std::memory_order_relaxed);
    for (const AttemptRecord &attempt : request.attempts) {
        series(m_attempts, AttemptKeyRef{request.logicalModel, attempt.channelId, attempt.channelName, attempt.outcome}, lock)
            .value.fetch_add(1, std::memory_order_relaxed);
        ChannelSeries &channel = series(m_channels, ChannelKeyRef{attempt.channelId, attempt.channelName}, lock);
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
