#pragma once

#include "telemetry/Histogram.h"
#include "telemetry/HistoryRecords.h"

#include <QString>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace sb {

// Counters and histograms by label, recorded as each request finishes (from the worker that ran
// it), read by /metrics. Label sets are few (routes × channels × outcomes), so each series is
// created once under a write lock and afterwards found under a shared lock and bumped with atomics.
class RequestMetrics {
public:
    struct RequestKey {
        QString route;   // the logical model the caller asked for
        int channelId = 0; // the channel that answered last; 0 when none was tried
        QString channelName;
        RequestStatus status = RequestStatus::Ok;
        OutcomeKind outcome = OutcomeKind::Success;
        auto tie() const { return std::tie(route, channelId, channelName, status, outcome); }
        bool operator<(const RequestKey &o) const { return tie() < o.tie(); }
    };
    struct AttemptKey {
        QString route;
        int channelId = 0;
        QString channelName;
        OutcomeKind outcome = OutcomeKind::Success;
        auto tie() const { return std::tie(route, channelId, channelName, outcome); }
        bool operator<(const AttemptKey &o) const { return tie() < o.tie(); }
    };
    struct ChannelKey {
        int channelId = 0;
        QString channelName;
        auto tie() const { return std::tie(channelId, channelName); }
        bool operator<(const ChannelKey &o) const { return tie() < o.tie(); }
    };
    struct RouteTotals {
        std::uint64_t failovers = 0; // requests answered by another channel than the first tried
        std::uint64_t retries = 0;   // attempts after the first
    };
    struct ChannelHistograms {
        Histogram::Snapshot ttft;    // successful attempts that streamed a first token
        Histogram::Snapshot latency; // every attempt that reached an outcome
    };
    struct Snapshot {
        std::map<RequestKey, std::uint64_t> requests;
        std::map<AttemptKey, std::uint64_t> attempts;
        std::map<QString, RouteTotals> routes;
        std::map<ChannelKey, ChannelHistograms> channels;
    };

    void record(const RequestRecord &request);
    Snapshot snapshot() const;

private:
    struct Counter {
        std::atomic<std::uint64_t> value{0};
    };
    struct RouteCounters {
        std::atomic<std::uint64_t> failovers{0};
        std::atomic<std::uint64_t> retries{0};
    };
    struct ChannelSeries {
        Histogram ttft;
        Histogram latency;
    };
    // The keys' fields by reference, to find a series without copying its names (each copy is an
    // atomic count on a string the other workers share).
    struct RequestKeyRef {
        const QString &route;
        int channelId;
        const QString &channelName;
        RequestStatus status;
        OutcomeKind outcome;
        auto tie() const { return std::tie(route, channelId, channelName, status, outcome); }
        RequestKey key() const { return {route, channelId, channelName, status, outcome}; }
    };
    struct AttemptKeyRef {
        const QString &route;
        int channelId;
        const QString &channelName;
        OutcomeKind outcome;
        auto tie() const { return std::tie(route, channelId, channelName, outcome); }
        AttemptKey key() const { return {route, channelId, channelName, outcome}; }
    };
    struct ChannelKeyRef {
        int channelId;
        const QString &channelName;
        auto tie() const { return std::tie(channelId, channelName); }
        ChannelKey key() const { return {channelId, channelName}; }
    };
    struct RouteKeyRef {
        const QString &route;
        auto tie() const { return std::tie(route); }
        QString key() const { return route; }
    };
    // Orders a key and its reference alike, so that a map finds one by the other: as their ties
    // compare, each part compared once (a tuple's < compares an equal part twice, a and b both
    // ways, and most of a lookup's parts are equal strings).
    struct ByTie {
        using is_transparent = void;
        static auto tieOf(const QString &route) { return std::tie(route); }
        template <typename K>
        static auto tieOf(const K &key) { return key.tie(); }
        template <typename T>
        static int order(const T &a, const T &b)
        {
            if constexpr (std::is_same_v<T, QString>)
                return a.constData() == b.constData() && a.size() == b.size() ? 0 : QString::compare(a, b);
            else
                return a < b ? -1 : (b < a ? 1 : 0);
        }
        template <typename TA, typename TB, std::size_t... I>
        static bool less(const TA &a, const TB &b, std::index_sequence<I...>)
        {
            int c = 0;
            ((c = c != 0 ? c : order(std::get<I>(a), std::get<I>(b))), ...);
            return c < 0;
        }
        template <typename A, typename B>
        bool operator()(const A &a, const B &b) const
        {
            const auto ta = tieOf(a);
            return less(ta, tieOf(b), std::make_index_sequence<std::tuple_size_v<decltype(ta)>>{});
        }
    };
    template <typename Map, typename KeyRef>
    typename Map::mapped_type::element_type &series(Map &map, const KeyRef &key, std::shared_lock<std::shared_mutex> &lock);

    mutable std::shared_mutex m_mutex; // guards the maps' shape; the values are atomics
    std::map<RequestKey, std::unique_ptr<Counter>, ByTie> m_requests;
    std::map<AttemptKey, std::unique_ptr<Counter>, ByTie> m_attempts;
    std::map<QString, std::unique_ptr<RouteCounters>, ByTie> m_routes;
    std::map<ChannelKey, std::unique_ptr<ChannelSeries>, ByTie> m_channels;
};

} // namespace sb
