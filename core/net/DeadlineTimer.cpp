#include "net/DeadlineTimer.h"

namespace sb {

DeadlineTimer::DeadlineTimer(const Clock &clock, std::function<void()> onExpired)
    : m_clock(clock), m_onExpired(std::move(onExpired))
{
}

void DeadlineTimer::start(std::chrono::milliseconds timeout)
{
    const Clock::TimePoint now = m_clock.now();
    m_deadline = now + timeout;
    if (!m_timer)
        m_timer = m_clock.createTimer([this] { onFired(); });
    // A one-shot clock timer fires at or after its time, so only a deadline moved earlier re-arms.
    if (!m_timer->isActive() || m_timerFires > m_deadline)
        arm(now);
}

void DeadlineTimer::stop()
{
    m_deadline = Clock::TimePoint();
}

void DeadlineTimer::arm(Clock::TimePoint now)
{
    const auto wait = std::max(m_deadline - now, Clock::Duration::zero());
    m_timer->start(wait);
    m_timerFires = now + wait;
}

void DeadlineTimer::onFired()
{
    if (!isActive())
        return;
    const Clock::TimePoint now = m_clock.now();
    if (now < m_deadline) {
        arm(now);
        return;
    }
    m_deadline = Clock::TimePoint();
    // A copy: the callback may destroy this timer (a transfer that ends on its own timeout).
    const std::function<void()> onExpired = m_onExpired;
    onExpired();
}

} // namespace sb
