#pragma once

#include <chrono>
#include <cstdint>

namespace sb {

// Time enters core only through this interface, so every timing rule (windows, breakers, backoff,
// ejection after 3 minutes) is testable with FakeClock::advance() instead of sleeps.
class Clock {
public:
    using Duration = std::chrono::nanoseconds;
    // A monotonic time point; only differences between two of them mean anything.
    using TimePoint = std::chrono::time_point<std::chrono::steady_clock, Duration>;

    virtual ~Clock() = default;
    virtual TimePoint now() const = 0;
    // Wall-clock milliseconds since the Unix epoch, for history rows and what the user reads.
    virtual std::int64_t wallMillis() const = 0;
};

// The real clock: std::chrono::steady_clock and system_clock.
class SystemClock final : public Clock {
public:
    TimePoint now() const override;
    std::int64_t wallMillis() const override;

    // A process-wide instance for production wiring (app/, the engine's default).
    static SystemClock &instance();
};

// Seconds as a double, for formulas and display.
inline double toSeconds(Clock::Duration d) { return std::chrono::duration<double>(d).count(); }
inline double toMillis(Clock::Duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

} // namespace sb
