#include "FakeProviderSpecs.h"

namespace sb::test {

sim::ProviderSpec fakeProviderSpec(const QString &name, std::vector<sim::FaultSpec> faults)
{
    sim::ProviderSpec spec;
    spec.name = name;
    spec.dialect = QStringLiteral("openai_compat");
    spec.models = {QStringLiteral("gpt-4o")};
    spec.ttftMs = sim::Distribution::constant(5);
    spec.tokensPerSecond = sim::Distribution::constant(2000);
    spec.completionTokens = 12;
    spec.faults = std::move(faults);
    return spec;
}

sim::ProviderSpec benchProviderSpec(double ttftMs)
{
    sim::ProviderSpec spec = fakeProviderSpec(QStringLiteral("fake"));
    spec.ttftMs = sim::Distribution::constant(ttftMs);
    spec.tokensPerSecond = sim::Distribution::constant(1000);
    spec.completionTokens = 8;
    return spec;
}

sim::FaultSpec always(sim::SimError error)
{
    sim::FaultSpec fault;
    fault.type = sim::FaultSpec::Type::Errors;
    fault.from = 0;
    fault.probability = 1.0;
    fault.mix = {sim::ErrorMixEntry{error, 1.0}};
    return fault;
}

} // namespace sb::test
