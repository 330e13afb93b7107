// SocketWatch behaves as a QSocketNotifier on both loops it runs on: as a callback socket of the
// workers' EpollEventDispatcher and as a QSocketNotifier on Qt's own loop. Level-triggered,
// switched off and on, not called later in a turn once an earlier call disabled or destroyed it,
// and safe to destroy from its own call (ASan sees a use after free there otherwise).
#include "LoopThread.h"
#include "net/SocketWatch.h"

#include <QSemaphore>
#include <QtTest>

#include <atomic>
#include <memory>

using namespace sb;

using test::LoopThread;
using test::SocketPair;

namespace {

constexpr int kWait = 5000;

std::unique_ptr<LoopThread> loopOfKind(bool epoll)
{
    return std::make_unique<LoopThread>(epoll ? static_cast<QAbstractEventDispatcher *>(new EpollEventDispatcher) : nullptr);
}

void bothLoops()
{
    QTest::addColumn<bool>("epoll");
    QTest::newRow("epoll loop: callback sockets") << true;
    QTest::newRow("Qt's loop: a notifier") << false;
}

} // namespace

class tst_SocketWatch : public QObject {
    Q_OBJECT
private slots:
    void readableIsLevelTriggeredAndCanBeSwitchedOffAndOn_data() { bothLoops(); }
    void readableIsLevelTriggeredAndCanBeSwitchedOffAndOn()
    {
        QFETCH(bool, epoll);
        const auto loop = loopOfKind(epoll);
        QCOMPARE(qobject_cast<CallbackDispatcher *>(loop->dispatcher()) != nullptr, epoll);
        SocketPair pair;
        std::atomic<int> calls{0};
        QSemaphore called;
        std::unique_ptr<SocketWatch> watch;
        loop->run([&] {
            watch = std::make_unique<SocketWatch>(pair.ends[0], SocketWatch::Direction::Read, [&] {
                ++calls;
                watch->setEnabled(false); // not read: the byte stays, so it is still ready
                called.release();
            });
        });
        pair.send();
        QTest::qWait(30);
        QCOMPARE(calls.load(), 0); // made disabled
        loop->run([&] { watch->setEnabled(true); });
        QVERIFY(called.tryAcquire(1, kWait));
        QTest::qWait(30);
        QCOMPARE(calls.load(), 1);
        bool enabledAfterItsCall = true;
        loop->run([&] {
            enabledAfterItsCall = watch->isEnabled();
            watch->setEnabled(true);
        });
        QVERIFY(!enabledAfterItsCall);
        QVERIFY(called.tryAcquire(1, kWait)); // the unread byte wakes it again
        QCOMPARE(calls.load(), 2);
        loop->run([&] { watch.reset(); });
    }

    void writableWhileThereIsRoom_data() { bothLoops(); }
    void writableWhileThereIsRoom()
    {
        QFETCH(bool, epoll);
        const auto loop = loopOfKind(epoll);
        SocketPair pair;
        QSemaphore writable;
        std::unique_ptr<SocketWatch> watch;
        loop->run([&] {
            watch = std::make_unique<SocketWatch>(pair.ends[0], SocketWatch::Direction::Write, [&] {
                watch->setEnabled(false);
                writable.release();
            });
            watch->setEnabled(true);
        });
        QVERIFY(writable.tryAcquire(1, kWait));
        loop->run([&] { watch.reset(); });
    }

    // Two sockets ready in one turn: the first call destroys or disables the other's watch, which
    // then must not be called in that turn, and destroys its own.
    void aWatchGoneOrOffSinceTheTurnBeganIsNotCalled_data()
    {
        QTest::addColumn<bool>("epoll");
        QTest::addColumn<bool>("destroy");
        QTest::newRow("epoll, destroyed") << true << true;
        QTest::newRow("epoll, disabled") << true << false;
        QTest::newRow("Qt, destroyed") << false << true;
        QTest::newRow("Qt, disabled") << false << false;
    }
    void aWatchGoneOrOffSinceTheTurnBeganIsNotCalled()
    {
        QFETCH(bool, epoll);
        QFETCH(bool, destroy);
        const auto loop = loopOfKind(epoll);
        SocketPair a, b;
        std::atomic<int> calls{0};
        QSemaphore done;
        std::unique_ptr<SocketWatch> watches[2];
        loop->run([&] {
            for (int i = 0; i < 2; ++i) {
                watches[i] = std::make_unique<SocketWatch>((i ? b : a).ends[0], SocketWatch::Direction::Read, [&, i] {
                    ++calls;
                    if (destroy)
                        watches[1 - i].reset(); // it was ready in this very turn
                    else
                        watches[1 - i]->setEnabled(false);
                    watches[i].reset(); // its own, from its own call
                    done.release();
                });
                watches[i]->setEnabled(true);
            }
        });
        // Both become ready before the loop wakes, so one turn reports both.
        loop->run([&] {
            a.send();
            b.send();
        });
        QVERIFY(done.tryAcquire(1, kWait));
        QTest::qWait(50);
        QCOMPARE(calls.load(), 1);
        loop->run([&] {
            watches[0].reset();
            watches[1].reset();
        });
    }

    // Off and on again from an earlier call of the same turn: as a notifier unregistered and
    // registered again, it waits for the next turn (and is called then, its socket still ready).
    void offAndOnAgainInOneTurnWaitsForTheNext()
    {
        LoopThread loop;
        SocketPair a, b;
        std::atomic<int> firstCalls{0}, secondCalls{0};
        QSemaphore secondCalled;
        std::unique_ptr<SocketWatch> first, second;
        loop.run([&] {
            first = std::make_unique<SocketWatch>(a.ends[0], SocketWatch::Direction::Read, [&] {
                if (++firstCalls == 1) {
                    second->setEnabled(false);
                    second->setEnabled(true);
                }
                first->setEnabled(false);
            });
            second = std::make_unique<SocketWatch>(b.ends[0], SocketWatch::Direction::Read, [&] {
                ++secondCalls;
                second->setEnabled(false);
                secondCalled.release();
            });
            first->setEnabled(true);
            second->setEnabled(true);
        });
        loop.run([&] {
            a.send();
            b.send();
        });
        QVERIFY(secondCalled.tryAcquire(1, kWait));
        QCOMPARE(secondCalls.load(), 1);
        QCOMPARE(firstCalls.load(), 1);
        loop.run([&] {
            first.reset();
            second.reset();
        });
    }

    // A descriptor number closed and handed out again: the new watch is called, not the old one.
    void aReusedDescriptorNumberCallsOnlyItsNewWatch()
    {
        LoopThread loop;
        std::atomic<int> oldCalls{0}, newCalls{0};
        QSemaphore called;
        auto firstPair = std::make_unique<SocketPair>();
        std::unique_ptr<SocketWatch> oldWatch, newWatch;
        loop.run([&] {
            oldWatch = std::make_unique<SocketWatch>(firstPair->ends[0], SocketWatch::Direction::Read, [&] { ++oldCalls; });
            oldWatch->setEnabled(true);
        });
        loop.run([&] { oldWatch.reset(); });
        firstPair.reset();
        SocketPair pair; // nearly always the numbers just closed
        loop.run([&] {
            newWatch = std::make_unique<SocketWatch>(pair.ends[0], SocketWatch::Direction::Read, [&] {
                ++newCalls;
                newWatch->setEnabled(false);
                called.release();
            });
            newWatch->setEnabled(true);
        });
        pair.send();
        QVERIFY(called.tryAcquire(1, kWait));
        QCOMPARE(oldCalls.load(), 0);
        QCOMPARE(newCalls.load(), 1);
        loop.run([&] { newWatch.reset(); });
    }
};

QTEST_GUILESS_MAIN(tst_SocketWatch)
#include "tst_SocketWatch.moc"
