#pragma once

#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>

namespace sb {

// A one-shot timeout that is moved far more often than it expires: a connection's phase timer,
// set anew at each phase of every request. Restarting a QTimer each time cost ~700 instructions
// (a timer id, the dispatcher's bookkeeping, and as much again to stop it), four times a request.
// This one restarts its QTimer only when the deadline moves earlier; when the QTimer fires before
// the deadline it waits out the rest, and after stop() it finds nothing to do. The QTimer itself is
// made on the first start(): a call's retry timers are made for every request and seldom started.
class DeadlineTimer {
public:
    explicit DeadlineTimer(std::function<void()> onExpired);
    DeadlineTimer(const DeadlineTimer &) = delete;
    DeadlineTimer &operator=(const DeadlineTimer &) = delete;

    // Expires `timeout` from now, replacing any earlier deadline.
    void start(std::chrono::milliseconds timeout);
    void stop();
    bool isActive() const { return m_deadline != TimePoint(); }

private:
    using Clock = std::chrono::steady_clock;
    using TimePoint = Clock::time_point;

    void arm(TimePoint now);
    void onFired();

    std::unique_ptr<QTimer> m_timer; // made on the first start()
    std::function<void()> m_onExpired;
    TimePoint m_deadline;   // none while stopped
    TimePoint m_timerFires; // when the running QTimer is due
};

} // namespace sb
