#pragma once

#include "model/EngineConfig.h"

#include <QString>
#include <QStringList>

namespace sb {

// The edits the Providers page and its dialogs make to a configuration snapshot. Every one starts
// from a copy of ConfigStore::current() and ends in ConfigStore::save(), so the repository's
// validation and the engine's live apply see the whole configuration, never a partial edit.
class ConfigEdits {
public:
    // The next free id; the repository refuses providers and channels without one.
    static int nextProviderId(const EngineConfig &config);
    static int nextChannelId(const EngineConfig &config);

    // Replaces the item with the same id, or appends it.
    static void putProvider(EngineConfig &config, const ProviderConfig &provider);
    static void putChannel(EngineConfig &config, const ChannelConfig &channel);
    static void putRoute(EngineConfig &config, const RouteConfig &route);
    // The route's budget (keyed by its logical model): replaced, added, or removed when `budget` is
    // null or sets no limit at all.
    static void setBudget(EngineConfig &config, const QString &model, const BudgetConfig *budget);

    // What the delete confirmation names: the channels that use the provider, and the routes that
    // list one of them.
    static QStringList channelsOf(const EngineConfig &config, int providerId);
    static QStringList routesUsingProvider(const EngineConfig &config, int providerId);
    static QStringList routesUsingChannel(const EngineConfig &config, int channelId);

    // Deleting takes the dependants along: the provider's channels leave every route, a route left
    // without channels is deleted, and fallbacks to and the budget of a deleted route are dropped — otherwise the
    // save would be refused for dangling references the user cannot see in the dialog.
    static void removeProvider(EngineConfig &config, int providerId);
    static void removeChannel(EngineConfig &config, int channelId);
    static void removeRoute(EngineConfig &config, int routeId);

private:
    static void dropEmptyRoutes(EngineConfig &config);
};

} // namespace sb
