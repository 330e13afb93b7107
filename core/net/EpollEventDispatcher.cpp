#include "net/EpollEventDispatcher.h"

#include <QCoreApplication>
#include <QSocketNotifier>
#include <QTimerEvent>

#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

namespace sb {

namespace {

constexpr std::size_t kReadyPerWait = 256;

qint64 nowMicros()
{
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return qint64(now.tv_sec) * 1'000'000 + now.tv_nsec / 1000;
}

// The next deadline of a repeating timer keeps its phase unless it fell a whole interval behind.
qint64 nextDeadline(qint64 deadlineUs, qint64 intervalUs, qint64 now)
{
    const qint64 next = deadlineUs + intervalUs;
    return next < now ? now + intervalUs : next;
}

// A free slot of `pool` (a freed one first), by index. ("slots" is a Qt keyword.)
template <typename Slot>
int takeSlot(std::vector<Slot> &pool, std::vector<int> &freeSlots)
{
    if (freeSlots.empty()) {
        pool.emplace_back();
        return int(pool.size()) - 1;
    }
    const int slot = freeSlots.back();
    freeSlots.pop_back();
    return slot;
}

// Keeps the nesting level right however a handler leaves (exceptions included).
struct DepthGuard {
    int &depth;
    explicit DepthGuard(int &d) : depth(d) { ++depth; }
    ~DepthGuard() { --depth; }
};

} // namespace

EpollEventDispatcher::EpollEventDispatcher(QObject *parent) : CallbackDispatcher(parent)
{
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    m_wakeFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (m_epoll < 0 || m_wakeFd < 0)
        qFatal("EpollEventDispatcher: cannot create an epoll instance or an eventfd (errno %d)", errno);
    epoll_event wake{};
    wake.events = EPOLLIN;
    wake.data.fd = m_wakeFd;
    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wakeFd, &wake);
    m_ready.resize(kReadyPerWait);
}

EpollEventDispatcher::~EpollEventDispatcher()
{
    ::close(m_wakeFd);
    ::close(m_epoll);
}

void EpollEventDispatcher::startingUp()
{
    m_owner = ::pthread_self();
    m_ownerKnown.store(true, std::memory_order_release);
}

bool EpollEventDispatcher::onOwnThread() const
{
    return m_ownerKnown.load(std::memory_order_acquire) && ::pthread_equal(::pthread_self(), m_owner);
}

bool EpollEventDispatcher::processEvents(QEventLoop::ProcessEventsFlags flags)
{
    if (!m_ownerKnown.load(std::memory_order_relaxed))
        startingUp(); // a dispatcher driven by hand, not through QThread
    DepthGuard depth(m_depth);
    if (m_pendingByDepth.size() <= std::size_t(m_depth)) {
        m_pendingByDepth.resize(std::size_t(m_depth) + 1);
        m_firingByDepth.resize(std::size_t(m_depth) + 1);
    }
    // An interrupt is not cleared here, only consumed where it makes this turn return: quit() from
    // another thread sets the loop's exit flag, then interrupts; landing after the loop had checked
    // the flag and before a clear here, while a wake-up of the loop's own was still pending (so no
    // eventfd write), it was erased and the loop slept on for good (HttpServer::shutdown hung). A
    // stale interrupt costs one turn that does not wait.
    emit awake();

    // A wake-up signalled from here on makes this turn's wait a poll; one signalled before is for
    // the events sent right now.
    m_wokenLocally = false;
    m_wakeUpsPending.store(0); // sequentially consistent with the interrupt flag: see interrupt()
    QCoreApplication::sendPostedEvents();

    const bool includeTimers = !(flags & QEventLoop::X11ExcludeTimers);
    const bool includeNotifiers = !(flags & QEventLoop::ExcludeSocketNotifiers);
    const bool canWait = (flags & QEventLoop::WaitForMoreEvents) && !m_wokenLocally && !m_interrupted.load();
    if (canWait)
        emit aboutToBlock();
    if (m_interrupted.load() && m_interrupted.exchange(false))
        return false;

    int timeout = 0;
    if (canWait)
        timeout = includeTimers ? timeUntilNextTimer() : -1;
    const int ready = waitForEvents(timeout);

    int events = 0;
    if (ready > 0)
        events += activateNotifiers(ready, includeNotifiers);
    if (includeTimers)
        events += activateTimers();
    return events > 0;
}

int EpollEventDispatcher::waitForEvents(int timeoutMs)
{
    const auto wait = [this](int timeout) {
        const int ready = ::epoll_wait(m_epoll, m_ready.data(), int(m_ready.size()), timeout);
        return ready < 0 ? 0 : ready; // EINTR: a signal; the next turn waits again
    };
    if (timeoutMs == 0 || !m_idlePolling)
        return wait(timeoutMs);

    const qint64 start = nowMicros();
    if (const qint64 window = m_pollWindow.window().count(); window > 0) {
        ++m_idlePollStats.polled;
        do {
            if (const int ready = wait(0); ready > 0) {
                ++m_idlePollStats.caught;
                m_pollWindow.caught();
                return ready;
            }
            // The thread whose answer is awaited (an upstream on this machine, woken by this
            // loop's write) may be queued for this very CPU: polling must not keep it off.
            ::sched_yield();
        } while (nowMicros() - start < window);
    }
    ++m_idlePollStats.slept;
    const int ready = wait(timeoutMs);
    m_pollWindow.slept(IdlePollWindow::Duration(nowMicros() - start), ready > 0);
    return ready;
}

void EpollEventDispatcher::wakeUp()
{
    if (m_wakeUpsPending.exchange(1) != 0)
        return; // already signalled and not yet consumed
    if (onOwnThread()) {
        m_wokenLocally = true; // this thread is not waiting: it only must not wait next turn
        return;
    }
    const eventfd_t one = 1;
    ::eventfd_write(m_wakeFd, one);
}

void EpollEventDispatcher::interrupt()
{
    // When wakeUp() finds a wake-up pending and writes nothing, the loop has yet to reset the
    // pending flag (or its own thread set it and will not wait this turn); the turn after that
    // reset reads the flag set here, as all of these are sequentially consistent.
    m_interrupted.store(true);
    wakeUp();
}

void EpollEventDispatcher::drainWakeUps()
{
    eventfd_t value = 0;
    ::eventfd_read(m_wakeFd, &value);
}

// ---- socket notifiers --------------------------------------------------------------------------

void EpollEventDispatcher::registerSocketNotifier(QSocketNotifier *notifier)
{
    const int descriptor = int(notifier->socket());
    if (descriptor < 0)
        return;
    if (m_watches.size() <= std::size_t(descriptor))
        m_watches.resize(std::size_t(descriptor) + 1);
    Watch &watch = m_watches[std::size_t(descriptor)];
    QSocketNotifier **slot = notifier->type() == QSocketNotifier::Read ? &watch.read
        : notifier->type() == QSocketNotifier::Write                   ? &watch.write
                                                                         : &watch.exception;
    if (*slot && *slot != notifier)
        qWarning("EpollEventDispatcher: a second socket notifier of the same type for descriptor %d replaces the first",
                 descriptor);
    *slot = notifier;
    updateWatch(descriptor);
}

void EpollEventDispatcher::unregisterSocketNotifier(QSocketNotifier *notifier)
{
    const int descriptor = int(notifier->socket());
    for (std::vector<Pending> &pending : m_pendingByDepth)
        for (Pending &entry : pending)
            if (entry.notifier == notifier)
                entry.notifier = nullptr;
    if (descriptor < 0 || m_watches.size() <= std::size_t(descriptor))
        return;
    Watch &watch = m_watches[std::size_t(descriptor)];
    for (QSocketNotifier **slot : {&watch.read, &watch.write, &watch.exception}) {
        if (*slot == notifier)
            *slot = nullptr;
    }
    updateWatch(descriptor);
}

void EpollEventDispatcher::updateWatch(int descriptor)
{
    Watch &watch = m_watches[std::size_t(descriptor)];
    const std::uint32_t wanted = (watch.read || watch.readCallback >= 0 ? std::uint32_t(EPOLLIN) : 0u)
        | (watch.write || watch.writeCallback >= 0 ? std::uint32_t(EPOLLOUT) : 0u) | (watch.exception ? std::uint32_t(EPOLLPRI) : 0u);
    if (wanted == watch.events)
        return;
    epoll_event event{};
    event.events = wanted;
    event.data.fd = descriptor;
    if (wanted == 0) {
        // Fails harmlessly when the descriptor was closed first (the kernel dropped it then).
        ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, descriptor, &event);
        watch.events = 0;
        return;
    }
    int result = ::epoll_ctl(m_epoll, watch.events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, descriptor, &event);
    // A descriptor closed while watched and opened again under the same number is no longer in
    // the set (MOD: ENOENT); one we lost track of is (ADD: EEXIST).
    if (result < 0 && errno == ENOENT)
        result = ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, descriptor, &event);
    else if (result < 0 && errno == EEXIST)
        result = ::epoll_ctl(m_epoll, EPOLL_CTL_MOD, descriptor, &event);
    if (result < 0) {
        qWarning("EpollEventDispatcher: cannot watch descriptor %d (errno %d)", descriptor, errno);
        watch.events = 0;
        return;
    }
    watch.events = wanted;
}

int EpollEventDispatcher::activateNotifiers(int readyCount, bool deliver)
{
    std::vector<Pending> &pending = pendingNotifiers();
    pending.clear();
    int events = 0;
    for (int i = 0; i < readyCount; ++i) {
        const int descriptor = m_ready[std::size_t(i)].data.fd;
        const std::uint32_t what = m_ready[std::size_t(i)].events;
        if (descriptor == m_wakeFd) {
            drainWakeUps();
            ++events;
            continue;
        }
        if (!deliver || m_watches.size() <= std::size_t(descriptor))
            continue;
        const Watch &watch = m_watches[std::size_t(descriptor)];
        // As Qt's own loops do: an error or hang-up wakes the reader and the writer alike.
        const bool readable = what & (EPOLLIN | EPOLLHUP | EPOLLERR);
        const bool writable = what & (EPOLLOUT | EPOLLHUP | EPOLLERR);
        if (readable && watch.readCallback >= 0)
            pending.push_back({nullptr, watch.readCallback, m_callbackSockets[std::size_t(watch.readCallback)].generation});
        if (readable && watch.read)
            pending.push_back({watch.read, -1, 0});
        if (writable && watch.writeCallback >= 0)
            pending.push_back({nullptr, watch.writeCallback, m_callbackSockets[std::size_t(watch.writeCallback)].generation});
        if (writable && watch.write)
            pending.push_back({watch.write, -1, 0});
        if (watch.exception && (what & EPOLLPRI))
            pending.push_back({watch.exception, -1, 0});
    }
    if (m_readingAhead)
        readAhead(pending);
    // By index, re-reading the list each time: a handler may cross out later entries, and a nested
    // loop uses its own list, but the outer vector of lists may grow meanwhile.
    for (std::size_t i = 0; i < pendingNotifiers().size(); ++i) {
        m_turnEndWrites.beginEvent(i + 1 < pendingNotifiers().size());
        const Pending entry = std::exchange(pendingNotifiers()[i], Pending{});
        if (entry.notifier) {
            QEvent event(QEvent::SockAct);
            QCoreApplication::sendEvent(entry.notifier, &event);
            ++events;
        } else if (entry.socket >= 0) {
            // Disabled or removed since the wait (the generation moved on): not called.
            const CallbackSocket &socket = m_callbackSockets[std::size_t(entry.socket)];
            if (socket.generation != entry.generation || !socket.client)
                continue;
            SocketClient *client = socket.client; // the call may add sockets, moving `socket`
            client->socketReady();
            ++events;
        }
    }
    pendingNotifiers().clear();
    m_turnEndWrites.endTurn();
    return events;
}

void EpollEventDispatcher::readAhead(const std::vector<Pending> &pending)
{
    for (const Pending &entry : pending) {
        if (entry.socket < 0)
            continue;
        const CallbackSocket &socket = m_callbackSockets[std::size_t(entry.socket)];
        if (!socket.write) {
            if (ReadAheadClient *reader = socket.client->readAheadClient())
                m_readAhead.offer(socket.descriptor, reader);
        }
    }
    m_readAhead.run();
}

// ---- callback socket watches -------------------------------------------------------------------

EpollEventDispatcher::SocketHandle EpollEventDispatcher::addCallbackSocket(int descriptor, SocketDirection direction,
                                                                           SocketClient *client)
{
    Q_ASSERT_X(onOwnThread(), "EpollEventDispatcher", "a socket watch made from another thread");
    const int handle = takeSlot(m_callbackSockets, m_freeCallbackSockets);
    CallbackSocket &socket = m_callbackSockets[std::size_t(handle)];
    socket.client = client;
    socket.descriptor = descriptor;
    socket.write = direction == SocketDirection::Write;
    socket.enabled = false;
    return handle;
}

void EpollEventDispatcher::setCallbackSocketEnabled(SocketHandle handle, bool enabled)
{
    Q_ASSERT_X(onOwnThread(), "EpollEventDispatcher", "a socket watch switched from another thread");
    CallbackSocket &socket = m_callbackSockets[std::size_t(handle)];
    if (!socket.client || socket.enabled == enabled)
        return;
    socket.enabled = enabled;
    if (!enabled)
        ++socket.generation;
    setWatchCallback(socket.descriptor, socket.write, handle, enabled);
}

void EpollEventDispatcher::removeCallbackSocket(SocketHandle handle)
{
    Q_ASSERT_X(onOwnThread(), "EpollEventDispatcher", "a socket watch removed from another thread");
    CallbackSocket &socket = m_callbackSockets[std::size_t(handle)];
    if (!socket.client)
        return;
    if (socket.enabled)
        setWatchCallback(socket.descriptor, socket.write, handle, false);
    socket = CallbackSocket{nullptr, -1, false, false, socket.generation + 1};
    m_freeCallbackSockets.push_back(handle);
}

void EpollEventDispatcher::setWatchCallback(int descriptor, bool write, int handle, bool enabled)
{
    if (descriptor < 0)
        return;
    if (m_watches.size() <= std::size_t(descriptor))
        m_watches.resize(std::size_t(descriptor) + 1);
    Watch &watch = m_watches[std::size_t(descriptor)];
    int &slot = write ? watch.writeCallback : watch.readCallback;
    if (enabled) {
        if (slot >= 0 && slot != handle)
            qWarning("EpollEventDispatcher: a second socket watch of the same direction for descriptor %d replaces the first",
                     descriptor);
        slot = handle;
    } else if (slot == handle) {
        slot = -1;
    }
    updateWatch(descriptor);
}

// ---- timers ------------------------------------------------------------------------------------

void EpollEventDispatcher::registerTimer(int timerId, qint64 interval, Qt::TimerType timerType, QObject *object)
{
    if (timerId <= 0 || !object)
        return;
    if (m_timers.size() <= std::size_t(timerId))
        m_timers.resize(std::size_t(timerId) + 1);
    Timer &timer = m_timers[std::size_t(timerId)];
    if (!timer.object)
        ++m_liveTimers;
    timer.object = object;
    timer.intervalUs = std::max<qint64>(0, interval) * 1000;
    timer.deadlineUs = nowMicros() + timer.intervalUs;
    timer.type = timerType;
    timer.firing = false;
    ++timer.generation;
    pushDue(timerId);
}

bool EpollEventDispatcher::unregisterTimer(int timerId)
{
    if (timerId <= 0 || m_timers.size() <= std::size_t(timerId) || !m_timers[std::size_t(timerId)].object)
        return false;
    Timer &timer = m_timers[std::size_t(timerId)];
    timer.object = nullptr;
    ++timer.generation; // its heap entry is stale from now on
    --m_liveTimers;
    compactHeapIfStale();
    return true;
}

bool EpollEventDispatcher::unregisterTimers(QObject *object)
{
    bool any = false;
    for (std::size_t id = 1; id < m_timers.size(); ++id) {
        if (m_timers[id].object == object)
            any = unregisterTimer(int(id)) || any;
    }
    return any;
}

QList<QAbstractEventDispatcher::TimerInfo> EpollEventDispatcher::registeredTimers(QObject *object) const
{
    QList<TimerInfo> timers;
    for (std::size_t id = 1; id < m_timers.size(); ++id) {
        const Timer &timer = m_timers[id];
        if (timer.object == object)
            timers.append(TimerInfo(int(id), int(timer.intervalUs / 1000), timer.type));
    }
    return timers;
}

int EpollEventDispatcher::remainingTime(int timerId)
{
    if (timerId <= 0 || m_timers.size() <= std::size_t(timerId) || !m_timers[std::size_t(timerId)].object)
        return -1;
    const qint64 left = m_timers[std::size_t(timerId)].deadlineUs - nowMicros();
    return int(std::max<qint64>(0, (left + 999) / 1000));
}

void EpollEventDispatcher::pushDue(int timerId)
{
    const Timer &timer = m_timers[std::size_t(timerId)];
    m_due.push_back(Due{timer.deadlineUs, timerId, timer.generation});
    std::push_heap(m_due.begin(), m_due.end(), laterDeadline);
    compactHeapIfStale();
}

void EpollEventDispatcher::pushCallbackDue(int handle)
{
    const CallbackTimer &timer = m_callbackTimers[std::size_t(handle)];
    m_due.push_back(Due{timer.deadlineUs, -handle - 1, timer.generation});
    std::push_heap(m_due.begin(), m_due.end(), laterDeadline);
    compactHeapIfStale();
}

bool EpollEventDispatcher::isLive(const Due &due) const
{
    if (isCallback(due)) {
        const CallbackTimer &timer = m_callbackTimers[std::size_t(callbackHandle(due))];
        return timer.active && timer.generation == due.generation;
    }
    const Timer &timer = m_timers[std::size_t(due.timerId)];
    return timer.object && timer.generation == due.generation;
}

void EpollEventDispatcher::dropStaleTop()
{
    while (!m_due.empty() && !isLive(m_due.front())) {
        std::pop_heap(m_due.begin(), m_due.end(), laterDeadline);
        m_due.pop_back();
    }
}

void EpollEventDispatcher::compactHeapIfStale()
{
    // Every restart leaves its old entry behind (a connection's idle timer is restarted around
    // each request); rebuild once stale entries outnumber the live ones, so the heap stays small.
    if (m_due.size() <= std::size_t(2 * m_liveTimers + 64))
        return;
    m_due.clear();
    for (std::size_t id = 1; id < m_timers.size(); ++id) {
        const Timer &timer = m_timers[id];
        if (timer.object)
            m_due.push_back(Due{timer.deadlineUs, int(id), timer.generation});
    }
    for (std::size_t handle = 0; handle < m_callbackTimers.size(); ++handle) {
        const CallbackTimer &timer = m_callbackTimers[handle];
        if (timer.active)
            m_due.push_back(Due{timer.deadlineUs, -int(handle) - 1, timer.generation});
    }
    std::make_heap(m_due.begin(), m_due.end(), laterDeadline);
}

int EpollEventDispatcher::timeUntilNextTimer()
{
    dropStaleTop();
    if (m_due.empty())
        return -1;
    const qint64 left = m_due.front().deadlineUs - nowMicros();
    if (left <= 0)
        return 0;
    return int(std::min<qint64>((left + 999) / 1000, 24LL * 3600 * 1000)); // rounded up: never early
}

int EpollEventDispatcher::activateTimers()
{
    dropStaleTop();
    if (m_due.empty())
        return 0;
    const qint64 now = nowMicros();
    // The due timers are taken first: one that a handler starts or restarts now waits for the
    // next turn, so a 0 ms timer that restarts itself cannot keep the loop from its sockets.
    std::vector<Due> &due = dueTimers();
    due.clear();
    while (!m_due.empty() && m_due.front().deadlineUs <= now) {
        std::pop_heap(m_due.begin(), m_due.end(), laterDeadline);
        const Due entry = m_due.back();
        m_due.pop_back();
        if (isLive(entry))
            due.push_back(entry);
    }
    int events = 0;
    for (std::size_t i = 0; i < dueTimers().size(); ++i) {
        const Due entry = dueTimers()[i];
        // Killed or restarted by an earlier handler of this turn: not fired.
        if (isLive(entry) && (isCallback(entry) ? fireCallbackTimer(entry, now) : fireQtTimer(entry, now)))
            ++events;
    }
    dueTimers().clear();
    return events;
}

bool EpollEventDispatcher::fireQtTimer(const Due &entry, qint64 now)
{
    Timer &timer = m_timers[std::size_t(entry.timerId)];
    timer.deadlineUs = nextDeadline(timer.deadlineUs, timer.intervalUs, now);
    pushDue(entry.timerId);
    if (timer.firing)
        return false; // its handler still runs below us (a nested loop)
    timer.firing = true;
    QObject *object = timer.object;
    QTimerEvent event(entry.timerId);
    QCoreApplication::sendEvent(object, &event);
    // The vector may have grown under the handler; the id may now be another timer's, whose
    // flag is false anyway.
    m_timers[std::size_t(entry.timerId)].firing = false;
    return true;
}

bool EpollEventDispatcher::fireCallbackTimer(const Due &entry, qint64 now)
{
    const int handle = callbackHandle(entry);
    CallbackTimer &timer = m_callbackTimers[std::size_t(handle)];
    if (timer.firing) {
        // Due again while its handler still runs below us (a nested loop): the next turn.
        pushCallbackDue(handle);
        return false;
    }
    if (timer.repeating) {
        timer.deadlineUs = nextDeadline(timer.deadlineUs, timer.intervalUs, now);
        pushCallbackDue(handle);
    } else {
        timer.active = false; // as a one-shot Qt timer is: inactive inside its own handler
        --m_liveTimers;
    }
    timer.firing = true;
    timer.client->timerFired();
    // By index again: the handler may have added timers (the vector grew) or removed this one.
    CallbackTimer &after = m_callbackTimers[std::size_t(handle)];
    after.firing = false;
    if (after.removed) {
        after.removed = false;
        m_freeCallbackTimers.push_back(handle);
    }
    return true;
}

// ---- callback timers ---------------------------------------------------------------------------

CallbackDispatcher::TimerHandle EpollEventDispatcher::addCallbackTimer(TimerClient *client, bool repeating)
{
    Q_ASSERT_X(onOwnThread(), "EpollEventDispatcher", "a callback timer made from another thread");
    const int handle = takeSlot(m_callbackTimers, m_freeCallbackTimers);
    CallbackTimer &timer = m_callbackTimers[std::size_t(handle)];
    timer.client = client;
    timer.repeating = repeating;
    timer.active = false;
    timer.firing = false;
    timer.removed = false;
    ++timer.generation; // no entry of the slot's last timer can match
    return handle;
}

void EpollEventDispatcher::startCallbackTimer(TimerHandle handle, std::chrono::nanoseconds after)
{
    Q_ASSERT_X(onOwnThread(), "EpollEventDispatcher", "a callback timer started from another thread");
    CallbackTimer &timer = m_callbackTimers[std::size_t(handle)];
    // Rounded up to the microsecond, and one more for the part of the current one already gone
    // (nowMicros() truncates): never early.
    timer.intervalUs = std::chrono::ceil<std::chrono::microseconds>(std::max(after, std::chrono::nanoseconds::zero())).count();
    timer.deadlineUs = nowMicros() + 1 + timer.intervalUs;
    ++timer.generation; // a pending start's entry is stale from now on
    if (!timer.active) {
        timer.active = true;
        ++m_liveTimers;
    }
    pushCallbackDue(handle);
}

void EpollEventDispatcher::stopCallbackTimer(TimerHandle handle)
{
    Q_ASSERT_X(onOwnThread(), "EpollEventDispatcher", "a callback timer stopped from another thread");
    CallbackTimer &timer = m_callbackTimers[std::size_t(handle)];
    if (!timer.active)
        return;
    timer.active = false;
    ++timer.generation;
    --m_liveTimers;
}

bool EpollEventDispatcher::isCallbackTimerActive(TimerHandle handle) const
{
    return m_callbackTimers[std::size_t(handle)].active;
}

void EpollEventDispatcher::removeCallbackTimer(TimerHandle handle)
{
    stopCallbackTimer(handle);
    CallbackTimer &timer = m_callbackTimers[std::size_t(handle)];
    timer.client = nullptr;
    if (timer.firing)
        timer.removed = true; // its handler is still on the stack: the slot is freed after it
    else
        m_freeCallbackTimers.push_back(handle);
}

} // namespace sb
