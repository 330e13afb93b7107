#pragma once

#include "common/Random.h"

namespace sb::test {

// A seeded, reproducible Random: the same seed gives the same draws in the same order.
class FakeRandom final : public SplitMixRandom {
public:
    explicit FakeRandom(std::uint64_t seed = 42) : SplitMixRandom(seed) {}
};

} // namespace sb::test
