#pragma once

#include "sim/Scenario.h"

#include <QString>

#include <vector>

namespace sb::test {

// The fake provider most proxy tests stand behind: openai_compat serving gpt-4o, fast enough that a
// test never waits on it (first token after 5 ms, 2000 tokens/s) and long enough (12 tokens) that a
// stream has several chunks. A test that needs other numbers changes them on the returned spec.
sim::ProviderSpec fakeProviderSpec(const QString &name, std::vector<sim::FaultSpec> faults = {});

// The fake provider of the TTFT benchmarks: its first token after `ttftMs`, then 8 tokens at 1000/s.
sim::ProviderSpec benchProviderSpec(double ttftMs);

// A fault that gives every request `error`, from the first one on.
sim::FaultSpec always(sim::SimError error);

} // namespace sb::test
