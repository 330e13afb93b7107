#include "common/Clock.h"

#include <QObject>
#include <QTimer>

namespace sb {

namespace {

// The one place in core where a QTimer is made. The QTimer itself waits for the first start():
// many timers (a call's retry and backoff timers, say) are made for every request and seldom started.
class EventLoopTimer final : public Timer {
public:
    EventLoopTimer(std::function<void()> onFire, TimerKind kind)
        : m_state(std::make_shared<State>(State{std::move(onFire)})), m_kind(kind)
    {
    }
    ~EventLoopTimer() override
    {
        if (!m_timer)
            return;
        if (m_state->firing) {
            // Destroyed from its own callback (a transfer that ends on its idle timeout, say):
            // the QTimer is still inside its timeout signal, so it goes once that has returned.
            m_state->destroyed = true;
            m_timer->stop();
            m_timer.release()->deleteLater();
        }
    }

    void start(Duration after) override
    {
        if (!m_timer) {
            m_timer = std::make_unique<QTimer>();
            m_timer->setSingleShot(m_kind == TimerKind::OneShot);
            // Deadlines (an attempt's budget, a backoff) must never fire early; Qt's coarse timers
            // may, by up to 5 %.
            m_timer->setTimerType(Qt::PreciseTimer);
            QObject::connect(m_timer.get(), &QTimer::timeout, [state = m_state] {
                state->firing = true;
                state->onFire();
                if (!state->destroyed)
                    state->firing = false;
            });
        }
        const auto wait = std::chrono::ceil<std::chrono::milliseconds>(std::max(after, Duration::zero()));
        m_timer->start(wait);
    }
    void stop() override
    {
        if (m_timer)
            m_timer->stop();
    }
    bool isActive() const override { return m_timer && m_timer->isActive(); }

private:
    // Shared with the QTimer's connection, so that a callback may destroy its own timer.
    struct State {
        std::function<void()> onFire;
        bool firing = false;
        bool destroyed = false;
    };
    std::shared_ptr<State> m_state;
    const TimerKind m_kind;
    std::unique_ptr<QTimer> m_timer;
};

// Owns a callAfter's timer; a child of the context, so the context's end cancels it.
class PendingCall final : public QObject {
public:
    PendingCall(const Clock &clock, QObject *context, std::function<void()> fn)
        : QObject(context), m_fn(std::move(fn)), m_timer(clock.createTimer([this] { fire(); }))
    {
    }
    void start(Clock::Duration after) { m_timer->start(after); }

private:
    void fire()
    {
        const std::function<void()> fn = std::move(m_fn);
        deleteLater();
        fn();
    }

    std::function<void()> m_fn;
    std::unique_ptr<Timer> m_timer;
};

} // namespace

void Clock::callAfter(Duration after, QObject *context, std::function<void()> fn) const
{
    (new PendingCall(*this, context, std::move(fn)))->start(after);
}

Clock::TimePoint SystemClock::now() const
{
    return std::chrono::time_point_cast<Duration>(std::chrono::steady_clock::now());
}

std::int64_t SystemClock::wallMillis() const
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::unique_ptr<Timer> SystemClock::createTimer(std::function<void()> onFire, TimerKind kind) const
{
    return std::make_unique<EventLoopTimer>(std::move(onFire), kind);
}

SystemClock &SystemClock::instance()
{
    static SystemClock clock;
    return clock;
}

} // namespace sb
