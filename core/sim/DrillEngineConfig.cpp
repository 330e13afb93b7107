#include "sim/DrillEngineConfig.h"

#include "model/ConfigJson.h"

#include <algorithm>

namespace sb::sim {

namespace {

// A provider that accepts any key still needs one in the request; this one is fake and says so.
QString placeholderKey(const QString &provider)
{
    return QStringLiteral("sk-drill-%1-0000").arg(provider);
}

} // namespace

std::shared_ptr<EngineConfig> drillEngineConfig(const DrillEngineConfigInput &input, QString *error)
{
    const Scenario &scenario = *input.scenario;
    auto config = std::make_shared<EngineConfig>();
    config->proxy = input.proxy;
    BreakerConfig::fromPreset(scenario.proxy.breakerPreset, &config->breaker);
    for (auto it = scenario.proxy.settings.constBegin(); it != scenario.proxy.settings.constEnd(); ++it)
        applyEngineSetting(config.get(), it.key(), it.value()); // checked when the scenario was read

    int nextKeyId = input.idBase + 1;
    QMap<QString, int> channelIds;
    int index = 0;
    for (const ProviderSpec &spec : scenario.providers) {
        ++index;
        const QString url = input.baseUrls.value(spec.name);
        if (url.isEmpty()) {
            if (error)
                *error = QStringLiteral("The drill's provider \"%1\" is not running, so the drill has nowhere to send it.").arg(spec.name);
            return nullptr;
        }
        ProviderConfig p;
        p.id = input.idBase + index;
        p.name = spec.name;
        p.dialect = spec.dialect;
        p.baseUrl = url;
        p.caBundle = spec.tlsCertFile; // a provider serving HTTPS signed its own certificate
        // Every fake provider is its own failure domain, as two real providers would be.
        p.domain.account = QStringLiteral("drill-%1").arg(spec.name);
        if (spec.keys.empty()) {
            p.keys.push_back(ApiKeyConfig{nextKeyId++, QStringLiteral("drill key"), placeholderKey(spec.name), true, {}});
        } else {
            int k = 0;
            for (const KeySpec &key : spec.keys) {
                // An ERNIE API key with its secret key is the pair the engine exchanges for tokens.
                const QByteArray secret = key.clientSecret.isEmpty() ? key.secret : key.secret + ':' + key.clientSecret;
                p.keys.push_back(ApiKeyConfig{nextKeyId++, QStringLiteral("drill key %1").arg(++k), QString::fromUtf8(secret), true, {}});
            }
        }
        config->providers.push_back(p);

        ChannelConfig c;
        c.id = p.id;
        c.name = spec.name;
        c.providerId = p.id;
        c.upstreamModel = spec.models.value(0);
        config->channels.push_back(c);
        channelIds.insert(spec.name, c.id);
    }

    int routeIndex = 0;
    for (const ProxyRouteSpec &spec : scenario.proxy.routes) {
        RouteConfig r;
        r.id = input.idBase + ++routeIndex;
        r.logicalModel = spec.model;
        routingStrategyFromString(spec.strategy, &r.strategy);
        for (const QString &name : spec.channels)
            r.channelIds.push_back(channelIds.value(name));
        if (r.channelIds.empty()) {
            if (error)
                *error = QStringLiteral("No provider of the drill serves the model \"%1\"; give the scenario a \"proxy\" route for it.")
                             .arg(spec.model);
            return nullptr;
        }
        config->routes.push_back(r);
    }

    const QStringList problems = config->validate();
    if (!problems.isEmpty()) {
        if (error)
            *error = QStringLiteral("The drill's engine configuration is not valid: %1").arg(problems.join(QLatin1Char(' ')));
        return nullptr;
    }
    return config;
}

int drillIdBase(const EngineConfig &config)
{
    int top = 0;
    for (const auto &p : config.providers) {
        top = std::max(top, p.id);
        for (const auto &k : p.keys)
            top = std::max(top, k.id);
    }
    for (const auto &c : config.channels)
        top = std::max(top, c.id);
    for (const auto &r : config.routes)
        top = std::max(top, r.id);
    return (top / 1000 + 1) * 1000;
}

} // namespace sb::sim
