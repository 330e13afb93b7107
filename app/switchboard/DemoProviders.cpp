#include "DemoProviders.h"

#include "sim/FakeProvider.h"
#include "sim/Scenario.h"
#include "sim/ScenarioClock.h"

DemoProviders::DemoProviders() : m_random(0xD3A0) {}

DemoProviders::~DemoProviders()
{
    stop();
}

bool DemoProviders::start(QString *error)
{
    QStringList problems;
    auto scenario = sb::sim::Scenario::fromFile(QStringLiteral(":/drills/launch-day.json"), &problems);
    if (!scenario) {
        *error = QStringLiteral("The built-in launch-day scenario does not load: %1").arg(problems.join(QStringLiteral(" ")));
        return false;
    }
    m_clock = std::make_unique<sb::sim::ScenarioClock>(sb::SystemClock::instance(), 1.0);
    for (sb::sim::ProviderSpec spec : scenario->providers) {
        spec.faults.clear();
        auto provider = std::make_unique<sb::sim::FakeProvider>(spec, *m_clock, m_random);
        QString startError;
        if (!provider->start(&startError)) {
            *error = QStringLiteral("The demo provider \"%1\" cannot listen on port %2 (%3); is another Switchboard running?")
                         .arg(spec.name)
                         .arg(spec.port)
                         .arg(startError);
            stop();
            return false;
        }
        m_providers.push_back(std::move(provider));
    }
    return true;
}

void DemoProviders::stop()
{
    for (auto &provider : m_providers)
        provider->stop();
    m_providers.clear();
}
