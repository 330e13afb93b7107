// The real clock's timers on the proxy workers' loop, where they are callback timers in the
// EpollEventDispatcher's heap rather than QTimers: never early, in deadline order, repeating,
// restarted, stopped or destroyed by a handler of the same turn or by their own callback, a 0 ms
// timer started by a socket handler in the same turn, and a timer that outlives its loop's thread.
// The same timers on a thread with Qt's own loop (the console's) still run as QTimers.
#include "LoopThread.h"
#include "common/Clock.h"
#include "net/EpollEventDispatcher.h"

#include <QSemaphore>
#include <QSocketNotifier>
#include <QThread>
#include <QtTest>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

using namespace sb;
using namespace std::chrono_literals;

using test::LoopThread;
using test::SocketPair;

namespace {

const Clock &realClock() { return SystemClock::instance(); }

} // namespace

class tst_LoopClockTimers : public QObject {
    Q_OBJECT
private slots:
    void theWorkersLoopRunsCallbackTimers()
    {
        LoopThread loop;
        LoopThread qtLoop(nullptr);
        qtLoop.run([] {}); // its dispatcher is made once the thread runs
        QVERIFY(qobject_cast<CallbackDispatcher *>(loop.dispatcher()));
        QVERIFY(qtLoop.dispatcher());
        QVERIFY(!qobject_cast<CallbackDispatcher *>(qtLoop.dispatcher()));
    }

    void timersFireInDeadlineOrderAndNeverEarly_data()
    {
        QTest::addColumn<bool>("onWorkersLoop");
        QTest::newRow("epoll loop: callback timers") << true;
        QTest::newRow("Qt's loop: QTimers") << false;
    }
    void timersFireInDeadlineOrderAndNeverEarly()
    {
        QFETCH(bool, onWorkersLoop);
        LoopThread loop(onWorkersLoop ? new EpollEventDispatcher : nullptr);
        std::vector<int> order;
        std::vector<Clock::Duration> waited;
        std::vector<std::unique_ptr<Timer>> timers;
        QSemaphore done;
        loop.run([&] {
            const Clock::TimePoint started = realClock().now();
            for (const int ms : {30, 10, 20, 0}) {
                timers.push_back(realClock().createTimer([&, ms, started] {
                    order.push_back(ms);
                    waited.push_back(realClock().now() - started);
                    done.release();
                }));
                timers.back()->start(std::chrono::milliseconds(ms));
            }
        });
        QVERIFY(done.tryAcquire(4, 5000));
        QCOMPARE(order, (std::vector<int>{0, 10, 20, 30}));
        for (std::size_t i = 0; i < order.size(); ++i)
            QVERIFY2(waited[i] >= std::chrono::milliseconds(order[i]),
                     qPrintable(QStringLiteral("a %1 ms timer fired after %2 ms").arg(order[i]).arg(toMillis(waited[i]))));
        loop.run([&] {
            for (const auto &timer : timers)
                QVERIFY(!timer->isActive()); // one-shot: inactive once fired
            timers.clear();
        });
    }

    void aSubMillisecondWaitIsNotRoundedAwayNorEarly()
    {
        LoopThread loop;
        std::unique_ptr<Timer> timer;
        Clock::Duration waited{};
        QSemaphore done;
        loop.run([&] {
            const Clock::TimePoint started = realClock().now();
            timer = realClock().createTimer([&, started] {
                waited = realClock().now() - started;
                done.release();
            });
            timer->start(300us);
        });
        QVERIFY(done.tryAcquire(1, 5000));
        QVERIFY2(waited >= 300us, qPrintable(QString::number(toMillis(waited))));
        loop.run([&] { timer.reset(); });
    }

    void aRepeatingTimerRepeatsUntilStoppedFromItsOwnCallback()
    {
        LoopThread loop;
        std::atomic<int> ticks{0};
        QSemaphore fiveTicks;
        std::unique_ptr<Timer> timer;
        loop.run([&] {
            timer = realClock().createTimer(
                [&] {
                    if (++ticks == 5) {
                        timer->stop();
                        fiveTicks.release();
                    }
                },
                TimerKind::Repeating);
            timer->start(2ms);
        });
        QVERIFY(fiveTicks.tryAcquire(1, 5000));
        QTest::qWait(50);
        QCOMPARE(ticks.load(), 5);
        loop.run([&] {
            QVERIFY(!timer->isActive());
            timer.reset();
        });
    }

    void aTimerStoppedOrDestroyedByAnEarlierHandlerOfTheSameTurnDoesNotFire_data()
    {
        QTest::addColumn<bool>("destroyed");
        QTest::newRow("stopped") << false;
        QTest::newRow("destroyed") << true;
    }
    void aTimerStoppedOrDestroyedByAnEarlierHandlerOfTheSameTurnDoesNotFire()
    {
        QFETCH(bool, destroyed);
        LoopThread loop;
        std::atomic<int> fired{0};
        std::unique_ptr<Timer> first, second;
        // Whichever fires first stops or destroys the other: both are due in the same turn.
        const auto end = [destroyed](std::unique_ptr<Timer> &other) {
            if (destroyed)
                other.reset();
            else
                other->stop();
        };
        loop.run([&] {
            first = realClock().createTimer([&] { ++fired; end(second); });
            second = realClock().createTimer([&] { ++fired; end(first); });
            first->start(5ms);
            second->start(5ms);
        });
        QTest::qWait(60);
        QCOMPARE(fired.load(), 1);
        loop.run([&] {
            first.reset();
            second.reset();
        });
    }

    // A transfer that ends on its own idle timeout destroys its timer from the timer's callback;
    // the slot it leaves is reused by the next timer made there, which must fire as its own.
    void aTimerDestroyedFromItsOwnCallbackLeavesItsSlotToTheNext()
    {
        LoopThread loop;
        std::unique_ptr<Timer> doomed, next;
        std::atomic<int> doomedFired{0}, nextFired{0};
        QSemaphore done;
        loop.run([&] {
            doomed = realClock().createTimer([&] {
                ++doomedFired;
                doomed.reset();
                next = realClock().createTimer([&] {
                    ++nextFired;
                    done.release();
                });
                next->start(1ms);
            });
            doomed->start(1ms);
        });
        QVERIFY(done.tryAcquire(1, 5000));
        QTest::qWait(20);
        QCOMPARE(doomedFired.load(), 1);
        QCOMPARE(nextFired.load(), 1);
        loop.run([&] { next.reset(); });
    }

    void aTimerRestartedFromItsOwnCallbackFiresAgain()
    {
        LoopThread loop;
        std::atomic<int> fired{0};
        std::unique_ptr<Timer> timer;
        QSemaphore threeTimes;
        loop.run([&] {
            timer = realClock().createTimer([&] {
                if (++fired < 3)
                    timer->start(1ms);
                else
                    threeTimes.release();
            });
            timer->start(1ms);
        });
        QVERIFY(threeTimes.tryAcquire(1, 5000));
        QTest::qWait(20);
        QCOMPARE(fired.load(), 3);
        loop.run([&] { timer.reset(); });
    }

    // A call's deadline is set for every request and nearly always stopped or moved before it
    // expires: only the last start counts, and the heap does not keep the rest.
    void manyRestartsKeepOnlyTheLastDeadline()
    {
        LoopThread loop;
        std::atomic<int> fired{0};
        std::vector<std::unique_ptr<Timer>> timers;
        QSemaphore done;
        loop.run([&] {
            for (int t = 0; t < 100; ++t) {
                timers.push_back(realClock().createTimer([&] {
                    ++fired;
                    done.release();
                }));
                for (int i = 0; i < 1000; ++i)
                    timers.back()->start(60s);
                if (t % 2 == 0)
                    timers.back()->stop();
            }
            for (int t = 0; t < 100; t += 10)
                timers[std::size_t(t)]->start(5ms);
        });
        QVERIFY(done.tryAcquire(10, 5000));
        QTest::qWait(30);
        QCOMPARE(fired.load(), 10);
        loop.run([&] {
            for (int t = 0; t < 100; ++t)
                QCOMPARE(timers[std::size_t(t)]->isActive(), t % 2 == 1 && t % 10 != 0);
            timers.clear();
        });
    }

    // How the proxy starts an upstream transfer: a client's bytes arrive and libcurl asks for a
    // 0 ms timeout, which fires in the turn of the socket that asked for it.
    void aZeroTimerStartedBySocketHandlerFiresInTheSameTurn()
    {
        std::atomic<int> turns{0};
        int turnOfSocket = -1;
        int turnOfTimer = -1;
        QSemaphore done;
        SocketPair pair;
        std::unique_ptr<Timer> timer;
        std::unique_ptr<QSocketNotifier> notifier;
        LoopThread loop;
        loop.run([&] {
            connect(loop.dispatcher(), &QAbstractEventDispatcher::awake, loop.dispatcher(), [&] { ++turns; }, Qt::DirectConnection);
            timer = realClock().createTimer([&] {
                turnOfTimer = turns.load();
                done.release();
            });
            notifier = std::make_unique<QSocketNotifier>(pair.ends[0], QSocketNotifier::Read);
            connect(notifier.get(), &QSocketNotifier::activated, notifier.get(), [&] {
                char byte;
                QCOMPARE(::read(pair.ends[0], &byte, 1), ssize_t(1));
                notifier->setEnabled(false);
                turnOfSocket = turns.load();
                timer->start(0ms);
            });
        });
        pair.send();
        QVERIFY(done.tryAcquire(1, 5000));
        QVERIFY(turnOfSocket >= 0);
        QCOMPARE(turnOfTimer, turnOfSocket);
        loop.run([&] {
            notifier.reset();
            timer.reset();
        });
    }

    // Objects of a worker may be destroyed on another thread after the worker's loop has ended
    // (shutdown): their timers find the loop gone and do nothing.
    void aTimerThatOutlivesItsLoopIsHarmless()
    {
        LoopThread loop;
        std::unique_ptr<Timer> timer;
        loop.run([&] {
            timer = realClock().createTimer([] { QFAIL("fired after its loop ended"); });
            timer->start(10s);
        });
        loop.end();
        QVERIFY(!timer->isActive());
        timer->stop();
        timer.reset();
    }
};

QTEST_GUILESS_MAIN(tst_LoopClockTimers)
#include "tst_LoopClockTimers.moc"
