#pragma once

#include <QAbstractEventDispatcher>

#include <chrono>

namespace sb {

// An event loop that also runs timers which are only a callback: no QObject, no Qt timer id and
// no timer event each. The clock's timers are made for nearly every request (a call's slow-wait
// deadline, a connection's phase timer); as QTimers, making, connecting, starting and destroying
// them was about 5 % of a proxy worker's CPU. SystemClock's timers take this way on a thread whose
// loop offers it and a QTimer elsewhere. Every call is made on the loop's own thread.
class CallbackTimerDispatcher : public QAbstractEventDispatcher {
    Q_OBJECT
public:
    // What a timer calls when it fires. From there it may restart, stop or remove its own timer.
    class Client {
    public:
        virtual void timerFired() = 0;

    protected:
        ~Client() = default;
    };
    using TimerHandle = int;

    using QAbstractEventDispatcher::QAbstractEventDispatcher;

    // A stopped timer; the handle stays valid until removeCallbackTimer().
    virtual TimerHandle addCallbackTimer(Client *client, bool repeating) = 0;
    // Fires `after` from now, never earlier, replacing a pending start; a repeating timer then
    // fires every `after`. A zero wait fires after the current turn's sockets, in the same turn.
    virtual void startCallbackTimer(TimerHandle timer, std::chrono::nanoseconds after) = 0;
    virtual void stopCallbackTimer(TimerHandle timer) = 0;
    virtual bool isCallbackTimerActive(TimerHandle timer) const = 0;
    virtual void removeCallbackTimer(TimerHandle timer) = 0;
};

} // namespace sb
