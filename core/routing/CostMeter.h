#pragma once

#include "common/Clock.h"
#include "health/HealthEvent.h"
#include "model/BudgetConfig.h"
#include "model/EngineConfig.h"
#include "model/TokenUsage.h"
#include "routing/RouteBudget.h"
#include "routing/SharedSpend.h"
#include "routing/RouteSpend.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace sb {

// What one request cost. Unknown is not zero: a request whose provider reported no token usage,
// or whose model has no price, says so instead of passing for free.
struct RequestCost {
    double usd = 0.0;
    bool known = true;
    bool usageMissing = false; // unknown because the provider reported no usage
    QString unpricedModel;     // unknown because this model has no price

    // Why the cost is unknown; empty when known. Made only when asked for: a route without
    // prices is unknown on every request, and the reason is read only by a debug log.
    QString note() const;
};

// Cost per request from token usage × the price table, and each route's running spend against its
// budget. Spend is added when a request finishes, so requests already in flight
// when a hard stop is reached still finish and may overshoot it by their own cost. Thread-safe:
// every worker records into the one meter.
class CostMeter {
public:
    struct Refusal {
        QString message;   // a sentence for the OpenAI-format error body
        qint64 retryAfterMs = 0; // until the period rolls over
    };

    struct Stats {
        double todayUsd = 0.0;        // every route, this UTC day, priced requests only
        std::uint64_t unpricedToday = 0; // requests today whose cost is unknown (not in todayUsd)
        std::uint64_t refusedToday = 0;  // requests answered 429 by a hard stop today
    };

    // The price of the upstream model the channel names: an exact match, then one ignoring case,
    // then the longest priced name the upstream model starts with followed by '-' or '@' (a dated
    // version such as "gpt-4o-2024-08-06" takes the price of "gpt-4o"); failing all, the logical
    // model's price. Null when nothing matches.
    static const ModelPrice *findPrice(const std::vector<ModelPrice> &prices, const QString &upstreamModel,
                                       const QString &logicalModel);
    // Token counts as the provider reported them, -1 where it did not. No tokens and no usage at all
    // (nothing was answered) costs a known 0. Per 1M tokens: the prompt's uncached part (prompt −
    // cache reads − cache writes) at the input price, cache reads at the cached-input price, cache
    // writes at the cache-write price (each unset one at the input price) and the completion at
    // the output price.
    static RequestCost cost(const std::vector<ModelPrice> &prices, const QString &upstreamModel, const QString &logicalModel,
                            const TokenUsage &usage, bool answered);

    // Set when the route's hard stop is reached for the current period; the proxy answers 429.
    std::optional<Refusal> refusal(const QString &route, const BudgetConfig *budget, qint64 wallMs);
    // Adds a finished request's cost to its route; returns the budget alerts this crossing raised
    // (a soft-limit alert and a hard-stop alert, each at most once per period).
    std::vector<HealthEvent> record(const QString &route, const RequestCost &cost, const BudgetConfig *budget, qint64 wallMs,
                                    Clock::TimePoint now);

    double spent(const QString &route, BudgetPeriod period, qint64 wallMs) const;
    Stats stats(qint64 wallMs) const;
    // Every configured route's spend against its budget, in the config's route order, under one
    // lock (the control thread builds this into each second's snapshot).
    std::vector<RouteSpend> routeSpend(const EngineConfig &config, qint64 wallMs) const;

    // A fleet's spend (SharedSpend): each request's cost is added to it too, and the hard stop
    // and alerts go by the larger of it and this instance's own count. Null: this instance alone.
    void share(std::shared_ptr<SharedSpend> fleet);

    // Spend survives a restart by being read back from the history: `spentSince(route, fromMs)` is
    // the sum of the route's request costs since fromMs (an empty route = every request). Called
    // once at start, before traffic.
    void restore(const QStringList &routes, qint64 wallMs, const std::function<double(const QString &route, qint64 fromMs)> &spentSince);

private:
    static constexpr const char *kOtherRoutes = ""; // spend of routes no longer configured, for today's total

    void rollStats(qint64 wallMs);
    double fleetSpentLocked(const QString &route, BudgetPeriod period, qint64 wallMs) const;

    mutable std::mutex m_mutex;
    std::map<QString, RouteBudget> m_routes;
    std::shared_ptr<SharedSpend> m_fleet;
    qint64 m_statsDay = 0;
    std::uint64_t m_unpricedToday = 0;
    std::uint64_t m_refusedToday = 0;
};

} // namespace sb
