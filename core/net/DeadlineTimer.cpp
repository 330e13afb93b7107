#include "net/DeadlineTimer.h"

namespace sb {

DeadlineTimer::DeadlineTimer(std::function<void()> onExpired) : m_onExpired(std::move(onExpired)) {}

void DeadlineTimer::start(std::chrono::milliseconds timeout)
{
    const TimePoint now = Clock::now();
    m_deadline = now + timeout;
    if (!m_timer) {
        m_timer = std::make_unique<QTimer>();
        m_timer->setSingleShot(true);
        m_timer->setTimerType(Qt::PreciseTimer); // fires at or after its time, so only a moved deadline re-arms
        QObject::connect(m_timer.get(), &QTimer::timeout, [this] { onFired(); });
    }
    if (!m_timer->isActive() || m_timerFires > m_deadline)
        arm(now);
}

void DeadlineTimer::stop()
{
    m_deadline = TimePoint();
}

void DeadlineTimer::arm(TimePoint now)
{
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(m_deadline - now);
    m_timer->start(std::max(wait, std::chrono::milliseconds(0)));
    m_timerFires = now + wait;
}

void DeadlineTimer::onFired()
{
    if (!isActive())
        return;
    const TimePoint now = Clock::now();
    if (now < m_deadline) {
        arm(now);
        return;
    }
    m_deadline = TimePoint();
    m_onExpired();
}

} // namespace sb
