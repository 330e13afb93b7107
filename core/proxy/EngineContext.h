#pragma once

#include "cache/CacheFront.h"
#include "common/Clock.h"
#include "common/Random.h"
#include "health/SlidingWindow.h"
#include "providers/common/AccessTokens.h"
#include "routing/CostMeter.h"
#include "routing/RetryBudget.h"
#include "routing/RetryPolicy.h"
#include "routing/Router.h"
#include "store/ResponseStore.h"
#include "telemetry/HistoryRecords.h"
#include "telemetry/RequestMetrics.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

namespace sb {

// Client-visible totals since start, updated by every worker.
struct GatewayCounters {
    std::atomic<std::uint64_t> requests{0};
    std::atomic<std::uint64_t> succeeded{0};
    std::atomic<std::uint64_t> failed{0};      // the client got an error
    std::atomic<std::uint64_t> midStream{0};   // a stream broke after bytes went out
    std::atomic<std::uint64_t> cancelled{0};   // the client went away first
    std::atomic<std::uint64_t> failovers{0};   // requests answered by another channel than the first tried
    std::atomic<std::uint64_t> attempts{0};
    std::atomic<std::uint64_t> retryBudgetRefusals{0};
    std::atomic<std::int64_t> inFlight{0};
    std::atomic<std::uint64_t> inputTokens{0};
    std::atomic<std::uint64_t> outputTokens{0};
};

// What every worker's proxy handler shares: the router, retry policy and budget, counters and the
// sinks for history and events. Thread-safe throughout; owned by the Gateway, which outlives the
// workers.
class EngineContext {
public:
    using RequestSink = std::function<void(RequestRecord &&)>;

    EngineContext(const Clock &clock, Random &random, EngineConfigPtr config);

    const Clock &clock() const { return m_clock; }
    Random &random() const { return m_random; }
    Router &router() { return m_router; }
    const Router &router() const { return m_router; }
    RetryBudget &retryBudget() { return m_retryBudget; }
    const RetryBudget &retryBudget() const { return m_retryBudget; }
    // Cost per request and route, budgets.
    CostMeter &costMeter() { return m_costMeter; }
    const CostMeter &costMeter() const { return m_costMeter; }
    GatewayCounters &counters() { return m_counters; }
    const GatewayCounters &counters() const { return m_counters; }
    // Client-visible outcomes per second (success = Success, anything else = the error's kind):
    // the console's availability, requests/s and TTFT come from here.
    SlidingWindow &clientWindow() { return m_clientWindow; }
    const SlidingWindow &clientWindow() const { return m_clientWindow; }
    // The exact and semantic caches in front of the router, shared by every worker.
    CacheFront &cache() { return m_cache; }
    const CacheFront &cache() const { return m_cache; }
    // The Responses API's stored responses (previous_response_id, GET/DELETE /v1/responses/{id}).
    ResponseStore &responses() { return m_responses; }
    // Access tokens of keys that are exchanged for them (ERNIE's API key + secret key), shared by
    // every worker and the heartbeats.
    AccessTokens &accessTokens() { return m_accessTokens; }

    EngineConfigPtr config() const { return m_router.config(); }
    // The policy belongs to the config it was built from; a request keeps the one it started with.
    std::shared_ptr<const RetryPolicy> retryPolicy() const;
    void setConfig(EngineConfigPtr config);

    void setRequestSink(RequestSink sink);
    // Called once per finished request by the worker that ran it: feeds /metrics, then the sink.
    void emitRequest(RequestRecord &&record);
    // Counters and TTFT/latency histograms by route, channel and outcome, for /metrics.
    const RequestMetrics &requestMetrics() const { return m_requestMetrics; }

private:
    const Clock &m_clock;
    Random &m_random;
    Router m_router;
    RetryBudget m_retryBudget;
    GatewayCounters m_counters;
    CostMeter m_costMeter;
    SlidingWindow m_clientWindow{std::chrono::seconds(300)};
    CacheFront m_cache{m_clock};
    ResponseStore m_responses;
    AccessTokens m_accessTokens{m_clock};
    RequestMetrics m_requestMetrics;
    mutable std::mutex m_mutex; // guards the two pointers below
    std::shared_ptr<const RetryPolicy> m_retryPolicy;
    std::shared_ptr<const RequestSink> m_requestSink;
};

} // namespace sb
