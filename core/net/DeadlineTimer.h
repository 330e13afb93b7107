#pragma once

#include "common/Clock.h"

#include <chrono>
#include <functional>
#include <memory>

namespace sb {

// A one-shot timeout that is moved far more often than it expires: a connection's phase timer,
// set anew at each phase of every request. Restarting an event-loop timer each time cost ~700
// instructions (a timer id, the dispatcher's bookkeeping, and as much again to stop it), four
// times a request. This one restarts its clock timer only when the deadline moves earlier; when
// that timer fires before the deadline it waits out the rest, and after stop() it finds nothing to
// do. The clock timer itself is made on the first start(): a call's retry timers are made for
// every request and seldom started.
class DeadlineTimer {
public:
    DeadlineTimer(const Clock &clock, std::function<void()> onExpired);
    DeadlineTimer(const DeadlineTimer &) = delete;
    DeadlineTimer &operator=(const DeadlineTimer &) = delete;

    // Expires `timeout` from now, replacing any earlier deadline.
    void start(std::chrono::milliseconds timeout);
    void stop();
    bool isActive() const { return m_deadline != Clock::TimePoint(); }

private:
    void arm(Clock::TimePoint now);
    void onFired();

    const Clock &m_clock;
    std::unique_ptr<Timer> m_timer; // made on the first start()
    std::function<void()> m_onExpired;
    Clock::TimePoint m_deadline;   // none while stopped
    Clock::TimePoint m_timerFires; // when the running clock timer is due
};

} // namespace sb
