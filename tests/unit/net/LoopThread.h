#pragma once

#include "net/EpollEventDispatcher.h"

#include <QSemaphore>
#include <QThread>
#include <QtTest>

#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <memory>

namespace sb::test {

// A QThread running an event loop (the workers' EpollEventDispatcher unless given another, or
// nullptr for Qt's own), and a context object living on it.
class LoopThread {
public:
    explicit LoopThread(QAbstractEventDispatcher *dispatcher = new EpollEventDispatcher)
    {
        if (dispatcher)
            m_thread.setEventDispatcher(dispatcher);
        m_context.moveToThread(&m_thread);
        m_thread.start();
    }
    ~LoopThread()
    {
        // What a test left on the loop (timers, notifiers) goes on the loop's own thread.
        if (m_thread.isRunning())
            run([this] { qDeleteAll(m_context.children()); });
        end();
    }
    void end()
    {
        m_thread.quit();
        m_thread.wait();
    }
    QObject *context() { return &m_context; }
    QAbstractEventDispatcher *dispatcher() { return m_thread.eventDispatcher(); }
    // Runs `work` on the loop's thread and waits for it.
    void run(const std::function<void()> &work) { QMetaObject::invokeMethod(&m_context, work, Qt::BlockingQueuedConnection); }
    // Runs `work` on the calling thread while the loop is held in the middle of a turn: whatever
    // it makes readable, the loop's next wait finds together.
    void whileHeld(const std::function<void()> &work)
    {
        // Shared: the loop may still be on its way into the wait when this returns.
        struct Gate {
            QSemaphore busy, release;
        };
        const auto gate = std::make_shared<Gate>();
        QMetaObject::invokeMethod(&m_context, [gate] {
            gate->busy.release();
            gate->release.acquire();
        });
        const bool held = gate->busy.tryAcquire(1, 5000);
        if (held)
            work();
        gate->release.release();
        QVERIFY(held);
    }
    QThread &thread() { return m_thread; }

private:
    QThread m_thread;
    QObject m_context;
};

// Two connected local sockets; the test reads ends[0] and writes ends[1].
struct SocketPair {
    int ends[2] = {-1, -1};
    SocketPair() { ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, ends); }
    ~SocketPair()
    {
        ::close(ends[0]);
        ::close(ends[1]);
    }
    void send(const char *bytes = "x") { QCOMPARE(::write(ends[1], bytes, std::strlen(bytes)), ssize_t(std::strlen(bytes))); }
};

} // namespace sb::test
