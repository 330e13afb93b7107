#include "store/DemoConfig.h"

namespace sb {

EngineConfig DemoConfig::build()
{
    EngineConfig c;
    c.demo = true;
    // The launch-day drill is what the simulator plays, so its breaker preset fits.
    c.breaker = BreakerConfig::launchDay();

    ProviderConfig primary;
    primary.id = 1;
    primary.name = QStringLiteral("demo-primary");
    primary.dialect = QStringLiteral("openai_compat");
    primary.baseUrl = QStringLiteral("http://127.0.0.1:%1/v1").arg(PrimaryPort);
    primary.domain.account = QStringLiteral("demo-account-1");
    ProviderConfig fallback = primary;
    fallback.id = 2;
    fallback.name = QStringLiteral("demo-fallback");
    fallback.baseUrl = QStringLiteral("http://127.0.0.1:%1/v1").arg(FallbackPort);
    fallback.domain.account = QStringLiteral("demo-account-2");
    c.providers = {primary, fallback};

    ChannelConfig a;
    a.id = 1;
    a.name = QStringLiteral("demo/A");
    a.providerId = primary.id;
    a.upstreamModel = QStringLiteral("demo-model");
    ChannelConfig b = a;
    b.id = 2;
    b.name = QStringLiteral("demo/B");
    b.providerId = fallback.id;
    c.channels = {a, b};

    RouteConfig demo;
    demo.id = 1;
    demo.logicalModel = QStringLiteral("demo");
    demo.channelIds = {a.id, b.id};
    // Aliases for the names OpenAI's own examples use, so an example pasted unmodified answers
    // instead of a new user's first call being a 404 ("gpt-4o" is the one most of them name).
    RouteConfig large = demo;
    large.id = 2;
    large.logicalModel = QStringLiteral("gpt-4o");
    RouteConfig small = demo;
    small.id = 3;
    small.logicalModel = QStringLiteral("gpt-4o-mini");
    c.routes = {demo, large, small};

    // Illustrative prices so the cost column and the budget show something in the demo.
    c.prices = {ModelPrice{QStringLiteral("demo-model"), 0.15, 0.60}};
    return c;
}

} // namespace sb
