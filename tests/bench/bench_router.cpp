// Router hot path: ns per choose() and per record() with 8 channels, 1 and 4 threads.
// Prints figures only; performance is never asserted in tests.
#include "common/Clock.h"
#include "common/Random.h"
#include "routing/RetryPolicy.h"
#include "routing/RetryState.h"
#include "routing/Router.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>

using namespace std::chrono_literals;
using namespace sb;

namespace {
EngineConfigPtr eightChannels()
{
    auto c = std::make_shared<EngineConfig>();
    RouteConfig route;
    route.id = 1;
    route.logicalModel = QStringLiteral("gpt-4o");
    for (int i = 1; i <= 8; ++i) {
        ProviderConfig p;
        p.id = i;
        p.name = QStringLiteral("p%1").arg(i);
        p.dialect = QStringLiteral("openai_compat");
        p.baseUrl = QStringLiteral("https://p%1.example/v1").arg(i);
        p.domain.account = QStringLiteral("acct-%1").arg(i);
        p.keys = {ApiKeyConfig{i, QStringLiteral("k"), QStringLiteral("sk-bench-%1-0123456789").arg(i), true, {}}};
        c->providers.push_back(p);
        c->channels.push_back(ChannelConfig{i, QStringLiteral("gpt-4o/%1").arg(i), i, QStringLiteral("gpt-4o"), 1.0, true, {}, {}, {}});
        route.channelIds.push_back(i);
    }
    c->routes = {route};
    return c;
}

struct Shared {
    EngineConfigPtr config = eightChannels();
    Router router{SystemClock::instance(), SystemRandom::instance(), config};
    RetryPolicy policy{config->retry};
    const QString model = QStringLiteral("gpt-4o");
};

Shared &shared()
{
    static Shared s;
    return s;
}

void BM_ChooseAndRelease(benchmark::State &state)
{
    auto &s = shared();
    RetryState retry(s.policy, SystemClock::instance(), SystemClock::instance().now());
    // release() (two atomic decrements) stays in the loop: pausing the timer would cost more than it.
    for (auto _ : state) {
        auto result = s.router.choose(s.model, retry, std::nullopt);
        benchmark::DoNotOptimize(result);
        s.router.release(*result.choice);
    }
}

void BM_RecordChoice(benchmark::State &state)
{
    auto &s = shared();
    RetryState retry(s.policy, SystemClock::instance(), SystemClock::instance().now());
    auto result = s.router.choose(s.model, retry, std::nullopt);
    const RouteChoice choice = *result.choice;
    const Outcome ok = Outcome::success();
    for (auto _ : state)
        s.router.record(choice, ok, 420ms, 120ms); // windows, EWMA, breaker, key ring
}

void BM_RecordChannelId(benchmark::State &state)
{
    auto &s = shared();
    const Outcome ok = Outcome::success();
    int channel = 1 + state.thread_index() % 8;
    for (auto _ : state) {
        s.router.record(channel, ok, 420ms, 120ms);
        channel = channel % 8 + 1;
    }
}
} // namespace

BENCHMARK(BM_ChooseAndRelease)->Threads(1)->Threads(4)->UseRealTime();
BENCHMARK(BM_RecordChoice)->Threads(1)->Threads(4)->UseRealTime();
BENCHMARK(BM_RecordChannelId)->Threads(1)->Threads(4)->UseRealTime();

BENCHMARK_MAIN();
