#include "routing/RoutingTable.h"

#include "health/PoolManager.h"

#include <algorithm>
#include <unordered_set>

namespace sb {

namespace {
bool sameKeys(const ProviderConfig &a, const ProviderConfig &b)
{
    if (a.keys.size() != b.keys.size())
        return false;
    for (std::size_t i = 0; i < a.keys.size(); ++i) {
        const auto &x = a.keys[i], &y = b.keys[i];
        if (x.id != y.id || x.secret != y.secret || x.enabled != y.enabled || x.secretUnreadable() != y.secretUnreadable())
            return false;
    }
    return true;
}

// A refusal the previous configuration had and this one has not: the key was re-enabled (or given a
// new secret), which only a fresh ring undoes.
bool refusalCleared(const ProviderConfig &before, const ProviderConfig &after)
{
    for (const auto &old : before.keys) {
        if (!old.refused())
            continue;
        const auto it = std::find_if(after.keys.begin(), after.keys.end(), [&](const ApiKeyConfig &k) { return k.id == old.id; });
        if (it != after.keys.end() && !it->refused())
            return true;
    }
    return false;
}

bool sameLimits(const ProviderConfig &a, const ProviderConfig &b)
{
    return a.requestsPerMinute == b.requestsPerMinute && a.tokensPerMinute == b.tokensPerMinute && a.burst == b.burst;
}
} // namespace

RoutingTable::RoutingTable(const Clock &clock, EngineConfigPtr config, PoolManager &pool, const RoutingTable *previous)
    : m_config(std::move(config))
{
    std::unordered_map<int, std::shared_ptr<Provider>> providers;
    for (const auto &p : m_config->providers) {
        auto runtime = std::make_shared<Provider>();
        runtime->config = p;
        const Provider *old = previous ? previous->provider(p.id) : nullptr;
        runtime->limiter = old && sameLimits(old->config, p) ? old->limiter : std::make_shared<ProviderLimiter>(clock, p);
        const bool keepRing = old && sameKeys(old->config, p) && !refusalCleared(old->config, p);
        runtime->keys = keepRing ? old->keys : std::make_shared<KeyRing>(clock, p.keys, m_config->retry.keyCoolDown);
        if (keepRing) // a refusal stored since keeps the ring (and its siblings' cool-downs)
            runtime->keys->adoptRefusals(p.keys);
        runtime->keys->setDefaultCoolDown(m_config->retry.keyCoolDown); // a kept ring keeps its running cool-downs
        runtime->keys->setEvents(pool.events(), p.id, p.name);
        providers.emplace(p.id, runtime);
        m_providers.push_back(runtime);
    }
    for (const auto &c : m_config->channels) {
        auto it = providers.find(c.providerId);
        auto health = pool.channel(c.id);
        if (it == providers.end() || !health)
            continue;
        auto entry = std::make_unique<Entry>();
        entry->channel = c;
        entry->domain = m_config->domainOf(c);
        entry->health = std::move(health);
        entry->provider = it->second;
        m_entries.emplace(c.id, std::move(entry));
    }
    for (const auto &r : m_config->routes) {
        auto route = std::make_shared<Route>();
        route->config = r;
        std::unordered_set<int> seen;
        auto addTier = [&](const QString &model, const std::vector<int> &ids) {
            Tier tier;
            tier.logicalModel = model;
            for (int id : ids) {
                const Entry *e = entry(id);
                // A disabled channel or provider is not routable at all, not even in panic mode.
                if (!e || !e->channel.enabled || !e->provider->config.enabled || !seen.insert(id).second)
                    continue;
                tier.entries.push_back(e);
            }
            if (!tier.entries.empty())
                route->tiers.push_back(std::move(tier));
        };
        addTier(r.logicalModel, r.channelIds);
        for (const auto &fallback : r.fallbackModels)
            if (const RouteConfig *f = m_config->route(fallback))
                addTier(f->logicalModel, f->channelIds);
        m_routes.insert(r.logicalModel, route);
    }
}

const RoutingTable::Route *RoutingTable::route(const QString &logicalModel) const
{
    auto it = m_routes.constFind(logicalModel);
    return it == m_routes.constEnd() ? nullptr : it->get();
}

const RoutingTable::Entry *RoutingTable::entry(int channelId) const
{
    auto it = m_entries.find(channelId);
    return it == m_entries.end() ? nullptr : it->second.get();
}

const RoutingTable::Provider *RoutingTable::provider(int providerId) const
{
    for (const auto &p : m_providers)
        if (p->config.id == providerId)
            return p.get();
    return nullptr;
}

} // namespace sb
