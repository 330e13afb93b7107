#include "common/Random.h"

#include <random>

namespace sb {

double Random::uniform01()
{
    // 53 random bits → a double in [0, 1) with every representable step equally likely.
    return static_cast<double>(nextU64() >> 11) * 0x1.0p-53;
}

std::uint64_t Random::below(std::uint64_t n)
{
    // Lemire's multiply-shift: unbiased enough for routing choices and far cheaper than modulo rejection.
    // __extension__: GCC/Clang's 128-bit integer is not ISO C++, and CI builds with -Wpedantic -Werror.
    __extension__ using U128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<U128>(nextU64()) * n) >> 64);
}

std::uint64_t SplitMixRandom::nextU64()
{
    std::uint64_t z = m_state.fetch_add(0x9E3779B97F4A7C15ULL, std::memory_order_relaxed) + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static std::uint64_t seedFromDevice()
{
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

SystemRandom::SystemRandom() : SplitMixRandom(seedFromDevice()) {}

SystemRandom &SystemRandom::instance()
{
    static SystemRandom random;
    return random;
}

} // namespace sb
