#pragma once

#include "common/Clock.h"
#include "health/ChannelHealth.h"
#include "model/EngineConfig.h"
#include "routing/KeyRing.h"
#include "routing/ProviderLimiter.h"

#include <QHash>
#include <QString>

#include <atomic>
#include <memory>
#include <unordered_map>
#include <vector>

namespace sb {

class PoolManager;

// One immutable resolution of an EngineConfig for routing: each route's tiers of channels, each
// channel's live health (shared with the PoolManager, so it survives config changes), failure domain
// and provider (limiter + key ring). A new table is built when the config changes; the provider
// limiter and key ring are carried over when that provider's keys and limits did not change, so
// saving an unrelated dialog does not forget cool-downs (and an edited key list, or a key whose stored
// refusal was cleared, starts fresh, which is how a disabled key comes back). Read-only after
// construction, shared by every worker.
class RoutingTable {
public:
    struct Provider {
        ProviderConfig config;
        std::shared_ptr<ProviderLimiter> limiter;
        std::shared_ptr<KeyRing> keys;
    };
    struct Entry {
        ChannelConfig channel;
        FailureDomain domain;
        std::shared_ptr<ChannelHealth> health;
        std::shared_ptr<Provider> provider;
    };
    struct Tier {
        QString logicalModel; // the route's own model for tier 0, the fallback model's name after
        std::vector<const Entry *> entries;
    };
    struct Route {
        RouteConfig config;
        std::vector<Tier> tiers;
        // Round-robin position; mutable state in an otherwise immutable table, shared by the workers.
        mutable std::atomic<std::uint64_t> cursor{0};
    };

    RoutingTable(const Clock &clock, EngineConfigPtr config, PoolManager &pool, const RoutingTable *previous);
    RoutingTable(const RoutingTable &) = delete;
    RoutingTable &operator=(const RoutingTable &) = delete;

    const Route *route(const QString &logicalModel) const;
    const Entry *entry(int channelId) const;
    const Provider *provider(int providerId) const;
    const std::vector<std::shared_ptr<Provider>> &providers() const { return m_providers; }
    const EngineConfigPtr &config() const { return m_config; }

private:
    EngineConfigPtr m_config;
    std::vector<std::shared_ptr<Provider>> m_providers;
    std::unordered_map<int, std::unique_ptr<Entry>> m_entries;
    QHash<QString, std::shared_ptr<Route>> m_routes;
};

} // namespace sb
