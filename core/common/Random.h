#pragma once

#include <atomic>
#include <cstdint>

namespace sb {

// Randomness enters core only through this interface (jitter, half-open traffic share, weighted
// choice), so tests can replay a seeded sequence. Implementations must be thread-safe: workers draw
// from one instance concurrently.
class Random {
public:
    virtual ~Random() = default;
    virtual std::uint64_t nextU64() = 0;

    // Uniform in [0, 1).
    double uniform01();
    // Uniform in [lo, hi).
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
    // Uniform integer in [0, n); n must be > 0.
    std::uint64_t below(std::uint64_t n);
    // True with probability p.
    bool chance(double p) { return uniform01() < p; }
};

// SplitMix64 over an atomic counter: lock-free, thread-safe, and a fixed seed gives a fixed
// sequence of draws (in the order they are made).
class SplitMixRandom : public Random {
public:
    explicit SplitMixRandom(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t nextU64() override;

private:
    std::atomic<std::uint64_t> m_state;
};

// The production source: SplitMix64 seeded once from std::random_device.
class SystemRandom final : public SplitMixRandom {
public:
    SystemRandom();
    static SystemRandom &instance();
};

} // namespace sb
