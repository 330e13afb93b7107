#include "FakeClock.h"

#include <QtTest>

using namespace std::chrono_literals;
using sb::test::FakeClock;

class tst_FakeClock : public QObject {
    Q_OBJECT
private slots:
    void advancesOnlyWhenTold()
    {
        FakeClock clock;
        const auto t0 = clock.now();
        const auto w0 = clock.wallMillis();
        QCOMPARE(clock.now(), t0);
        clock.advance(1500ms);
        QCOMPARE(clock.now() - t0, sb::Clock::Duration(1500ms));
        QCOMPARE(clock.wallMillis() - w0, 1500);
        clock.advance(3min);
        QCOMPARE(sb::toSeconds(clock.now() - t0), 181.5);
    }

    void systemClockIsMonotonic()
    {
        auto &clock = sb::SystemClock::instance();
        auto previous = clock.now();
        for (int i = 0; i < 1000; ++i) {
            const auto next = clock.now();
            QVERIFY(next >= previous);
            previous = next;
        }
        QVERIFY(clock.wallMillis() > 1'600'000'000'000); // after 2020: a real epoch time
    }
};

QTEST_APPLESS_MAIN(tst_FakeClock)
#include "tst_FakeClock.moc"
