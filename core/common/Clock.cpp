#include "common/Clock.h"

#include "common/CallbackDispatcher.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

namespace sb {

namespace {

// The clock's timer. On a loop that runs callback timers (the proxy's workers) it is one of those:
// a slot in the loop's heap. Elsewhere it is a QTimer, the one place in core where one is made.
// Either is chosen by the first start(), on the thread that will run it; the QTimer is not made
// before: many timers (a call's retry and backoff timers, say) are made for every request and
// seldom started.
class EventLoopTimer final : public Timer, private CallbackDispatcher::TimerClient {
public:
    EventLoopTimer(std::function<void()> onFire, TimerKind kind)
        : m_state(std::make_shared<State>(State{std::move(onFire)})), m_kind(kind)
    {
    }
    ~EventLoopTimer() override
    {
        if (m_onLoop) {
            if (m_loop) // gone once its thread has ended
                m_loop->removeCallbackTimer(m_handle);
            return;
        }
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
        if (!m_onLoop && !m_timer)
            bindToThisThread();
        if (m_onLoop) {
            if (m_loop)
                m_loop->startCallbackTimer(m_handle, after);
            return;
        }
        const auto wait = std::chrono::ceil<std::chrono::milliseconds>(std::max(after, Duration::zero()));
        m_timer->start(wait);
    }
    void stop() override
    {
        if (m_onLoop) {
            if (m_loop)
                m_loop->stopCallbackTimer(m_handle);
        } else if (m_timer) {
            m_timer->stop();
        }
    }
    bool isActive() const override
    {
        if (m_onLoop)
            return m_loop && m_loop->isCallbackTimerActive(m_handle);
        return m_timer && m_timer->isActive();
    }

private:
    void bindToThisThread()
    {
        if (auto *loop = qobject_cast<CallbackDispatcher *>(QAbstractEventDispatcher::instance())) {
            m_loop = loop;
            m_handle = loop->addCallbackTimer(this, m_kind == TimerKind::Repeating);
            m_onLoop = true;
            return;
        }
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

    void timerFired() override
    {
        // The callback may destroy this timer; the loop frees its slot once we return.
        const std::shared_ptr<State> state = m_state;
        state->onFire();
    }

    // Shared with the QTimer's connection, so that a callback may destroy its own timer.
    struct State {
        std::function<void()> onFire;
        bool firing = false;
        bool destroyed = false;
    };
    std::shared_ptr<State> m_state;
    const TimerKind m_kind;
    std::unique_ptr<QTimer> m_timer;
    bool m_onLoop = false;
    QPointer<CallbackDispatcher> m_loop;
    CallbackDispatcher::TimerHandle m_handle = -1;
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
