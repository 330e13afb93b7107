#pragma once

#include "common/Clock.h"
#include "common/Random.h"
#include "health/ChannelSnapshot.h"
#include "health/HealthEvent.h"
#include "health/PoolManager.h"
#include "model/EngineConfig.h"
#include "model/Outcome.h"
#include "routing/KeyRing.h"
#include "routing/RoutingTable.h"

#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace sb {

class RetryState;
class HeartbeatProber;

// One attempt's channel, as choose() hands it to the worker. Keep it until record() or release():
// it holds the channel's live state and the provider's key ring, so a config change in between is harmless.
struct RouteChoice {
    int channelId = 0;
    QString channelName;
    int providerId = 0;
    QString upstreamModel;
    QString logicalModel;     // the model this tier serves (a fallback model's name when tier > 0)
    int tier = 0;             // 0 = the requested model's own channels, 1.. = fallback models by priority
    KeyRing::Lease key;       // the secret goes into the upstream request and nowhere else
    bool panic = false;       // every channel was out; this is the least bad one (mark the response)
    bool halfOpenTrial = false;
    bool failover = false;    // chosen after lastFailedChannel failed
    bool slowWaitCounted = false; // recordSlowWait() already counted this attempt as a failure

    std::shared_ptr<ChannelHealth> health;
    std::shared_ptr<KeyRing> keys;
};

// Why no channel could be chosen, ready to become the client's error.
struct RouteRefusal {
    int httpStatus = 503;                       // 404 unknown model, 429 all rate limited, 503 none available
    QString message;                            // one sentence naming the channels and why
    std::optional<Clock::Duration> retryAfter;  // for 429: when the soonest provider admits again
    // Whatever the status: when the soonest channel kept out only by its keys' cool-down or its
    // provider's limit admits again (a 503's other channels may be out for good meanwhile).
    std::optional<Clock::Duration> freeIn;
    struct ChannelReason {
        int channelId = 0;
        QString channelName;
        QString reason;
    };
    std::vector<ChannelReason> channels;
};

struct RouteResult {
    std::optional<RouteChoice> choice;
    RouteRefusal refusal; // meaningful when !choice
    // The channels not yet tried in this request that could not take this attempt, with why, when the
    // choice fell on a tried channel or a panic one (or on none): RetryState::notePassedOver keeps them.
    std::vector<RouteRefusal::ChannelReason> passedOver;
    explicit operator bool() const { return choice.has_value(); }
};

// Chooses the channel for each attempt of a request (ARCHITECTURE.md, "The life of a request") and takes each attempt's
// outcome back. A route's tiers are tried in order (tier 0, then fallback models by priority); inside a
// tier the route's strategy orders the routable channels (in the pool, breaker not OPEN):
//   Health     higher score first (the dual-channel design; a degraded channel has score < 50 anyway)
//   Weighted   random by static weight × score (× HealthConfig::degradedWeightFactor when degraded)
//   Latency    power of two choices on the latency EWMA (a degraded channel's EWMA counts 1/factor ×)
//   Priority   listed order, degraded channels after the others
//   RoundRobin rotating start, degraded channels after the others
// HALF_OPEN channels are offered first so their trial share or trial calls happen at all. After a
// failure, channels that share no failure domain (account, region, egress) with the failed one come
// first within the tier, and a channel already tried in this request is used again only when no
// untried one can take it. Then the provider's KeyRing must have a key and its token bucket must admit
// (a refusal moves on to the next channel, never waits). When no channel could take the attempt that
// way, panic mode (PoolConfig::panicMode) tries the others too — OPEN or ejected ones, HALF_OPEN ones
// whose trial calls are taken — untried first, then by score, and marks the choice. Drained channels,
// cooling keys and the provider's own rate limit are never overridden.
// Thread-safe: choose()/record() from any worker, tick() from the control thread, setConfig() from anywhere.
class Router {
public:
    struct Stats {
        std::uint64_t choices = 0;
        std::uint64_t failovers = 0;         // choices made after a failed attempt
        std::uint64_t domainDisjointFailovers = 0; // … that landed on a channel sharing no failure domain
        std::uint64_t fallbackTierChoices = 0;     // choices from tier ≥ 1 (a fallback model)
        std::uint64_t halfOpenTrials = 0;
        std::uint64_t panicChoices = 0;
        std::uint64_t bucketRefusals = 0;    // a provider's token bucket refused; moved on
        std::uint64_t keyExhaustions = 0;    // a provider had no key that is not cooling or disabled
        std::uint64_t rateLimitedRefusals = 0; // requests answered 429
        std::uint64_t unavailableRefusals = 0; // requests answered 503
        std::uint64_t unknownModel = 0;
        std::uint64_t keyCoolDowns = 0;      // from the key rings' stats
        std::uint64_t bucketRefusalsTotal = 0; // from the limiters' stats
    };

    Router(const Clock &clock, Random &random, EngineConfigPtr config);
    ~Router();

    void setConfig(EngineConfigPtr config);
    EngineConfigPtr config() const;
    // The 404 for a model no route has, naming the models that are there.
    static QString unknownModelMessage(const QString &logicalModel, const EngineConfig &config);

    // `lastFailure`: what the attempt on lastFailedChannel came to, for the failover event's cause.
    // `otherProviderThan`: only a channel this request has not tried whose provider is another
    // ProviderConfig than this one, and no panic choice: the one try elsewhere a client error gets
    // (ARCHITECTURE.md, "Errors and outcomes"), which must go to a channel fit to answer it.
    RouteResult choose(const QString &logicalModel, const RetryState &state, std::optional<int> lastFailedChannel,
                       int estimatedTokens = 0, const Outcome *lastFailure = nullptr,
                       std::optional<int> otherProviderThan = std::nullopt);
    // Whether a channel this request has not tried could take its next attempt now (its breaker would
    // admit it, a key not cooling): then that attempt is a failover, free of backoff and retry budget
    // (RetryState).
    bool hasUntriedChannel(const QString &logicalModel, const RetryState &state) const;
    // How long until a channel this request has not tried could take an attempt, when only time keeps
    // it out (every key cooling, its provider's rate limit): the soonest such channel's wait, zero when
    // one can take it now, nullopt when none would come free by waiting.
    std::optional<Clock::Duration> untriedChannelFreeIn(const QString &logicalModel, const RetryState &state,
                                                        int estimatedTokens = 0) const;
    // For a request that ends in an error: each channel of its route it never tried, with why the
    // router could not use it ("gpt-4o/B: circuit open"), so the error explains itself. The reason
    // kept when the router passed it over (RetryState::passedOverReason) comes first: it was true then.
    QStringList untriedChannelReasons(const QString &logicalModel, const RetryState &state, int estimatedTokens = 0) const;
    // The attempt's outcome: feeds the channel's windows and breaker, and the key ring (rate limit →
    // cool the key, auth error → disable it, success → mark it good).
    void record(const RouteChoice &choice, const Outcome &outcome, Clock::Duration latency,
                std::optional<Clock::Duration> ttft = std::nullopt);
    // The same for a channel known only by id (no key feedback, no in-flight accounting).
    void record(int channelId, const Outcome &outcome, Clock::Duration latency,
                std::optional<Clock::Duration> ttft = std::nullopt);
    // The attempt is still waiting for its first byte past the channel's slow-wait threshold: one
    // failure for its channel now (ChannelHealth::recordSlowWait), once per attempt. Its outcome, when
    // it comes, is then recorded only if it is a success (the failure evidence stays: an answer that
    // slow is a degraded channel); a failure or a neutral outcome was counted already.
    void recordSlowWait(RouteChoice &choice);
    // A choice that was never sent (the request was cancelled first): frees its trial slot.
    void release(const RouteChoice &choice);

    // Every second, from the control thread: scores, pool rules, breaker timers, heartbeats.
    void tick();
    void setProber(HeartbeatProber *prober) { m_prober.store(prober); }

    bool drain(int channelId, const QString &reason = {}) { return m_pool.drain(channelId, reason); }
    bool readmit(int channelId, const QString &reason = {}) { return m_pool.readmit(channelId, reason); }
    void setEventSink(EventSink sink) { m_pool.setEventSink(std::move(sink)); }

    PoolManager &pool() { return m_pool; }
    std::vector<ChannelSnapshot> snapshots() const;
    std::shared_ptr<KeyRing> keyRing(int providerId) const;
    std::shared_ptr<ProviderLimiter> limiter(int providerId) const;
    Stats stats() const;

private:
    // An outcome that proves the configuration wrong sets the channel (every key refused: each of
    // the provider's channels) aside as misconfigured.
    void noteMisconfiguration(const RouteChoice &choice, const Outcome &outcome);
    // One Bucket event when a provider's limit starts refusing (then quiet for 10 s).
    void reportBucketRefusal(const RoutingTable::Provider &provider, int estimatedTokens);

    struct Counters {
        std::atomic<std::uint64_t> choices{0}, failovers{0}, domainDisjoint{0}, fallbackTier{0}, halfOpenTrials{0},
            panicChoices{0}, bucketRefusals{0}, keyExhaustions{0}, rateLimited{0}, unavailable{0}, unknownModel{0};
    };
    // The current table, read through a per-thread copy that is refreshed only when setConfig has
    // published a newer one: loading the atomic shared_ptr itself takes and releases its lock bit,
    // several times a request on every worker at once. (The copy returned still counts a reference.)
    std::shared_ptr<const RoutingTable> table() const;
    RouteRefusal refuse(const RoutingTable::Route &route, const RetryState &state, int estimatedTokens) const;
    // `channels` without the ones this request tried and without `chosenChannel`.
    static std::vector<RouteRefusal::ChannelReason> untriedOnly(std::vector<RouteRefusal::ChannelReason> channels,
                                                                const RetryState &state, int chosenChannel);

    const Clock &m_clock;
    Random &m_random;
    PoolManager m_pool;
    std::atomic<std::shared_ptr<const RoutingTable>> m_table;
    std::atomic<std::uint64_t> m_tableVersion{0}; // unique across routers; set after m_table
    std::mutex m_configMutex; // two dialogs saving at once must not interleave their rebuilds
    std::atomic<HeartbeatProber *> m_prober{nullptr};
    Counters m_counters;
};

} // namespace sb
