#pragma once

#include "model/AutoModelConfig.h"
#include "model/BudgetConfig.h"
#include "model/ProviderConfig.h"
#include "model/RouteConfig.h"

#include <QString>
#include <QStringList>

#include <chrono>
#include <memory>
#include <vector>

namespace sb {

using namespace std::chrono_literals;

// Every threshold below is a default (the reasons: ARCHITECTURE.md, "Defaults and why"),
// editable in the console and stored in SQLite. Configs are immutable once built: the running
// engine holds a std::shared_ptr<const EngineConfig> and a save swaps in a new one.

struct HealthConfig {
    std::chrono::seconds window = 300s;    // error rate over the last 5 minutes
    std::chrono::seconds fastWindow = 30s; // fast signal: a 5-minute window reacts too slowly to a sudden outage
    double errorWeight = 0.70;             // error rate weighs 70 %
    double latencyWeight = 0.30;           // P95 deviation from baseline weighs 30 %
    int minVolume = 10;                    // below this many calls the evidence is blended toward "healthy"
    double degradeBelow = 50.0;            // score < 50 → routing weight reduced
    double ejectBelow = 30.0;              // score < 30 …
    std::chrono::seconds ejectAfter = 180s; // … for 3 minutes in a row → leaves the pool
    double degradedWeightFactor = 0.25;    // how much a degraded channel's weight is cut
    // A request still waiting for its first byte (a stream: its first content) this many times the
    // channel's recent p99 time to first token, and at least slowWaitFloor, is failure evidence while it
    // waits (ARCHITECTURE.md, "Defaults and why"): a hung provider then costs seconds, not attempt
    // budgets. 0 turns it off.
    double slowWaitFactor = 3.0;
    std::chrono::milliseconds slowWaitFloor = 2000ms;
};

enum class HalfOpenMode { TrialCalls, TrafficShare };

struct BreakerConfig {
    QString preset = QStringLiteral("relay");
    int consecutiveFailures = 5;            // 5 failures in a row open the circuit
    double failureRateThreshold = 0.20;     // > 20 % errors …
    std::chrono::seconds rateWindow = 5s;   // … over a 5-second sliding window
    // The rate rule needs this many calls in the window: at 5 the 30-minute soak saw circuits open for
    // 60 s on 2 failures in 9 calls (27 of 49 openings). Hard outages trip the consecutive rule anyway.
    int minCallsInWindow = 20;
    std::chrono::seconds openDuration = 60s; // 60 s recovery timeout (launch-day: 2 minutes)
    double openGrowthFactor = 1.0;          // 1 = fixed; > 1 lengthens repeated trips
    std::chrono::seconds maxOpenDuration = 600s;
    HalfOpenMode halfOpenMode = HalfOpenMode::TrialCalls;
    int halfOpenMaxTrials = 3;              // at most 3 trial calls
    double halfOpenTrafficShare = 0.05;     // launch-day: 5 % of traffic to the primary
    int successesToClose = 3;               // 3 consecutive successes close it

    static BreakerConfig relay();      // 5 failures / 60 s / 3 trials
    static BreakerConfig launchDay();  // > 20 % over 5 s / 2 min / 5 % share / 3 successes
    static bool fromPreset(QStringView name, BreakerConfig *out);
};

struct ProbeConfig {
    std::chrono::seconds interval = 10s;       // heartbeat every 10 s
    std::chrono::seconds timeout = 5s;
    int successesToReadmit = 2;                // one lucky probe is not a recovery
};

struct PoolConfig {
    bool panicMode = true; // when every channel is out, use the least bad one instead of failing
};

struct RetryConfig {
    std::chrono::milliseconds baseDelay = 100ms; // delay = min(t_max, t_base·2^n) + random(0, jitter)
    std::chrono::milliseconds maxDelay = 2s;
    std::chrono::milliseconds jitter = 100ms;
    int maxAttempts = 4;                         // first try + 3 more, across channels and tiers
    double budgetRatio = 0.20;                   // retries in flight ≤ 20 % of requests in flight …
    int budgetMinimum = 3;                       // … but at least 3, so a quiet engine can still retry
    std::chrono::milliseconds overallDeadline = 60s;
    // Once a stream's content has begun, the longest wait for more of it: a stall. Pings, keep-alive
    // comments and empty deltas do not end the wait (ProxyCall's stall timer); the transport's idle
    // timeout is the same figure, for an upstream that sends nothing at all.
    std::chrono::milliseconds streamIdleTimeout = 30s;
    // A stream attempt's wait for its first content (text, reasoning or a tool call; the role chunk,
    // message_start and pings do not meet it), within the attempt's own budget: past it the attempt
    // fails over, before the client has seen a byte.
    std::chrono::milliseconds firstContentTimeout = 30s;
    // A stream that breaks after text reached the client is continued on another channel, the
    // continuation spliced into the client's stream (StreamContinuation); off, it ends with the
    // API's error event. A route can turn it off for itself.
    bool continueStreams = true;
    // How long a key (or a keyless provider) rests after a 429 that came with no hint of the provider's
    // own; doubled for each further 429 in a row after a rest, at most 32× (KeyRing). Short, because a
    // burst over a per-second limit is over in a second (ARCHITECTURE.md, "Defaults and why"). A setting
    // so time-scaled drills scale it too.
    std::chrono::milliseconds keyCoolDown = 1s;
    // The longest a request is held waiting for a rate-limited route (a cooling key, a provider's
    // limit) to admit it, in all. Past it the client gets a 429 with Retry-After at once and decides
    // itself: holding a caller 42 s for a 14 s hint was worse than telling it so.
    std::chrono::milliseconds maxClientWait = 3s;
};

struct ProxyConfig {
    QString listenHost = QStringLiteral("127.0.0.1");
    int listenPort = 8400;
    QString localToken;                      // empty = no auth (allowed on loopback only)
    // Set on load, never saved: a local token is configured but its store could not give it. Every
    // request is then refused (fail closed) rather than let in without the token.
    QString localTokenUnreadable;
    qint64 maxBodyBytes = 32LL * 1024 * 1024;
    qint64 maxHeaderBytes = 64LL * 1024;
    std::chrono::seconds idleTimeout = 60s;
    std::chrono::seconds drainTimeout = 10s; // graceful shutdown: in-flight streams get this long
    // PEM files: with both set the proxy port speaks HTTPS only (clients use https://), with
    // neither plain HTTP.
    QString tlsCertFile;
    QString tlsKeyFile;
    bool servesTls() const { return !tlsCertFile.trimmed().isEmpty() || !tlsKeyFile.trimmed().isEmpty(); }
};

// Several instances sharing breaker, key, limit and budget state through one Redis (ARCHITECTURE.md,
// "A fleet"). Off unless a Redis URL is set: then nothing connects anywhere.
struct FleetConfig {
    QString redisUrl;   // redis://[user:password@]host[:port][/db]; empty = no fleet
    QString name = QStringLiteral("switchboard"); // instances with one name are one fleet (the keys' prefix)
    QString instanceId; // empty: the host name and the proxy port
    bool enabled() const { return !redisUrl.trimmed().isEmpty(); }
};

// What a model costs, for the cost column of the history and the budget.
struct ModelPrice {
    QString model;             // upstream model name as a channel names it, e.g. "gpt-4o-mini"
    double inputUsdPerM = 0.0;  // USD per 1M input (prompt) tokens
    double outputUsdPerM = 0.0; // USD per 1M output (completion) tokens
    // USD per 1M prompt tokens read from / written to the provider's prompt cache. Negative means
    // unset, and unset means the input price: a config written before these existed bills exactly
    // as it did (no guess at a provider's discount, e.g. Anthropic's 10% reads, 125% writes). 0 is
    // a real price: free.
    double cachedInputUsdPerM = kUnsetPrice;
    double cacheWriteUsdPerM = kUnsetPrice;

    static constexpr double kUnsetPrice = -1.0;
    static bool isSet(double usdPerM) { return usdPerM >= 0.0; }
    double cacheReadPrice() const { return isSet(cachedInputUsdPerM) ? cachedInputUsdPerM : inputUsdPerM; }
    double cacheWritePrice() const { return isSet(cacheWriteUsdPerM) ? cacheWriteUsdPerM : inputUsdPerM; }
};

// EngineConfig::problems(), by what they stop.
struct ConfigProblems {
    QStringList whole;     // the engine cannot be built from it: ids, names, references, thresholds
    // A provider or channel cannot serve: an unknown dialect, no key where one is needed, a base URL
    // with a query, an egress proxy that is no proxy URL. A save, an import and `--config` refuse
    // them too; a database written by an older version may hold them, and the engine starts on it
    // anyway (EngineHost says why in the log), so the console can open and mend them.
    QStringList providers;
};

struct EngineConfig {
    HealthConfig health;
    BreakerConfig breaker;
    ProbeConfig probe;
    PoolConfig pool;
    RetryConfig retry;
    ProxyConfig proxy;
    CacheLimits cache;
    FleetConfig fleet;

    std::vector<ProviderConfig> providers;
    std::vector<ChannelConfig> channels;
    std::vector<RouteConfig> routes;
    std::vector<ModelPrice> prices;
    std::vector<BudgetConfig> budgets; // per route
    AutoModelConfig autoModel;         // the task-based model, "auto"
    bool demo = false; // the seeded demo configuration (points at the simulator); the console labels it

    const ProviderConfig *provider(int id) const;
    const ChannelConfig *channel(int id) const;
    const RouteConfig *route(QStringView logicalModel) const;
    // A channel's failure domain: its own labels where set, else its provider's.
    FailureDomain domainOf(const ChannelConfig &channel) const;

    // Every problem, as sentences a user can act on; empty when the config is usable. A key without
    // a secret counts here: a save keeps the secret already stored under its id.
    QStringList validate() const;
    ConfigProblems problems() const; // the same sentences, sorted by what they stop
    // validate()'s problems, and those of a configuration that runs exactly as written, with no
    // database to fill in the secrets it leaves out (a `--config` file): a provider that needs a
    // key and has no enabled key with a secret.
    QStringList validateAsWritten() const;
};

using EngineConfigPtr = std::shared_ptr<const EngineConfig>;

} // namespace sb
