// The window a worker's loop polls for before it sleeps: opened by the second of two short waits
// that had to sleep, doubled up to its longest, never opened by short and long waits in turn,
// kept while polls catch their events, halved by each long wait and closed below its first size;
// a timer's own deadline does not open it.
#include "net/IdlePollWindow.h"

#include <QtTest>

using namespace sb;
using Window = IdlePollWindow;
using std::chrono::microseconds;

class tst_IdlePollWindow : public QObject {
    Q_OBJECT
private slots:
    void aSecondShortWaitOpensTheWindowAndEachOneMoreDoublesIt()
    {
        Window window;
        QCOMPARE(window.window(), microseconds(0));
        window.slept(microseconds(40), true);
        QCOMPARE(window.window(), microseconds(0));
        window.slept(microseconds(40), true);
        QCOMPARE(window.window(), Window::kFirst);
        window.slept(microseconds(40), true);
        QCOMPARE(window.window(), 2 * Window::kFirst);
        for (int i = 0; i < 10; ++i)
            window.slept(Window::kLongest, true);
        QCOMPARE(window.window(), Window::kLongest);
    }

    void shortAndLongWaitsInTurnNeverOpenIt()
    {
        Window window;
        for (int i = 0; i < 50; ++i) {
            window.slept(microseconds(30), true);          // a fast upstream's answer
            window.slept(std::chrono::milliseconds(2), true); // the next client's request
            QCOMPARE(window.window(), microseconds(0));
        }
    }

    void aCaughtEventKeepsTheWindow()
    {
        Window window;
        for (int i = 0; i < 3; ++i)
            window.slept(microseconds(5), true);
        const microseconds open = window.window();
        QVERIFY(open > microseconds(0));
        for (int i = 0; i < 5; ++i)
            window.caught();
        QCOMPARE(window.window(), open);
    }

    void longWaitsHalveTheWindowAndCloseIt()
    {
        Window window;
        for (int i = 0; i < 10; ++i)
            window.slept(microseconds(50), true);
        QCOMPARE(window.window(), Window::kLongest);
        window.slept(Window::kLongest + microseconds(1), true);
        QCOMPARE(window.window(), Window::kLongest / 2);
        int longWaits = 1;
        while (window.window() > microseconds(0) && longWaits < 100) {
            window.slept(std::chrono::milliseconds(20), false);
            ++longWaits;
        }
        QCOMPARE(window.window(), microseconds(0));
        QVERIFY(longWaits <= 5); // 100 -> 50 -> 25 -> 12 -> closed (6 is under the first size)
    }

    void aTimersDeadlineDoesNotOpenTheWindow()
    {
        Window window;
        for (int i = 0; i < 5; ++i)
            window.slept(microseconds(30), false);
        QCOMPARE(window.window(), microseconds(0));
    }
};

QTEST_GUILESS_MAIN(tst_IdlePollWindow)
#include "tst_IdlePollWindow.moc"
