#pragma once

#include "common/Clock.h"

#include <atomic>

namespace sb::test {

// Time that moves only when a test says so. Thread-safe, so multi-threaded tests can share it.
class FakeClock final : public Clock {
public:
    // Starts at an arbitrary non-zero point so code never confuses "time zero" with "unset".
    explicit FakeClock(std::int64_t wallMillisAtStart = 1'790'000'000'000);

    TimePoint now() const override;
    std::int64_t wallMillis() const override;

    void advance(Duration by);
    template <class Rep, class Period>
    void advance(std::chrono::duration<Rep, Period> by) { advance(std::chrono::duration_cast<Duration>(by)); }

private:
    std::atomic<std::int64_t> m_nanos;
    const std::int64_t m_wallStartMillis;
    const std::int64_t m_startNanos;
};

} // namespace sb::test
