#pragma once

#include "health/ChannelSnapshot.h"
#include "health/HeartbeatProber.h"
#include "net/HttpServer.h"
#include "routing/RetryBudget.h"
#include "routing/RouteSpend.h"
#include "routing/Router.h"

#include <QMetaType>

#include <cstdint>
#include <vector>

namespace sb {

// Everything the console and /metrics read, copied out once a second by the control thread
// (ARCHITECTURE.md, "Threads": the GUI reads snapshots delivered by queued signals, never engine objects).
struct MetricsSnapshot {
    std::int64_t wallMillis = 0;
    std::vector<ChannelSnapshot> channels;

    // Client-visible, since start.
    std::uint64_t requests = 0;
    std::uint64_t succeeded = 0;
    std::uint64_t failed = 0;
    std::uint64_t midStream = 0;
    std::uint64_t cancelled = 0;
    std::uint64_t failovers = 0;
    std::uint64_t attempts = 0;
    std::uint64_t retryBudgetRefusals = 0;
    std::int64_t inFlight = 0;
    std::uint64_t inputTokens = 0;
    std::uint64_t outputTokens = 0;
    // Spend this UTC day over every route (CostMeter); requests with an unknown cost are not in it.
    double costTodayUsd = 0.0;
    std::uint64_t unpricedToday = 0;
    // Each configured route's spend in its budget's period (today without a budget), config order.
    std::vector<RouteSpend> routeSpend;

    // Client-visible, recent.
    double requestsPerSecond = 0;  // over the last 10 s
    double availability5m = 1.0;   // successful / answered over 5 min; 1 when idle
    std::uint64_t answered5m = 0;
    double ttftP50Ms = 0, ttftP95Ms = 0;       // over the last minute
    double latencyP50Ms = 0, latencyP95Ms = 0; // over the last minute

    Router::Stats router;
    RetryBudget::Stats retryBudget;
    HttpServer::Stats server;
    HeartbeatProber::Stats prober;
};

} // namespace sb

Q_DECLARE_METATYPE(sb::MetricsSnapshot)
