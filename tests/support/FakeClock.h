#pragma once

#include "common/Clock.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>

namespace sb::test {

// Time that moves only when a test says so. Thread-safe, so multi-threaded tests can share it.
// Its timers fire inside advance(), in the order they are due (ties in the order they were
// started), each with now() reading its due time, and each on the thread that started it (as a
// real timer would): advance() waits for a timer of another thread to have fired there.
class FakeClock final : public Clock {
public:
    // Starts at an arbitrary non-zero point so code never confuses "time zero" with "unset".
    explicit FakeClock(std::int64_t wallMillisAtStart = 1'790'000'000'000);
    ~FakeClock() override;

    TimePoint now() const override;
    std::int64_t wallMillis() const override;
    std::unique_ptr<Timer> createTimer(std::function<void()> onFire, TimerKind kind = TimerKind::OneShot) const override;

    // Moves time forward by `by`, firing every timer that falls due on the way (and any that those
    // start within the span). advance(0) fires the timers due now, zero-wait ones included. A
    // negative `by` stands the clock at an earlier instant and fires nothing.
    void advance(Duration by);
    template <class Rep, class Period>
    void advance(std::chrono::duration<Rep, Period> by) { advance(std::chrono::duration_cast<Duration>(by)); }

    // Timers started and not yet fired or stopped.
    int pendingTimers() const;
    // When the earliest pending timer is due, or TimePoint() when none is.
    TimePoint nextDue() const;

private:
    class FakeTimer;
    friend class FakeTimer;
    struct Key {
        std::int64_t dueNanos;
        std::uint64_t order;
        bool operator<(const Key &other) const { return dueNanos != other.dueNanos ? dueNanos < other.dueNanos : order < other.order; }
    };

    void schedule(FakeTimer *timer, std::int64_t dueNanos) const;
    void unschedule(FakeTimer *timer) const;
    void forget(FakeTimer *timer) const;
    void fire(FakeTimer *timer, std::uint64_t generation) const;

    std::atomic<std::int64_t> m_nanos;
    const std::int64_t m_wallStartMillis;
    const std::int64_t m_startNanos;
    mutable std::mutex m_mutex; // guards the members below and every timer's schedule
    mutable std::map<Key, FakeTimer *> m_due;
    mutable std::set<const FakeTimer *> m_live;
    mutable std::uint64_t m_order = 0;
};

} // namespace sb::test
