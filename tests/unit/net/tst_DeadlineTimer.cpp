// DeadlineTimer: expires once, at or after its latest deadline, whichever way the deadline moved.

#include "net/DeadlineTimer.h"

#include <QElapsedTimer>
#include <QTest>

using namespace sb;
using namespace std::chrono_literals;

class tst_DeadlineTimer : public QObject {
    Q_OBJECT

private slots:
    void expiresOnceAfterItsTimeout()
    {
        int expired = 0;
        qint64 at = -1;
        QElapsedTimer clock;
        DeadlineTimer timer([&] { ++expired; at = clock.elapsed(); });
        clock.start();
        timer.start(60ms);
        QVERIFY(timer.isActive());
        QTRY_COMPARE_WITH_TIMEOUT(expired, 1, 5000);
        QVERIFY2(at >= 60, qPrintable(QString::number(at)));
        QVERIFY(!timer.isActive());
        QTest::qWait(120);
        QCOMPARE(expired, 1);
    }

    void aDeadlineMovedEarlierIsKept()
    {
        int expired = 0;
        DeadlineTimer timer([&] { ++expired; });
        timer.start(60'000ms);
        timer.start(40ms);
        QTRY_COMPARE_WITH_TIMEOUT(expired, 1, 5000); // not a minute later
    }

    void aDeadlineMovedLaterIsWaitedOut()
    {
        int expired = 0;
        qint64 at = -1;
        QElapsedTimer clock;
        DeadlineTimer timer([&] { ++expired; at = clock.elapsed(); });
        clock.start();
        timer.start(30ms);
        timer.start(250ms); // the QTimer still fires at 30 ms and must wait the rest
        QTRY_COMPARE_WITH_TIMEOUT(expired, 1, 5000);
        QVERIFY2(at >= 250, qPrintable(QString::number(at)));
    }

    void aStoppedTimerNeverExpiresAndCanStartAgain()
    {
        int expired = 0;
        DeadlineTimer timer([&] { ++expired; });
        timer.start(30ms);
        timer.stop();
        QVERIFY(!timer.isActive());
        QTest::qWait(150);
        QCOMPARE(expired, 0);
        timer.start(30ms);
        QTRY_COMPARE_WITH_TIMEOUT(expired, 1, 5000);
    }

    void itMayStartItselfAgainWhenItExpires()
    {
        int expired = 0;
        std::unique_ptr<DeadlineTimer> timer;
        timer = std::make_unique<DeadlineTimer>([&] {
            if (++expired < 3)
                timer->start(20ms);
        });
        timer->start(20ms);
        QTRY_COMPARE_WITH_TIMEOUT(expired, 3, 5000);
        QTest::qWait(100);
        QCOMPARE(expired, 3);
    }
};

QTEST_GUILESS_MAIN(tst_DeadlineTimer)
#include "tst_DeadlineTimer.moc"
