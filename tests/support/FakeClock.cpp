#include "FakeClock.h"

#include <QAbstractEventDispatcher>
#include <QMetaObject>
#include <QThread>

#include <optional>

namespace sb::test {

namespace {
constexpr std::int64_t kStartNanos = 1'000'000'000'000LL; // 1000 s after the steady epoch
}

class FakeClock::FakeTimer final : public Timer {
public:
    FakeTimer(const FakeClock &clock, std::function<void()> onFire, TimerKind kind)
        : m_clock(clock), m_onFire(std::move(onFire)), m_kind(kind)
    {
    }
    ~FakeTimer() override { m_clock.forget(this); }

    void start(Duration after) override
    {
        m_interval = std::max(after, Duration::zero());
        m_thread = QThread::currentThread();
        m_clock.schedule(this, m_clock.m_nanos.load(std::memory_order_acquire) + m_interval.count());
    }
    void stop() override { m_clock.unschedule(this); }
    bool isActive() const override
    {
        std::lock_guard lock(m_clock.m_mutex);
        return m_key.has_value();
    }

    // Guarded by the clock's mutex:
    std::optional<Key> m_key;       // set while scheduled
    std::uint64_t m_generation = 0; // moves on at every start and stop, so a stale firing is known
    QThread *m_thread = nullptr;    // where it was started, and so where it fires
    const FakeClock &m_clock;
    std::function<void()> m_onFire;
    const TimerKind m_kind;
    Duration m_interval{0};
};

FakeClock::FakeClock(std::int64_t wallMillisAtStart)
    : m_nanos(kStartNanos), m_wallStartMillis(wallMillisAtStart), m_startNanos(kStartNanos)
{
}

FakeClock::~FakeClock()
{
    // Timers that outlive the clock must not reach back into it.
    std::lock_guard lock(m_mutex);
    Q_ASSERT_X(m_live.empty(), "FakeClock", "a timer outlives its clock");
    m_due.clear();
}

Clock::TimePoint FakeClock::now() const
{
    return TimePoint(Duration(m_nanos.load(std::memory_order_acquire)));
}

std::int64_t FakeClock::wallMillis() const
{
    return m_wallStartMillis + (m_nanos.load(std::memory_order_acquire) - m_startNanos) / 1'000'000;
}

std::unique_ptr<Timer> FakeClock::createTimer(std::function<void()> onFire, TimerKind kind) const
{
    auto timer = std::make_unique<FakeTimer>(*this, std::move(onFire), kind);
    std::lock_guard lock(m_mutex);
    m_live.insert(timer.get());
    return timer;
}

void FakeClock::schedule(FakeTimer *timer, std::int64_t dueNanos) const
{
    std::lock_guard lock(m_mutex);
    if (timer->m_key)
        m_due.erase(*timer->m_key);
    const Key key{dueNanos, m_order++};
    timer->m_key = key;
    ++timer->m_generation;
    m_due.emplace(key, timer);
}

void FakeClock::unschedule(FakeTimer *timer) const
{
    std::lock_guard lock(m_mutex);
    if (timer->m_key) {
        m_due.erase(*timer->m_key);
        timer->m_key.reset();
    }
    ++timer->m_generation;
}

void FakeClock::forget(FakeTimer *timer) const
{
    std::lock_guard lock(m_mutex);
    if (timer->m_key)
        m_due.erase(*timer->m_key);
    m_live.erase(timer);
}

void FakeClock::fire(FakeTimer *timer, std::uint64_t generation) const
{
    std::function<void()> onFire;
    {
        std::lock_guard lock(m_mutex);
        // Destroyed, restarted or stopped since it fell due: that firing is no longer wanted.
        if (m_live.count(timer) == 0 || timer->m_generation != generation)
            return;
        onFire = timer->m_onFire; // a copy: the callback may destroy its own timer
    }
    onFire();
}

void FakeClock::advance(Duration by)
{
    if (by < Duration::zero()) { // back to an earlier instant: nothing falls due
        m_nanos.fetch_add(by.count(), std::memory_order_acq_rel);
        return;
    }
    const std::int64_t target = m_nanos.load(std::memory_order_acquire) + by.count();
    for (;;) {
        FakeTimer *timer = nullptr;
        std::uint64_t generation = 0;
        QThread *thread = nullptr;
        {
            std::lock_guard lock(m_mutex);
            if (m_due.empty() || m_due.begin()->first.dueNanos > target)
                break;
            const auto first = m_due.begin();
            timer = first->second;
            // Time never runs backwards: a timer started "in the past" fires at the present.
            if (first->first.dueNanos > m_nanos.load(std::memory_order_acquire))
                m_nanos.store(first->first.dueNanos, std::memory_order_release);
            m_due.erase(first);
            timer->m_key.reset();
            if (timer->m_kind == TimerKind::Repeating) {
                // A zero interval would fire forever within one advance(); it fires once per call.
                const std::int64_t next = m_nanos.load(std::memory_order_acquire) + std::max<std::int64_t>(timer->m_interval.count(), 1);
                const Key key{next, m_order++};
                timer->m_key = key;
                m_due.emplace(key, timer);
            }
            generation = timer->m_generation;
            thread = timer->m_thread;
        }
        // Outside the lock: the callback may start, stop or destroy any timer, this one included.
        // It runs on the thread that started the timer, as a real timer's would, and advance()
        // waits for it so that timers keep their order across threads.
        if (!thread || thread == QThread::currentThread() || !thread->isRunning()) {
            fire(timer, generation);
        } else {
            QMetaObject::invokeMethod(
                QAbstractEventDispatcher::instance(thread), [this, timer, generation] { fire(timer, generation); },
                Qt::BlockingQueuedConnection);
        }
    }
    m_nanos.store(std::max(target, m_nanos.load(std::memory_order_acquire)), std::memory_order_release);
}

int FakeClock::pendingTimers() const
{
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_due.size());
}

Clock::TimePoint FakeClock::nextDue() const
{
    std::lock_guard lock(m_mutex);
    return m_due.empty() ? TimePoint() : TimePoint(Duration(m_due.begin()->first.dueNanos));
}

} // namespace sb::test
