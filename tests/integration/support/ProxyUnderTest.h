#pragma once

#include "sim/FakeProvider.h"
#include "sim/ScenarioClock.h"
#include "control/Gateway.h"

#include <QString>

#include <functional>
#include <memory>

namespace sb::test {

// A Gateway on a loopback port in front of fake providers on one scenario clock running in real
// time: the set-up of the proxy's end-to-end tests. With one provider (the primary) it routes by
// oneChannelConfig(); with two, by twoChannelConfig(): gpt-4o/A on the primary, tried first, and
// gpt-4o/B on the fallback. A test that brings its own upstream starts only the Gateway. The test
// reads the parts through the public members and may replace any of them.
class ProxyUnderTest {
public:
    ProxyUnderTest(const Clock &clock, Random &random);
    ~ProxyUnderTest();

    // Starts the providers, then the Gateway on config() as `adjust` leaves it. False with the
    // reason in `error`; whatever did start stays in the members (stop() ends it).
    bool start(sim::ProviderSpec primarySpec, const std::function<void(EngineConfig &)> &adjust, QString *error);
    bool start(sim::ProviderSpec primarySpec, sim::ProviderSpec fallbackSpec,
               const std::function<void(EngineConfig &)> &adjust, QString *error);

    // start() with both providers speaking `dialect` (their specs and every ProviderConfig), then
    // `adjust`; a test holding every dialect to one rule starts its pair this way.
    bool startInDialect(const QString &dialect, sim::ProviderSpec primarySpec, sim::ProviderSpec fallbackSpec,
                        const std::function<void(EngineConfig &)> &adjust, QString *error);
    bool startInDialect(const QString &dialect, sim::ProviderSpec primarySpec,
                        const std::function<void(EngineConfig &)> &adjust, QString *error);

    // The steps of start(), for a test that puts something between them.
    bool startProviders(sim::ProviderSpec primarySpec, QString *error);
    bool startProviders(sim::ProviderSpec primarySpec, sim::ProviderSpec fallbackSpec, QString *error);
    std::shared_ptr<EngineConfig> config() const; // for the running providers, named after the primary's spec
    bool startGateway(std::shared_ptr<EngineConfig> config, QString *error); // validates it first

    // Lets the Gateway's requests finish for up to half a second, then ends everything.
    void stop();

    std::unique_ptr<sim::ScenarioClock> scenarioClock;
    std::unique_ptr<sim::FakeProvider> primary;
    std::unique_ptr<sim::FakeProvider> fallback; // none with one provider
    std::unique_ptr<Gateway> gateway;

private:
    std::unique_ptr<sim::FakeProvider> startedProvider(sim::ProviderSpec spec, QString *error);
    bool startWith(const std::function<void(EngineConfig &)> &adjust, QString *error);

    const Clock &m_clock;
    Random &m_random;
};

} // namespace sb::test
