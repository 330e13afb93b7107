#include "control/FleetChanges.h"

#include "routing/Router.h"

#include <algorithm>

namespace sb {

namespace {

const ChannelConfig *channelNamed(const EngineConfig &config, const QString &name)
{
    const auto it = std::find_if(config.channels.begin(), config.channels.end(), [&](const ChannelConfig &c) { return c.name == name; });
    return it == config.channels.end() ? nullptr : &*it;
}

const ProviderConfig *providerNamed(const EngineConfig &config, const QString &name)
{
    const auto it = std::find_if(config.providers.begin(), config.providers.end(), [&](const ProviderConfig &p) { return p.name == name; });
    return it == config.providers.end() ? nullptr : &*it;
}

// A provider without keys cools as a whole: key id 0, the fingerprint of no secret.
std::optional<QString> fingerprintOf(const ProviderConfig &provider, int keyId)
{
    if (keyId == 0)
        return provider.keys.empty() ? std::optional<QString>(keyFingerprint(QString())) : std::nullopt;
    for (const ApiKeyConfig &key : provider.keys)
        if (key.id == keyId)
            return key.secret.isEmpty() ? std::nullopt : std::optional<QString>(keyFingerprint(key.secret));
    return std::nullopt;
}

std::optional<int> keyIdOf(const ProviderConfig &provider, const QString &fingerprint)
{
    if (provider.keys.empty())
        return fingerprint == keyFingerprint(QString()) ? std::optional<int>(0) : std::nullopt;
    for (const ApiKeyConfig &key : provider.keys)
        if (!key.secret.isEmpty() && keyFingerprint(key.secret) == fingerprint)
            return key.id;
    return std::nullopt;
}

std::int64_t wallOf(Clock::TimePoint at, const Clock &clock)
{
    return clock.wallMillis() + std::chrono::duration_cast<std::chrono::milliseconds>(at - clock.now()).count();
}

Clock::TimePoint localOf(std::int64_t wallMillis, const Clock &clock)
{
    return clock.now() + std::chrono::milliseconds(wallMillis - clock.wallMillis());
}

std::optional<FleetChange> keyChange(const HealthEvent &event, const EngineConfig &config, const Router &router, const Clock &clock)
{
    const ProviderConfig *provider = config.provider(event.providerId);
    if (!provider || (event.to != u"cooling_down" && event.to != u"disabled"))
        return std::nullopt;
    const auto fingerprint = fingerprintOf(*provider, event.keyId);
    if (!fingerprint)
        return std::nullopt;
    FleetChange change;
    change.kind = FleetChange::Kind::Key;
    change.provider = provider->name;
    change.keyFingerprint = *fingerprint;
    if (event.to == u"cooling_down") {
        const auto ring = router.keyRing(provider->id);
        if (!ring)
            return std::nullopt;
        for (const KeyRing::KeyStatus &status : ring->status())
            if (status.keyId == event.keyId)
                change.untilWallMillis = wallOf(status.coolingUntil, clock);
        if (change.untilWallMillis == 0)
            return std::nullopt;
    }
    // The reason names the key by label and masked form only; the cause (the provider's refusal)
    // is what the other instances show.
    change.reason = event.cause.isEmpty() ? event.reason : event.cause;
    return change;
}

} // namespace

std::optional<FleetChange> fleetChangeFor(const HealthEvent &event, const EngineConfig &config, Router &router,
                                          const QString &instance, const Clock &clock)
{
    if (!event.fleetOrigin.isEmpty())
        return std::nullopt;
    std::optional<FleetChange> change;
    switch (event.type) {
    case HealthEvent::Type::Breaker: {
        if (event.to != u"open" && event.to != u"closed")
            return std::nullopt;
        change.emplace();
        change->kind = FleetChange::Kind::Breaker;
        change->channel = event.channelName;
        if (event.to == u"open") {
            const auto health = router.pool().channel(event.channelId);
            if (!health)
                return std::nullopt;
            change->untilWallMillis = wallOf(health->openUntil(), clock);
        }
        break;
    }
    case HealthEvent::Type::Pool: {
        const bool out = event.to == u"ejected" || event.to == u"drained";
        const bool backIn = event.to == u"active" && (event.from == u"ejected" || event.from == u"drained");
        if (!out && !backIn)
            return std::nullopt;
        change.emplace();
        change->kind = FleetChange::Kind::Pool;
        change->channel = event.channelName;
        break;
    }
    case HealthEvent::Type::Key:
        change = keyChange(event, config, router, clock);
        break;
    default:
        return std::nullopt;
    }
    if (!change)
        return std::nullopt;
    if (change->kind != FleetChange::Kind::Key)
        change->reason = event.reason;
    change->to = event.to;
    change->instance = instance;
    change->atWallMillis = clock.wallMillis();
    return change;
}

bool adoptFleetChange(const FleetChange &change, const EngineConfig &config, Router &router, const Clock &clock)
{
    switch (change.kind) {
    case FleetChange::Kind::Breaker:
    case FleetChange::Kind::Pool: {
        const ChannelConfig *channel = channelNamed(config, change.channel);
        const auto health = channel ? router.pool().channel(channel->id) : nullptr;
        if (!health)
            return false;
        if (change.kind == FleetChange::Kind::Breaker) {
            if (change.to == u"open")
                return health->adoptBreaker(BreakerState::Open, localOf(change.untilWallMillis, clock), change.instance, change.reason);
            if (change.to == u"closed")
                return health->adoptBreaker(BreakerState::Closed, {}, change.instance, change.reason);
            return false;
        }
        const PoolState to = change.to == u"ejected" ? PoolState::Ejected
            : change.to == u"drained"               ? PoolState::Drained
            : change.to == u"active"                ? PoolState::Active
                                                     : PoolState::Degraded; // anything else: adoptPool refuses it
        return health->adoptPool(to, change.instance, change.reason);
    }
    case FleetChange::Kind::Key: {
        const ProviderConfig *provider = providerNamed(config, change.provider);
        const auto keyId = provider ? keyIdOf(*provider, change.keyFingerprint) : std::nullopt;
        const auto ring = keyId ? router.keyRing(provider->id) : nullptr;
        if (!ring)
            return false;
        if (change.to == u"cooling_down")
            return ring->adoptCoolDown(*keyId, localOf(change.untilWallMillis, clock), change.instance);
        if (change.to == u"disabled") {
            ring->reportAuthError(*keyId, QStringLiteral("%1 (seen by %2)").arg(change.reason, change.instance), change.instance);
            return true;
        }
        return false;
    }
    }
    return false;
}

} // namespace sb
