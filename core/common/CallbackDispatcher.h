#pragma once

#include <QAbstractEventDispatcher>

#include <chrono>
#include <cstddef>

namespace sb {

// An event loop that also runs timers and socket watches which are only a callback: no QObject,
// no Qt timer id or QSocketNotifier, no event and no signal each. The clock's timers are made for
// nearly every request (a call's slow-wait deadline, a connection's phase timer); as QTimers,
// making, connecting, starting and destroying them was about 5 % of a proxy worker's CPU. A
// socket's readiness through a QSocketNotifier is an event sent to it and a signal it emits, some
// 700 instructions each time, twice or more a proxied request. SystemClock's timers and SocketWatch
// take this way on a thread whose loop offers it, and Qt's own elsewhere. Every call is made on
// the loop's own thread.
class CallbackDispatcher : public QAbstractEventDispatcher {
    Q_OBJECT
public:
    // What a timer calls when it fires. From there it may restart, stop or remove its own timer.
    class TimerClient {
    public:
        virtual void timerFired() = 0;

    protected:
        ~TimerClient() = default;
    };
    using TimerHandle = int;

    // What a socket watch calls when its descriptor is ready: readable, or writable, as it was
    // added for (an error or a hang-up wakes both). From there it may disable or remove any watch,
    // its own included.
    class ReadAheadClient;
    class SocketClient {
    public:
        virtual void socketReady() = 0;
        // A read watch's reader that takes bytes read for it before its event, or nullptr.
        virtual ReadAheadClient *readAheadClient() { return nullptr; }

    protected:
        ~SocketClient() = default;
    };
    // Who takes the bytes a loop reads from a readable socket for its reader, before the turn's
    // events are delivered: a loop may read several sockets of a turn in one system call
    // (EpollEventDispatcher, ReadAhead).
    class ReadAheadClient {
    public:
        // How many bytes it takes now; 0: none (it reads for itself, as a client's TLS stream does).
        virtual std::size_t readAheadRoom() const = 0;
        // What was read for it when `asked` bytes were asked: `result` bytes at `data`, 0 at the
        // end of the stream, or -errno (-EAGAIN: nothing waited after all). Called as the turn
        // starts, before any handler of the turn runs; the socket's readable event follows in
        // the same turn unless a handler before it disables or removes the watch.
        virtual void readAheadDone(const char *data, long result, std::size_t asked) = 0;

    protected:
        ~ReadAheadClient() = default;
    };
    using SocketHandle = int;
    enum class SocketDirection { Read, Write };

    using QAbstractEventDispatcher::QAbstractEventDispatcher;

    // A stopped timer; the handle stays valid until removeCallbackTimer().
    virtual TimerHandle addCallbackTimer(TimerClient *client, bool repeating) = 0;
    // Fires `after` from now, never earlier, replacing a pending start; a repeating timer then
    // fires every `after`. A zero wait fires after the current turn's sockets, in the same turn.
    virtual void startCallbackTimer(TimerHandle timer, std::chrono::nanoseconds after) = 0;
    virtual void stopCallbackTimer(TimerHandle timer) = 0;
    virtual bool isCallbackTimerActive(TimerHandle timer) const = 0;
    virtual void removeCallbackTimer(TimerHandle timer) = 0;

    // A disabled watch of `descriptor` in one direction; the handle stays valid until
    // removeCallbackSocket(), which comes before the descriptor is closed. A watch disabled or
    // removed during a turn is not called later in that turn, as with a QSocketNotifier.
    virtual SocketHandle addCallbackSocket(int descriptor, SocketDirection direction, SocketClient *client) = 0;
    virtual void setCallbackSocketEnabled(SocketHandle socket, bool enabled) = 0;
    virtual void removeCallbackSocket(SocketHandle socket) = 0;
};

} // namespace sb
