#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

class QObject;

namespace sb {

// A timer made by a Clock: fires its callback on the thread that started it (the real clock) or
// inside FakeClock::advance() (tests). Not thread-safe: start and stop it from one thread.
class Timer {
public:
    using Duration = std::chrono::nanoseconds;

    virtual ~Timer() = default;
    // Fires `after` from now, replacing a pending start; a repeating timer then fires every `after`.
    virtual void start(Duration after) = 0;
    template <class Rep, class Period>
    void start(std::chrono::duration<Rep, Period> after) { start(std::chrono::duration_cast<Duration>(after)); }
    virtual void stop() = 0;
    virtual bool isActive() const = 0;
};

enum class TimerKind { OneShot, Repeating };

// Time and timers enter core only through this interface, so every timing rule (windows,
// breakers, backoff, attempt budgets, ejection after 3 minutes) is testable with
// FakeClock::advance() instead of sleeps.
class Clock {
public:
    using Duration = std::chrono::nanoseconds;
    // A monotonic time point; only differences between two of them mean anything.
    using TimePoint = std::chrono::time_point<std::chrono::steady_clock, Duration>;

    virtual ~Clock() = default;
    virtual TimePoint now() const = 0;
    // Wall-clock milliseconds since the Unix epoch, for history rows and what the user reads.
    virtual std::int64_t wallMillis() const = 0;
    // A stopped timer that calls `onFire` when it expires. A zero wait fires after the current
    // event-loop turn (the real clock) or at the next advance() (FakeClock).
    virtual std::unique_ptr<Timer> createTimer(std::function<void()> onFire, TimerKind kind = TimerKind::OneShot) const = 0;

    // Calls `fn` once, `after` from now, unless `context` is destroyed first.
    void callAfter(Duration after, QObject *context, std::function<void()> fn) const;
};

// The real clock: std::chrono::steady_clock and system_clock, timers on the Qt event loop.
class SystemClock final : public Clock {
public:
    TimePoint now() const override;
    std::int64_t wallMillis() const override;
    std::unique_ptr<Timer> createTimer(std::function<void()> onFire, TimerKind kind = TimerKind::OneShot) const override;

    // A process-wide instance for production wiring (app/, the engine's default).
    static SystemClock &instance();
};

// Seconds as a double, for formulas and display.
inline double toSeconds(Clock::Duration d) { return std::chrono::duration<double>(d).count(); }
inline double toMillis(Clock::Duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

} // namespace sb
