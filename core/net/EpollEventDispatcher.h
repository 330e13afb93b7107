#pragma once

#include "common/CallbackDispatcher.h"
#include "common/EnvironmentSwitch.h"
#include "net/IdlePollWindow.h"
#include "net/ReadAhead.h"
#include "net/TurnEndWrites.h"

#include <atomic>
#include <cstdint>
#include <vector>

#include <pthread.h>
#include <sys/epoll.h>

class QSocketNotifier;

namespace sb {

// The event loop of the proxy's worker threads: epoll for socket notifiers, a heap for timers, an
// eventfd for wake-ups from other threads. Qt's default (glib) loop costs a worker more than the
// work it dispatches here: every turn polls every descriptor the worker owns (a client and an
// upstream connection per request in flight), switching a notifier on or off writes an eventfd and
// costs a turn, and a 0 ms timer (how libcurl asks to start a transfer) is one more turn with its
// own poll. This loop waits in epoll_wait for the descriptors that are ready, changes a notifier
// with one epoll_ctl, and fires the timers that are due in the same turn as the sockets that made
// them due, so a request costs about two turns: its client's bytes and its upstream's answer.
//
// The readable sockets whose readers take it are read together before the turn's events are
// delivered (ReadAhead, unless SWITCHBOARD_READ_AHEAD=0 is set), and the writes made while the
// turn delivers leave together at the end of the delivery, except the last event's (TurnEndWrites);
// each says why.
//
// Semantics follow Qt's own Unix dispatcher: posted events, then the ready notifiers, then the due
// timers; a repeating timer keeps its phase (next = last deadline + interval, or now + interval
// once it fell behind); every timer type is kept to the millisecond; a timer never fires while its
// own handler runs (nested loops); wakeUp() from another thread is one eventfd write however many
// arrive before the loop wakes, and from the loop's own thread it costs no system call.
//
// It also runs the clock's callback timers (CallbackDispatcher) in the same heap and turn as
// Qt's timers, with the same rules, and callback socket watches (SocketWatch) beside the
// notifiers, delivered in the same order.
//
// A turn that would sleep first polls its sockets for a while, as long as IdlePollWindow finds it
// worth it (unless SWITCHBOARD_IDLE_POLL=0 is set).
//
// Install it on a thread before the thread starts: `thread->setEventDispatcher(new EpollEventDispatcher)`.
// Linux only. One difference to Qt's loops: processEvents(ExcludeSocketNotifiers | WaitForMoreEvents)
// does not sleep while a socket is ready (epoll still reports it); nothing in the proxy asks for that.
class EpollEventDispatcher final : public CallbackDispatcher {
    Q_OBJECT
public:
    explicit EpollEventDispatcher(QObject *parent = nullptr);
    ~EpollEventDispatcher() override;

    bool processEvents(QEventLoop::ProcessEventsFlags flags) override;

    void registerSocketNotifier(QSocketNotifier *notifier) override;
    void unregisterSocketNotifier(QSocketNotifier *notifier) override;

    void registerTimer(int timerId, qint64 interval, Qt::TimerType timerType, QObject *object) override;
    bool unregisterTimer(int timerId) override;
    bool unregisterTimers(QObject *object) override;
    QList<TimerInfo> registeredTimers(QObject *object) const override;
    int remainingTime(int timerId) override;

    TimerHandle addCallbackTimer(TimerClient *client, bool repeating) override;
    void startCallbackTimer(TimerHandle timer, std::chrono::nanoseconds after) override;
    void stopCallbackTimer(TimerHandle timer) override;
    bool isCallbackTimerActive(TimerHandle timer) const override;
    void removeCallbackTimer(TimerHandle timer) override;

    SocketHandle addCallbackSocket(int descriptor, SocketDirection direction, SocketClient *client) override;
    void setCallbackSocketEnabled(SocketHandle socket, bool enabled) override;
    void removeCallbackSocket(SocketHandle socket) override;

    void wakeUp() override;
    void interrupt() override;

    void startingUp() override;

    // Whether a wait polls before it sleeps (on unless SWITCHBOARD_IDLE_POLL=0). Set before the
    // loop runs.
    void setIdlePolling(bool on) { m_idlePolling = on; }
    bool idlePolling() const { return m_idlePolling; }
    // What the waits did: how many polled first, how many of those an event ended while polling,
    // and how many slept. Read on the loop's thread, or once it has stopped.
    struct IdlePollStats {
        unsigned long long polled = 0;
        unsigned long long caught = 0;
        unsigned long long slept = 0;
    };
    const IdlePollStats &idlePollStats() const { return m_idlePollStats; }
    // Whether readable sockets are read ahead (on unless SWITCHBOARD_READ_AHEAD=0 is set), and
    // what that did. Set before the loop runs; read on the loop's thread, or once it has stopped.
    void setReadingAhead(bool on) { m_readingAhead = on; }
    bool readingAhead() const { return m_readingAhead; }
    const ReadAhead::Stats &readAheadStats() const { return m_readAhead.stats(); }

private:
    // The notifiers and enabled callback watches of one descriptor, indexed by its number.
    struct Watch {
        QSocketNotifier *read = nullptr;
        QSocketNotifier *write = nullptr;
        QSocketNotifier *exception = nullptr;
        int readCallback = -1;  // a callback socket's handle
        int writeCallback = -1;
        std::uint32_t events = 0; // what epoll watches for now (0: not in the epoll set)
    };
    // A callback socket watch, indexed by its handle; freed slots are reused.
    struct CallbackSocket {
        SocketClient *client = nullptr; // nullptr: the slot is free
        int descriptor = -1;
        bool write = false;
        bool enabled = false;
        std::uint32_t generation = 0; // moves on when disabled or removed: a turn's later calls skip it
    };
    // One readiness a turn delivers: to a notifier (crossed out when it goes), or to a callback
    // socket of that generation.
    struct Pending {
        QSocketNotifier *notifier = nullptr;
        int socket = -1;
        std::uint32_t generation = 0;
    };
    // A registered timer, indexed by its id (Qt hands out small ids and reuses them).
    struct Timer {
        QObject *object = nullptr; // nullptr: the slot is free
        qint64 intervalUs = 0;
        qint64 deadlineUs = 0;     // on the monotonic clock, in microseconds: a timer never fires early
        std::uint32_t generation = 0;
        Qt::TimerType type = Qt::PreciseTimer;
        bool firing = false;       // its handler runs: a nested loop does not fire it again
    };
    // A callback timer, indexed by its handle; freed slots are reused.
    struct CallbackTimer {
        TimerClient *client = nullptr; // nullptr: the slot is free (or removed while it fires)
        qint64 intervalUs = 0;
        qint64 deadlineUs = 0;
        std::uint32_t generation = 0;
        bool repeating = false;
        bool active = false;
        bool firing = false;
        bool removed = false;      // removed from its own callback: freed once that returns
    };
    // A heap entry; stale once its timer's generation moved on (killed or restarted). A Qt timer's
    // entry has its id; a callback timer's has -(handle + 1).
    struct Due {
        qint64 deadlineUs;
        int timerId;
        std::uint32_t generation;
    };
    static bool isCallback(const Due &due) { return due.timerId < 0; }
    static int callbackHandle(const Due &due) { return -due.timerId - 1; }
    bool isLive(const Due &due) const;
    static bool laterDeadline(const Due &a, const Due &b) { return a.deadlineUs > b.deadlineUs; } // min-heap order

    // epoll_wait for up to `timeoutMs` (-1: no limit), polling first when idle polling is on.
    int waitForEvents(int timeoutMs);
    void updateWatch(int descriptor);
    void drainWakeUps();
    // Milliseconds the loop may sleep (rounded up): -1 when no timer waits, 0 when one is due.
    int timeUntilNextTimer();
    int activateNotifiers(int readyCount, bool deliver);
    void readAhead(const std::vector<Pending> &pending);
    int activateTimers();
    bool fireQtTimer(const Due &entry, qint64 now);
    bool fireCallbackTimer(const Due &entry, qint64 now);
    void pushDue(int timerId);
    void pushCallbackDue(int handle);
    void dropStaleTop();
    void compactHeapIfStale();
    bool onOwnThread() const;
    // Per-nesting-level scratch lists (a handler may run a nested event loop), reused between turns.
    std::vector<Pending> &pendingNotifiers() { return m_pendingByDepth[std::size_t(m_depth)]; }
    void setWatchCallback(int descriptor, bool write, int handle, bool enabled);
    std::vector<Due> &dueTimers() { return m_firingByDepth[std::size_t(m_depth)]; }

    int m_epoll = -1;
    int m_wakeFd = -1;
    std::vector<Watch> m_watches;
    std::vector<epoll_event> m_ready;
    // Activations collected from one epoll_wait, delivered one by one; a notifier unregistered on
    // the way is crossed out here so it never receives an event meant for its old descriptor.
    std::vector<std::vector<Pending>> m_pendingByDepth;
    // The timers one turn fires, collected before the first fires.
    std::vector<std::vector<Due>> m_firingByDepth;
    int m_depth = -1; // nesting level of processEvents(); -1 outside it
    TurnEndWrites m_turnEndWrites;
    ReadAhead m_readAhead;
    bool m_readingAhead = !switchedOffInEnvironment("SWITCHBOARD_READ_AHEAD");
    bool m_idlePolling = !switchedOffInEnvironment("SWITCHBOARD_IDLE_POLL");
    IdlePollWindow m_pollWindow;
    IdlePollStats m_idlePollStats;

    std::vector<Timer> m_timers;
    std::vector<CallbackTimer> m_callbackTimers;
    std::vector<int> m_freeCallbackTimers;
    std::vector<CallbackSocket> m_callbackSockets;
    std::vector<int> m_freeCallbackSockets;
    std::vector<Due> m_due; // min-heap on deadlineUs
    int m_liveTimers = 0;   // Qt timers registered and callback timers started

    std::atomic<int> m_wakeUpsPending{0}; // 1 once a wake-up is signalled and not yet consumed
    std::atomic<bool> m_interrupted{false};
    bool m_wokenLocally = false;          // a wake-up from our own thread: no eventfd needed
    pthread_t m_owner{};
    std::atomic<bool> m_ownerKnown{false}; // set once, on the loop's thread, before it runs
};

} // namespace sb
