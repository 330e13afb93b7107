#include "routing/Router.h"

#include "health/HeartbeatProber.h"
#include "routing/MisconfigurationReason.h"
#include "routing/RetryState.h"

#include <QStringList>
#include <QVarLengthArray>

#include <algorithm>
#include <mutex>

namespace sb {

namespace {
using Entry = RoutingTable::Entry;
using Candidates = QVarLengthArray<const Entry *, 16>;

bool isDegraded(const Entry *e)
{
    return e->health->poolState() == PoolState::Degraded;
}

template <class Pred>
void stablePartition(Candidates &c, Pred pred)
{
    std::stable_partition(c.begin(), c.end(), pred);
}

void orderByStrategy(Candidates &c, const RoutingTable::Route &route, Random &random, double degradedFactor)
{
    if (c.size() < 2)
        return;
    switch (route.config.strategy) {
    case RoutingStrategy::Health:
        std::stable_sort(c.begin(), c.end(),
                         [](const Entry *a, const Entry *b) { return a->health->score() > b->health->score(); });
        break;
    case RoutingStrategy::Weighted: {
        QVarLengthArray<double, 16> weights;
        for (const Entry *e : c)
            weights.append(std::max(1e-9, e->channel.weight * std::max(1.0, e->health->score()) / 100.0
                                              * (isDegraded(e) ? degradedFactor : 1.0)));
        // A weighted shuffle: draw the first by weight, then the next from the rest, and so on.
        for (qsizetype i = 0; i + 1 < c.size(); ++i) {
            double total = 0;
            for (qsizetype j = i; j < c.size(); ++j)
                total += weights[j];
            double pick = random.uniform(0.0, total);
            qsizetype chosen = c.size() - 1;
            for (qsizetype j = i; j < c.size(); ++j) {
                pick -= weights[j];
                if (pick < 0) {
                    chosen = j;
                    break;
                }
            }
            std::swap(c[i], c[chosen]);
            std::swap(weights[i], weights[chosen]);
        }
        break;
    }
    case RoutingStrategy::Latency: {
        auto cost = [degradedFactor](const Entry *e) {
            const double ewma = e->health->latencyEwmaMs();
            return isDegraded(e) ? ewma / std::max(1e-3, degradedFactor) : ewma;
        };
        // Power of two choices: two random candidates, the faster one first. Comparing only two keeps
        // every worker from piling onto the one channel that looked fastest a moment ago.
        const auto n = static_cast<std::uint64_t>(c.size());
        const auto i = static_cast<qsizetype>(random.below(n));
        auto j = static_cast<qsizetype>(random.below(n - 1));
        if (j >= i)
            ++j;
        const qsizetype winner = cost(c[i]) <= cost(c[j]) ? i : j;
        std::swap(c[0], c[winner]);
        std::stable_sort(c.begin() + 1, c.end(), [&](const Entry *a, const Entry *b) { return cost(a) < cost(b); });
        break;
    }
    case RoutingStrategy::Priority:
        stablePartition(c, [](const Entry *e) { return !isDegraded(e); });
        break;
    case RoutingStrategy::RoundRobin: {
        const auto shift = static_cast<qsizetype>(route.cursor.fetch_add(1, std::memory_order_relaxed)
                                                  % static_cast<std::uint64_t>(c.size()));
        std::rotate(c.begin(), c.begin() + shift, c.end());
        stablePartition(c, [](const Entry *e) { return !isDegraded(e); });
        break;
    }
    }
}

QString seconds(Clock::Duration d)
{
    return QString::number(std::max(0.0, toSeconds(d)), 'f', 1);
}
} // namespace

Router::Router(const Clock &clock, Random &random, EngineConfigPtr config)
    : m_clock(clock)
    , m_random(random)
    , m_pool(clock)
{
    setConfig(std::move(config));
}

namespace {

// Versions come from one counter across all routers (none is 0), so a version names one table of
// one router: a router made where a destroyed one lived never matches the destroyed one's copy.
std::atomic<std::uint64_t> g_tableVersions{0};

struct CachedTable {
    std::uint64_t version = 0;
    std::shared_ptr<const RoutingTable> table;
};
thread_local CachedTable t_cachedTable;

} // namespace

Router::~Router()
{
    if (t_cachedTable.version == m_tableVersion.load(std::memory_order_acquire))
        t_cachedTable = CachedTable{}; // this thread's copy goes with its router
}

std::shared_ptr<const RoutingTable> Router::table() const
{
    const std::uint64_t version = m_tableVersion.load(std::memory_order_acquire);
    CachedTable &cached = t_cachedTable;
    if (cached.version != version) {
        // A table newer than `version` may be read here; the next call then reads it again.
        cached.table = m_table.load(std::memory_order_acquire);
        cached.version = version;
    }
    return cached.table;
}

void Router::setConfig(EngineConfigPtr config)
{
    std::lock_guard lock(m_configMutex);
    if (!config)
        config = std::make_shared<const EngineConfig>();
    m_pool.reconfigure(*config);
    auto previous = m_table.load(std::memory_order_acquire);
    m_table.store(std::make_shared<const RoutingTable>(m_clock, std::move(config), m_pool, previous.get()),
                  std::memory_order_release);
    m_tableVersion.store(g_tableVersions.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_release);
}

QString Router::unknownModelMessage(const QString &logicalModel, const EngineConfig &config)
{
    // Naming what is there turns a new user's first 404 into the fix: most ask for the model their
    // example named, and the routes here are called something else.
    constexpr std::size_t kNamed = 8;
    QStringList models;
    for (const RouteConfig &route : config.routes) {
        if (models.size() == qsizetype(kNamed))
            break;
        models << QStringLiteral("\"%1\"").arg(route.logicalModel);
    }
    if (config.autoModel.enabled() && models.size() < qsizetype(kNamed))
        models << QStringLiteral("\"%1\"").arg(config.autoModel.modelName);
    QString message = QStringLiteral("The model \"%1\" has no route. ").arg(logicalModel.left(200));
    if (models.isEmpty())
        return message + QStringLiteral("No route is configured yet: add one in the console (Providers) or in the configuration file.");
    const bool more = config.routes.size() > kNamed;
    return message + QStringLiteral("Ask for one of the configured models (%1%2), or add a route for it in the console.")
                         .arg(models.join(QStringLiteral(", ")), more ? QStringLiteral(", …") : QString());
}

EngineConfigPtr Router::config() const
{
    return table()->config();
}

RouteResult Router::choose(const QString &logicalModel, const RetryState &state, std::optional<int> lastFailedChannel,
                           int estimatedTokens, const Outcome *lastFailure, std::optional<int> otherProviderThan)
{
    const auto t = table();
    RouteResult result;
    const RoutingTable::Route *route = t->route(logicalModel);
    if (!route) {
        m_counters.unknownModel.fetch_add(1, std::memory_order_relaxed);
        result.refusal.httpStatus = 404;
        result.refusal.message = unknownModelMessage(logicalModel, *t->config());
        return result;
    }
    const double degradedFactor = t->config()->health.degradedWeightFactor;
    const Entry *failed = lastFailedChannel ? t->entry(*lastFailedChannel) : nullptr;

    auto take = [&](const Entry *e, int tier, bool panic) -> bool {
        const auto &provider = *e->provider;
        if (provider.keys->allCoolingOrDisabled()) {
            m_counters.keyExhaustions.fetch_add(1, std::memory_order_relaxed);
            return false;
        }
        CircuitBreaker::Admission admission = CircuitBreaker::Admission::Admitted;
        if (!panic) {
            admission = e->health->admit(m_random);
            if (admission == CircuitBreaker::Admission::Rejected)
                return false;
        }
        const bool trial = admission == CircuitBreaker::Admission::Trial;
        if (!provider.limiter->tryAdmit(estimatedTokens)) {
            m_counters.bucketRefusals.fetch_add(1, std::memory_order_relaxed);
            reportBucketRefusal(provider, estimatedTokens);
            if (trial)
                e->health->releaseTrial();
            return false;
        }
        auto lease = provider.keys->next();
        if (!lease) {
            m_counters.keyExhaustions.fetch_add(1, std::memory_order_relaxed);
            if (trial)
                e->health->releaseTrial();
            return false;
        }
        RouteChoice c;
        c.channelId = e->channel.id;
        c.channelName = e->channel.name;
        c.providerId = provider.config.id;
        c.upstreamModel = e->channel.upstreamModel;
        c.logicalModel = route->tiers[static_cast<std::size_t>(tier)].logicalModel;
        c.tier = tier;
        c.key = std::move(*lease);
        c.panic = panic;
        c.halfOpenTrial = trial;
        c.failover = failed && failed->channel.id != c.channelId;
        c.health = e->health;
        c.keys = provider.keys;
        result.choice = std::move(c);
        return true;
    };

    // Pass 0: channels not yet tried in this request; pass 1: tried ones, when nothing else could take it.
    // A try elsewhere has only pass 0: a channel asked already has answered this request.
    const int passes = otherProviderThan ? 1 : 2;
    for (int pass = 0; pass < passes && !result.choice; ++pass) {
        for (std::size_t tier = 0; tier < route->tiers.size() && !result.choice; ++tier) {
            Candidates candidates;
            for (const Entry *e : route->tiers[tier].entries) {
                if (!e->health->routable())
                    continue;
                if (state.triedChannel(e->channel.id) != (pass == 1))
                    continue;
                if (otherProviderThan && e->provider->config.id == *otherProviderThan)
                    continue;
                candidates.append(e);
            }
            if (candidates.isEmpty())
                continue;
            orderByStrategy(candidates, *route, m_random, degradedFactor);
            stablePartition(candidates, [](const Entry *e) { return e->health->breakerState() == BreakerState::HalfOpen; });
            if (failed)
                stablePartition(candidates, [&](const Entry *e) { return !e->domain.sharesAnyWith(failed->domain); });
            for (const Entry *e : candidates)
                if (take(e, static_cast<int>(tier), false))
                    break;
        }
    }

    if (!result.choice && m_pool.panicModeEnabled() && !otherProviderThan) {
        // No channel could take it the normal way: the least bad one beats a certain error (a clear
        // "no provider available" is for a pool that is truly empty). That includes a route whose only
        // routable channels have their keys cooling while another is OPEN: the soak's 30 minutes refused
        // 11,715 requests that way. Drained channels stay out: a person said so. take() still refuses
        // a cooling key or a full token bucket, so panic never spends a provider's rate limit.
        struct Panic {
            const Entry *e;
            int tier;
        };
        // Only channels the breaker or the pool kept out: for the others a panic take() would fail
        // exactly as the normal one did (keys, bucket).
        QVarLengthArray<Panic, 16> all;
        for (std::size_t tier = 0; tier < route->tiers.size(); ++tier)
            for (const Entry *e : route->tiers[tier].entries) {
                const bool keptOut = !e->health->routable() || e->health->breakerState() == BreakerState::HalfOpen;
                const PoolState pool = e->health->poolState();
                // A misconfigured channel cannot answer however bad the alternatives: not even in panic.
                if (keptOut && pool != PoolState::Drained && pool != PoolState::Misconfigured)
                    all.append({e, static_cast<int>(tier)});
            }
        std::stable_sort(all.begin(), all.end(), [&](const Panic &a, const Panic &b) {
            const bool ta = state.triedChannel(a.e->channel.id), tb = state.triedChannel(b.e->channel.id);
            if (ta != tb)
                return !ta;
            return a.e->health->score() > b.e->health->score();
        });
        for (const auto &p : all)
            if (take(p.e, p.tier, true)) {
                m_counters.panicChoices.fetch_add(1, std::memory_order_relaxed);
                m_pool.notePanic(*p.e->health, logicalModel);
                break;
            }
    }

    if (!result.choice && otherProviderThan)
        return result; // no try elsewhere: the client gets the error it has, no refusal is counted
    if (!result.choice) {
        result.refusal = refuse(*route, state, estimatedTokens);
        (result.refusal.httpStatus == 429 ? m_counters.rateLimited : m_counters.unavailable)
            .fetch_add(1, std::memory_order_relaxed);
        result.passedOver = untriedOnly(result.refusal.channels, state, 0);
        return result;
    }
    // Only when every untried channel was passed over (the usual first choice skips nothing): the
    // reasons are built then, as they are now, for the request's error should it end in one.
    if (state.triedChannel(result.choice->channelId) || result.choice->panic)
        result.passedOver = untriedOnly(refuse(*route, state, estimatedTokens).channels, state, result.choice->channelId);

    RouteChoice &c = *result.choice;
    c.health->attemptStarted();
    m_counters.choices.fetch_add(1, std::memory_order_relaxed);
    if (c.tier > 0)
        m_counters.fallbackTier.fetch_add(1, std::memory_order_relaxed);
    if (c.halfOpenTrial)
        m_counters.halfOpenTrials.fetch_add(1, std::memory_order_relaxed);
    if (c.failover) {
        m_counters.failovers.fetch_add(1, std::memory_order_relaxed);
        const Entry *chosen = t->entry(c.channelId);
        const bool disjoint = chosen && !chosen->domain.sharesAnyWith(failed->domain);
        if (disjoint)
            m_counters.domainDisjoint.fetch_add(1, std::memory_order_relaxed);
        HealthEvent e;
        e.type = HealthEvent::Type::Failover;
        e.channelId = c.channelId;
        e.channelName = c.channelName;
        e.fromChannelId = failed->channel.id;
        e.from = failed->channel.name;
        e.to = c.channelName;
        e.route = logicalModel;
        if (lastFailure)
            e.cause = lastFailure->httpStatus > 0
                ? QStringLiteral("%1, HTTP %2").arg(QLatin1String(toString(lastFailure->kind))).arg(lastFailure->httpStatus)
                : QLatin1String(toString(lastFailure->kind));
        e.reason = QStringLiteral("attempt on %1 failed%2; tier %3%4")
                       .arg(failed->channel.name)
                       .arg(e.cause.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(e.cause))
                       .arg(c.tier)
                       .arg(disjoint ? QStringLiteral(", no shared failure domain") : QString());
        e.at = m_clock.now();
        e.wallMillis = m_clock.wallMillis();
        m_pool.events()->emitEvent(e);
    }
    return result;
}

bool Router::hasUntriedChannel(const QString &logicalModel, const RetryState &state) const
{
    const auto t = table();
    const RoutingTable::Route *route = t->route(logicalModel);
    if (!route)
        return false;
    for (const auto &tier : route->tiers)
        for (const Entry *e : tier.entries)
            if (!state.triedChannel(e->channel.id) && e->health->couldAdmitNow() && !e->provider->keys->allCoolingOrDisabled())
                return true;
    return false;
}

std::optional<Clock::Duration> Router::untriedChannelFreeIn(const QString &logicalModel, const RetryState &state,
                                                            int estimatedTokens) const
{
    const auto t = table();
    const RoutingTable::Route *route = t->route(logicalModel);
    if (!route)
        return std::nullopt;
    std::optional<Clock::Duration> soonest;
    for (const auto &tier : route->tiers)
        for (const Entry *e : tier.entries) {
            if (state.triedChannel(e->channel.id) || !e->health->couldAdmitNow())
                continue; // a breaker's wait is not one a request is held for
            Clock::Duration wait = Clock::Duration::zero();
            if (e->provider->keys->allCoolingOrDisabled()) {
                const auto keyFree = e->provider->keys->soonestAvailableIn();
                if (!keyFree)
                    continue; // every key disabled: no wait brings it back
                wait = *keyFree;
            }
            wait = std::max(wait, e->provider->limiter->timeUntilAdmit(estimatedTokens));
            soonest = soonest ? std::min(*soonest, wait) : wait;
        }
    return soonest;
}

QStringList Router::untriedChannelReasons(const QString &logicalModel, const RetryState &state, int estimatedTokens) const
{
    const auto t = table();
    const RoutingTable::Route *route = t->route(logicalModel);
    if (!route)
        return {};
    QStringList reasons;
    for (const auto &c : untriedOnly(refuse(*route, state, estimatedTokens).channels, state, 0)) {
        const QString then = state.passedOverReason(c.channelId);
        if (then.isEmpty() || then == c.reason)
            reasons << QStringLiteral("%1: %2").arg(c.channelName, c.reason);
        else // its "next in" counted from then, not from when the client reads it
            reasons << QStringLiteral("%1: %2, as the last attempt was chosen").arg(c.channelName, then);
    }
    return reasons;
}

std::vector<RouteRefusal::ChannelReason> Router::untriedOnly(std::vector<RouteRefusal::ChannelReason> channels,
                                                             const RetryState &state, int chosenChannel)
{
    std::erase_if(channels, [&](const RouteRefusal::ChannelReason &c) {
        return c.channelId == chosenChannel || state.triedChannel(c.channelId);
    });
    return channels;
}

RouteRefusal Router::refuse(const RoutingTable::Route &route, const RetryState &state, int estimatedTokens) const
{
    RouteRefusal r;
    bool anyRateLimited = false, anyOtherwiseOut = false;
    std::optional<Clock::Duration> soonest;
    for (const auto &tier : route.tiers) {
        for (const Entry *e : tier.entries) {
            const auto &h = *e->health;
            const auto &provider = *e->provider;
            QString reason;
            const PoolState pool = h.poolState();
            if (pool == PoolState::Drained || pool == PoolState::Ejected || pool == PoolState::Misconfigured) {
                reason = QStringLiteral("%1 (%2)").arg(QString::fromLatin1(toString(pool)), h.snapshot().poolReason);
            } else if (!h.routable()) {
                reason = QStringLiteral("circuit open");
            } else if (provider.keys->allCoolingOrDisabled()) {
                const auto wait = provider.keys->soonestAvailableIn();
                if (const QString unreadable = provider.keys->unreadableSecretReason(); !wait && !unreadable.isEmpty())
                    reason = QStringLiteral("no API key of its can be read (%1); nothing is sent without one").arg(unreadable);
                else if (!wait)
                    reason = QStringLiteral("every API key is disabled; edit the provider's keys");
                else if (provider.keys->totalCount() == 0)
                    reason = QStringLiteral("the provider answered 429, cooling down (next in %1 s)").arg(seconds(*wait));
                else
                    reason = QStringLiteral("every API key is cooling down (next in %1 s)").arg(seconds(*wait));
                if (wait) {
                    anyRateLimited = true;
                    soonest = soonest ? std::min(*soonest, *wait) : *wait;
                } else {
                    anyOtherwiseOut = true;
                }
                r.channels.push_back({e->channel.id, e->channel.name, reason});
                continue;
            } else if (const auto wait = provider.limiter->timeUntilAdmit(estimatedTokens); wait > Clock::Duration::zero()) {
                reason = QStringLiteral("provider rate limit reached (next in %1 s)").arg(seconds(wait));
                anyRateLimited = true;
                soonest = soonest ? std::min(*soonest, wait) : wait;
                r.channels.push_back({e->channel.id, e->channel.name, reason});
                continue;
            } else if (h.breakerState() == BreakerState::HalfOpen) {
                reason = QStringLiteral("circuit half-open, trial calls in progress");
            } else if (state.triedChannel(e->channel.id)) {
                reason = QStringLiteral("already failed in this request");
                r.channels.push_back({e->channel.id, e->channel.name, reason});
                continue; // neutral: says nothing about whether waiting would help
            } else {
                // Nothing keeps it out now: it came free after the choice that passed it over.
                reason = QStringLiteral("free again by the time this answer was written");
            }
            anyOtherwiseOut = true;
            r.channels.push_back({e->channel.id, e->channel.name, reason});
        }
    }
    r.freeIn = soonest;
    QStringList parts;
    for (const auto &c : r.channels)
        parts << QStringLiteral("%1: %2").arg(c.channelName, c.reason);
    if (anyRateLimited && !anyOtherwiseOut) {
        r.httpStatus = 429;
        r.retryAfter = soonest;
        r.message = QStringLiteral("Every channel for \"%1\" is rate limited; retry after %2 s. %3")
                        .arg(route.config.logicalModel, seconds(soonest.value_or(Clock::Duration::zero())),
                             parts.join(QStringLiteral("; ")));
    } else {
        r.httpStatus = 503;
        r.message = QStringLiteral("No channel can serve \"%1\" now (%2). Check the providers in the console.")
                        .arg(route.config.logicalModel, parts.join(QStringLiteral("; ")));
    }
    return r;
}

void Router::reportBucketRefusal(const RoutingTable::Provider &provider, int estimatedTokens)
{
    constexpr auto kQuiet = std::chrono::seconds(10);
    if (!provider.limiter->reportRefusal(m_clock.now(), kQuiet))
        return;
    const ProviderConfig &p = provider.config;
    QStringList limits;
    if (p.requestsPerMinute > 0)
        limits << QStringLiteral("%1 requests/min").arg(p.requestsPerMinute);
    if (p.tokensPerMinute > 0)
        limits << QStringLiteral("%1 tokens/min").arg(p.tokensPerMinute);
    HealthEvent e;
    e.type = HealthEvent::Type::Bucket;
    e.providerId = p.id;
    e.channelName = p.name;
    e.to = QStringLiteral("refusing");
    e.reason = QStringLiteral("%1's rate limit (%2) refused a request; next admission in %3 s (further refusals for 10 s "
                              "are counted in /metrics only)")
                   .arg(p.name, limits.join(QStringLiteral(", ")),
                        seconds(provider.limiter->timeUntilAdmit(estimatedTokens)));
    e.at = m_clock.now();
    e.wallMillis = m_clock.wallMillis();
    m_pool.events()->emitEvent(e);
}

void Router::record(const RouteChoice &choice, const Outcome &outcome, Clock::Duration latency,
                    std::optional<Clock::Duration> ttft)
{
    if (choice.health) {
        if (!choice.slowWaitCounted)
            choice.health->record(outcome, latency, ttft, choice.halfOpenTrial);
        else if (outcome.isSuccess()) // its trial slot went with the slow-wait failure
            choice.health->record(outcome, latency, ttft, false);
        choice.health->attemptFinished();
    }
    if (!choice.keys)
        return;
    switch (outcome.kind) {
    case OutcomeKind::Success:
        choice.keys->reportSuccess(choice.key.keyId);
        break;
    case OutcomeKind::RetryableRateLimit:
        choice.keys->reportRateLimited(choice.key.keyId, outcome.retryAfter, outcome.retryAfterFrom);
        break;
    case OutcomeKind::AuthError:
        choice.keys->reportAuthError(choice.key.keyId, outcome.message);
        break;
    default:
        break;
    }
    noteMisconfiguration(choice, outcome);
}

void Router::noteMisconfiguration(const RouteChoice &choice, const Outcome &outcome)
{
    if (!choice.health)
        return;
    Misconfiguration cause = outcome.misconfiguration;
    // Every key refused (or a keyless provider that wants one) is the provider's configuration, for
    // all its channels: no request can succeed there until the keys are replaced.
    const bool everyKeyRefused = outcome.kind == OutcomeKind::AuthError && choice.keys
        && (choice.keys->totalCount() == 0 || !choice.keys->soonestAvailableIn());
    if (everyKeyRefused)
        cause = Misconfiguration::KeysRefused;
    if (cause == Misconfiguration::None)
        return;
    const auto t = table();
    const RoutingTable::Provider *provider = t->provider(choice.providerId);
    const QString providerName = provider ? provider->config.name : choice.channelName;
    const QString reason = misconfigurationReason(outcome, cause, providerName, choice.keys ? choice.keys->totalCount() : 0);
    if (cause != Misconfiguration::KeysRefused || !provider) {
        choice.health->markMisconfigured(cause, reason);
        return;
    }
    for (const auto &channel : m_pool.channels())
        if (channel->providerId() == choice.providerId)
            channel->markMisconfigured(cause, reason);
}

void Router::record(int channelId, const Outcome &outcome, Clock::Duration latency, std::optional<Clock::Duration> ttft)
{
    const auto t = table();
    if (const Entry *e = t->entry(channelId))
        e->health->record(outcome, latency, ttft, false);
}

void Router::recordSlowWait(RouteChoice &choice)
{
    if (!choice.health || choice.slowWaitCounted)
        return;
    choice.slowWaitCounted = true;
    choice.health->recordSlowWait(choice.halfOpenTrial);
}

void Router::release(const RouteChoice &choice)
{
    if (!choice.health)
        return;
    if (choice.halfOpenTrial && !choice.slowWaitCounted)
        choice.health->releaseTrial();
    choice.health->attemptFinished();
}

void Router::tick()
{
    m_pool.tick();
    if (auto *prober = m_prober.load())
        prober->tick();
}

std::vector<ChannelSnapshot> Router::snapshots() const
{
    const auto t = table();
    auto out = m_pool.snapshots();
    for (auto &s : out) {
        if (const auto *p = t->provider(s.providerId)) {
            s.keysHealthy = p->keys->healthyCount();
            s.keysTotal = p->keys->totalCount();
            s.headroom = p->limiter->headroom();
        }
    }
    return out;
}

std::shared_ptr<KeyRing> Router::keyRing(int providerId) const
{
    const auto t = table();
    const auto *p = t->provider(providerId);
    return p ? p->keys : nullptr;
}

std::shared_ptr<ProviderLimiter> Router::limiter(int providerId) const
{
    const auto t = table();
    const auto *p = t->provider(providerId);
    return p ? p->limiter : nullptr;
}

Router::Stats Router::stats() const
{
    constexpr auto relaxed = std::memory_order_relaxed;
    Stats s;
    s.choices = m_counters.choices.load(relaxed);
    s.failovers = m_counters.failovers.load(relaxed);
    s.domainDisjointFailovers = m_counters.domainDisjoint.load(relaxed);
    s.fallbackTierChoices = m_counters.fallbackTier.load(relaxed);
    s.halfOpenTrials = m_counters.halfOpenTrials.load(relaxed);
    s.panicChoices = m_counters.panicChoices.load(relaxed);
    s.bucketRefusals = m_counters.bucketRefusals.load(relaxed);
    s.keyExhaustions = m_counters.keyExhaustions.load(relaxed);
    s.rateLimitedRefusals = m_counters.rateLimited.load(relaxed);
    s.unavailableRefusals = m_counters.unavailable.load(relaxed);
    s.unknownModel = m_counters.unknownModel.load(relaxed);
    const auto t = table();
    for (const auto &p : t->providers()) {
        s.keyCoolDowns += p->keys->stats().coolDowns;
        s.bucketRefusalsTotal += p->limiter->stats().refused;
    }
    return s;
}

} // namespace sb
