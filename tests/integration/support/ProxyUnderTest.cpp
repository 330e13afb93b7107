#include "ProxyUnderTest.h"

#include "ProxyConfigs.h"

using namespace std::chrono_literals;

namespace sb::test {

ProxyUnderTest::ProxyUnderTest(const Clock &clock, Random &random) : m_clock(clock), m_random(random) {}

ProxyUnderTest::~ProxyUnderTest()
{
    stop();
}

bool ProxyUnderTest::start(sim::ProviderSpec primarySpec, const std::function<void(EngineConfig &)> &adjust, QString *error)
{
    return startProviders(std::move(primarySpec), error) && startWith(adjust, error);
}

bool ProxyUnderTest::start(sim::ProviderSpec primarySpec, sim::ProviderSpec fallbackSpec,
                           const std::function<void(EngineConfig &)> &adjust, QString *error)
{
    return startProviders(std::move(primarySpec), std::move(fallbackSpec), error) && startWith(adjust, error);
}

namespace {

std::function<void(EngineConfig &)> inDialect(const QString &dialect, const std::function<void(EngineConfig &)> &adjust)
{
    return [dialect, adjust](EngineConfig &config) {
        for (ProviderConfig &provider : config.providers)
            provider.dialect = dialect;
        if (adjust)
            adjust(config);
    };
}

} // namespace

bool ProxyUnderTest::startInDialect(const QString &dialect, sim::ProviderSpec primarySpec, sim::ProviderSpec fallbackSpec,
                                    const std::function<void(EngineConfig &)> &adjust, QString *error)
{
    primarySpec.dialect = dialect;
    fallbackSpec.dialect = dialect;
    return start(std::move(primarySpec), std::move(fallbackSpec), inDialect(dialect, adjust), error);
}

bool ProxyUnderTest::startInDialect(const QString &dialect, sim::ProviderSpec primarySpec,
                                    const std::function<void(EngineConfig &)> &adjust, QString *error)
{
    primarySpec.dialect = dialect;
    return start(std::move(primarySpec), inDialect(dialect, adjust), error);
}

bool ProxyUnderTest::startProviders(sim::ProviderSpec primarySpec, QString *error)
{
    // Earlier providers read the clock that is replaced here: they go first.
    primary.reset();
    fallback.reset();
    scenarioClock = std::make_unique<sim::ScenarioClock>(m_clock, 1.0);
    primary = startedProvider(std::move(primarySpec), error);
    return primary != nullptr;
}

bool ProxyUnderTest::startProviders(sim::ProviderSpec primarySpec, sim::ProviderSpec fallbackSpec, QString *error)
{
    if (!startProviders(std::move(primarySpec), error))
        return false;
    fallback = startedProvider(std::move(fallbackSpec), error);
    return fallback != nullptr;
}

std::shared_ptr<EngineConfig> ProxyUnderTest::config() const
{
    if (fallback)
        return twoChannelConfig(primary->baseUrl(), fallback->baseUrl());
    return oneChannelConfig(primary->spec().name, primary->baseUrl());
}

bool ProxyUnderTest::startGateway(std::shared_ptr<EngineConfig> config, QString *error)
{
    const QStringList problems = config->validate();
    if (!problems.isEmpty()) {
        *error = problems.join(QLatin1Char(' '));
        return false;
    }
    gateway = std::make_unique<Gateway>(m_clock, m_random, std::move(config));
    return gateway->start(error);
}

void ProxyUnderTest::stop()
{
    if (gateway)
        gateway->stop(500ms);
    gateway.reset();
    primary.reset();
    fallback.reset();
}

std::unique_ptr<sim::FakeProvider> ProxyUnderTest::startedProvider(sim::ProviderSpec spec, QString *error)
{
    auto provider = std::make_unique<sim::FakeProvider>(std::move(spec), *scenarioClock, m_random);
    if (!provider->start(error))
        return nullptr;
    return provider;
}

bool ProxyUnderTest::startWith(const std::function<void(EngineConfig &)> &adjust, QString *error)
{
    auto adjusted = config();
    if (adjust)
        adjust(*adjusted);
    return startGateway(adjusted, error);
}

} // namespace sb::test
