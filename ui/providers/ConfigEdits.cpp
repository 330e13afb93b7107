#include "providers/ConfigEdits.h"

#include <algorithm>

namespace sb {

int ConfigEdits::nextProviderId(const EngineConfig &config)
{
    int id = 0;
    for (const auto &p : config.providers)
        id = std::max(id, p.id);
    return id + 1;
}

int ConfigEdits::nextChannelId(const EngineConfig &config)
{
    int id = 0;
    for (const auto &c : config.channels)
        id = std::max(id, c.id);
    return id + 1;
}

void ConfigEdits::putProvider(EngineConfig &config, const ProviderConfig &provider)
{
    for (auto &p : config.providers)
        if (p.id == provider.id) {
            p = provider;
            return;
        }
    config.providers.push_back(provider);
}

void ConfigEdits::putChannel(EngineConfig &config, const ChannelConfig &channel)
{
    for (auto &c : config.channels)
        if (c.id == channel.id) {
            c = channel;
            return;
        }
    config.channels.push_back(channel);
}

void ConfigEdits::putRoute(EngineConfig &config, const RouteConfig &route)
{
    if (route.id > 0)
        for (auto &r : config.routes)
            if (r.id == route.id) {
                // A renamed route keeps the routes that fall back to it, and its budget.
                if (r.logicalModel != route.logicalModel) {
                    for (auto &other : config.routes)
                        for (QString &f : other.fallbackModels)
                            if (f == r.logicalModel)
                                f = route.logicalModel;
                    for (auto &b : config.budgets)
                        if (b.model == r.logicalModel)
                            b.model = route.logicalModel;
                }
                r = route;
                return;
            }
    config.routes.push_back(route);
}

void ConfigEdits::setBudget(EngineConfig &config, const QString &model, const BudgetConfig *budget)
{
    if (!budget || (budget->softLimitUsd <= 0 && budget->hardLimitUsd <= 0)) {
        std::erase_if(config.budgets, [&](const BudgetConfig &b) { return b.model == model; });
        return;
    }
    BudgetConfig b = *budget;
    b.model = model;
    for (auto &existing : config.budgets)
        if (existing.model == model) {
            existing = b;
            return;
        }
    config.budgets.push_back(b);
}

QStringList ConfigEdits::channelsOf(const EngineConfig &config, int providerId)
{
    QStringList out;
    for (const auto &c : config.channels)
        if (c.providerId == providerId)
            out << c.name;
    return out;
}

QStringList ConfigEdits::routesUsingProvider(const EngineConfig &config, int providerId)
{
    QStringList out;
    for (const auto &r : config.routes)
        for (int id : r.channelIds) {
            const ChannelConfig *c = config.channel(id);
            if (c && c->providerId == providerId) {
                out << r.logicalModel;
                break;
            }
        }
    return out;
}

QStringList ConfigEdits::routesUsingChannel(const EngineConfig &config, int channelId)
{
    QStringList out;
    for (const auto &r : config.routes)
        if (std::find(r.channelIds.begin(), r.channelIds.end(), channelId) != r.channelIds.end())
            out << r.logicalModel;
    return out;
}

void ConfigEdits::removeProvider(EngineConfig &config, int providerId)
{
    std::vector<int> channels;
    for (const auto &c : config.channels)
        if (c.providerId == providerId)
            channels.push_back(c.id);
    for (int id : channels)
        removeChannel(config, id);
    std::erase_if(config.providers, [&](const ProviderConfig &p) { return p.id == providerId; });
}

void ConfigEdits::removeChannel(EngineConfig &config, int channelId)
{
    std::erase_if(config.channels, [&](const ChannelConfig &c) { return c.id == channelId; });
    for (auto &r : config.routes)
        std::erase(r.channelIds, channelId);
    dropEmptyRoutes(config);
}

void ConfigEdits::removeRoute(EngineConfig &config, int routeId)
{
    QString name;
    for (const auto &r : config.routes)
        if (r.id == routeId)
            name = r.logicalModel;
    std::erase_if(config.routes, [&](const RouteConfig &r) { return r.id == routeId; });
    for (auto &r : config.routes)
        r.fallbackModels.removeAll(name);
    std::erase_if(config.budgets, [&](const BudgetConfig &b) { return b.model == name; });
}

void ConfigEdits::dropEmptyRoutes(EngineConfig &config)
{
    std::vector<int> empty;
    for (const auto &r : config.routes)
        if (r.channelIds.empty())
            empty.push_back(r.id);
    for (int id : empty)
        removeRoute(config, id);
}

} // namespace sb
