#include "ProxyConfigs.h"

using namespace std::chrono_literals;

namespace sb::test {

std::shared_ptr<EngineConfig> loopbackConfig()
{
    auto config = std::make_shared<EngineConfig>();
    config->proxy.listenPort = 0;
    return config;
}

int addProviderChannel(EngineConfig &config, const QString &providerName, const QString &baseUrl,
                       const QString &channelName, const QString &upstreamModel)
{
    ProviderConfig provider;
    provider.id = static_cast<int>(config.providers.size()) + 1;
    provider.name = providerName;
    provider.dialect = QStringLiteral("openai_compat");
    provider.baseUrl = baseUrl;
    const QString secret = QStringLiteral("sk-%1-%2").arg(providerName).arg(provider.id, 4, 10, QLatin1Char('0'));
    provider.keys = {ApiKeyConfig{provider.id, QStringLiteral("key"), secret, true, {}}};
    config.providers.push_back(provider);
    ChannelConfig channel;
    channel.id = static_cast<int>(config.channels.size()) + 1;
    channel.name = channelName;
    channel.providerId = provider.id;
    channel.upstreamModel = upstreamModel;
    config.channels.push_back(channel);
    return channel.id;
}

void addSingleChannelRoute(EngineConfig &config, const QString &providerName, const QString &baseUrl,
                           const QString &logicalModel, const QString &channelName, const QString &upstreamModel)
{
    RouteConfig route;
    route.id = static_cast<int>(config.routes.size()) + 1;
    route.logicalModel = logicalModel;
    route.channelIds = {addProviderChannel(config, providerName, baseUrl, channelName, upstreamModel)};
    config.routes.push_back(route);
}

int addEmbeddingsChannel(EngineConfig &config, const QString &baseUrl)
{
    return addProviderChannel(config, QStringLiteral("embeddings"), baseUrl, QStringLiteral("embed"), QStringLiteral("fake-embed"));
}

std::shared_ptr<EngineConfig> oneChannelConfig(const QString &providerName, const QString &baseUrl, const QString &model)
{
    auto config = loopbackConfig();
    addSingleChannelRoute(*config, providerName, baseUrl, model, model + QStringLiteral("/A"), model);
    return config;
}

std::shared_ptr<EngineConfig> twoChannelConfig(const QString &primaryUrl, const QString &fallbackUrl)
{
    auto config = oneChannelConfig(QStringLiteral("primary"), primaryUrl);
    const int b = addProviderChannel(*config, QStringLiteral("fallback"), fallbackUrl, QStringLiteral("gpt-4o/B"), QStringLiteral("gpt-4o"));
    RouteConfig &route = config->routes.front();
    route.strategy = RoutingStrategy::Priority; // A first, so every test knows which channel is primary
    route.channelIds.push_back(b);
    for (ProviderConfig &provider : config->providers) {
        // A hanging provider holds a test for its attempt budget: 3 s, not the default 30 s.
        provider.primaryTimeout = 3s;
        provider.fallbackTimeout = 3s;
    }
    // Different accounts: B is outside A's failure domain, as a fallback should be.
    config->providers[0].domain.account = QStringLiteral("acct-a");
    config->providers[1].domain.account = QStringLiteral("acct-b");
    // Retries wait 10-15 ms instead of the default 100-200 ms: the retry tests need not wait.
    config->retry.baseDelay = 10ms;
    config->retry.jitter = 5ms;
    return config;
}

} // namespace sb::test
