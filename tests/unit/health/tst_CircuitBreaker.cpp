#include "FakeClock.h"
#include "FakeRandom.h"
#include "health/CircuitBreaker.h"

#include <QtTest>

using namespace std::chrono_literals;
using namespace sb;
using sb::test::FakeClock;
using sb::test::FakeRandom;

namespace {
using T = std::vector<BreakerTransition>;

void fail(CircuitBreaker &b, T *t, bool trial = false)
{
    b.onResult(BreakerResult::Failure, trial, t);
}
void succeed(CircuitBreaker &b, T *t, bool trial = false)
{
    b.onResult(BreakerResult::Success, trial, t);
}
} // namespace

class tst_CircuitBreaker : public QObject {
    Q_OBJECT
private slots:
    void presetsMatchMission()
    {
        const auto relay = BreakerConfig::relay();
        QCOMPARE(relay.consecutiveFailures, 5);
        QCOMPARE(relay.openDuration, 60s);
        QCOMPARE(relay.halfOpenMode, HalfOpenMode::TrialCalls);
        QCOMPARE(relay.halfOpenMaxTrials, 3);
        const auto launch = BreakerConfig::launchDay();
        QCOMPARE(launch.failureRateThreshold, 0.20);
        QCOMPARE(launch.rateWindow, 5s);
        QCOMPARE(launch.openDuration, 120s);
        QCOMPARE(launch.halfOpenMode, HalfOpenMode::TrafficShare);
        QCOMPARE(launch.halfOpenTrafficShare, 0.05);
        QCOMPARE(launch.successesToClose, 3);
    }

    void relayConsecutiveFailuresFullCycle()
    {
        FakeClock clock;
        FakeRandom random;
        CircuitBreaker b(clock, BreakerConfig::relay());
        // Rate trigger out of the way (it needs > 20 % of ≥ 5 calls): 4 failures among many successes.
        T t;
        for (int i = 0; i < 4; ++i)
            fail(b, &t);
        succeed(b, &t); // resets the streak
        QCOMPARE(b.state(), BreakerState::Closed);

        CircuitBreaker c(clock, BreakerConfig::relay());
        for (int i = 0; i < 30; ++i) // 30 successes keep the 5 s failure rate under 20 %
            succeed(c, &t);
        for (int i = 0; i < 4; ++i)
            fail(c, &t);
        QCOMPARE(c.state(), BreakerState::Closed);
        fail(c, &t);
        QCOMPARE(c.state(), BreakerState::Open);
        QCOMPARE(t.size(), 1u);
        QCOMPARE(t[0].from, BreakerState::Closed);
        QCOMPARE(t[0].to, BreakerState::Open);
        QVERIFY2(t[0].reason.contains(QLatin1String("5 consecutive failures")), qPrintable(t[0].reason));
        QCOMPARE(c.stats().consecutiveTrips, 1u);
        QCOMPARE(c.tryAdmit(random, &t), CircuitBreaker::Admission::Rejected);

        clock.advance(59s);
        c.poll(&t);
        QCOMPARE(c.state(), BreakerState::Open);
        clock.advance(1s);
        c.poll(&t);
        QCOMPARE(c.state(), BreakerState::HalfOpen);
        QVERIFY(t.back().reason.contains(QLatin1String("60 s")));

        // At most 3 trial calls in flight.
        QCOMPARE(c.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        QCOMPARE(c.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        QCOMPARE(c.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        QCOMPARE(c.tryAdmit(random, &t), CircuitBreaker::Admission::Rejected);
        QCOMPARE(c.trialsInFlight(), 3);
        succeed(c, &t, true);
        succeed(c, &t, true);
        QCOMPARE(c.state(), BreakerState::HalfOpen);
        succeed(c, &t, true);
        QCOMPARE(c.state(), BreakerState::Closed);
        QCOMPARE(t.back().from, BreakerState::HalfOpen);
        QVERIFY(t.back().reason.contains(QLatin1String("3 consecutive")));
        QCOMPARE(c.stats().closes, 1u);
    }

    void halfOpenFailureReopens()
    {
        FakeClock clock;
        FakeRandom random;
        CircuitBreaker b(clock, BreakerConfig::relay());
        T t;
        for (int i = 0; i < 5; ++i)
            fail(b, &t);
        clock.advance(60s);
        QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        succeed(b, &t, true);
        QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        fail(b, &t, true);
        QCOMPARE(b.state(), BreakerState::Open);
        QCOMPARE(t.back().from, BreakerState::HalfOpen);
        QVERIFY(t.back().reason.contains(QLatin1String("trial call failed")));
        QCOMPARE(b.stats().reopens, 1u);
        // Neutral outcomes (rate limits) free a trial slot but do not count toward closing.
        clock.advance(60s);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        b.onResult(BreakerResult::Neutral, true, &t);
        QCOMPARE(b.trialsInFlight(), 2);
        QCOMPARE(b.state(), BreakerState::HalfOpen);
        b.releaseTrial();
        QCOMPARE(b.trialsInFlight(), 1);
    }

    void rateTriggerUnderBothPresets_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::newRow("relay") << QStringLiteral("relay");
        QTest::newRow("launch-day") << QStringLiteral("launch-day");
    }

    void rateTriggerUnderBothPresets()
    {
        QFETCH(QString, preset);
        BreakerConfig config;
        QVERIFY(BreakerConfig::fromPreset(preset, &config));
        FakeClock clock;
        CircuitBreaker b(clock, config);
        T t;
        // m = the preset's minimum (20 relay, 10 launch-day), f = 20 % of it. f failures in the first
        // m - 1 calls, never 5 in a row: above 20 % but under the minimum — no trip.
        const int m = config.minCallsInWindow;
        const int f = m / 5;
        QVERIFY(m >= 10 && f >= 2);
        for (int call = 0; call < m - 1; ++call) {
            if (call < 2 * f && call % 2 == 0)
                fail(b, &t);
            else
                succeed(b, &t);
        }
        QCOMPARE(b.state(), BreakerState::Closed);
        // The m-th call, a success: f/m = 20 % is not above 20 %.
        succeed(b, &t);
        QCOMPARE(b.state(), BreakerState::Closed);
        // (f+1)/(m+1) over the 5 s window: trip, with the numbers in the reason.
        fail(b, &t);
        QCOMPARE(b.state(), BreakerState::Open);
        QCOMPARE(b.stats().rateTrips, 1u);
        const QString numbers = QStringLiteral("over 5 s (%1 of %2 calls)").arg(f + 1).arg(m + 1);
        QVERIFY2(t.back().reason.contains(numbers), qPrintable(t.back().reason));
        QCOMPARE(b.currentOpenDuration(), Clock::Duration(config.openDuration));
    }

    void rateWindowSlides()
    {
        FakeClock clock;
        CircuitBreaker b(clock, BreakerConfig::launchDay());
        T t;
        for (int i = 0; i < 10; ++i)
            succeed(b, &t);
        fail(b, &t);
        fail(b, &t); // 2/12
        clock.advance(5s); // everything above has left the 5 s window
        fail(b, &t);
        QCOMPARE(b.state(), BreakerState::Closed); // 1 call: under the minimum of 10
        for (int i = 0; i < 8; ++i)
            succeed(b, &t);
        fail(b, &t); // 2/10 = 20 %
        QCOMPARE(b.state(), BreakerState::Closed);
        fail(b, &t); // 3/11
        QCOMPARE(b.state(), BreakerState::Open);
    }

    void launchDayHalfOpenAdmitsFivePercent()
    {
        FakeClock clock;
        FakeRandom random(7);
        CircuitBreaker b(clock, BreakerConfig::launchDay());
        T t;
        for (int i = 0; i < 5; ++i)
            fail(b, &t);
        QCOMPARE(b.state(), BreakerState::Open);
        clock.advance(119s);
        QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Rejected);
        clock.advance(1s);
        int trials = 0;
        const int draws = 20000;
        for (int i = 0; i < draws; ++i)
            if (b.tryAdmit(random, &t) == CircuitBreaker::Admission::Trial)
                ++trials;
        QCOMPARE(b.state(), BreakerState::HalfOpen);
        const double share = double(trials) / draws;
        QVERIFY2(share > 0.04 && share < 0.06, qPrintable(QString::number(share)));
        // Trial share is not capped in flight; 3 consecutive successes close it.
        for (int i = 0; i < 3; ++i)
            succeed(b, &t, true);
        QCOMPARE(b.state(), BreakerState::Closed);
        // A closed breaker starts with a clean rate window: one failure does not re-trip it.
        fail(b, &t);
        QCOMPARE(b.state(), BreakerState::Closed);
    }

    void quietRouteStillGetsATrialEverySecondWhileHalfOpen()
    {
        FakeClock clock;
        FakeRandom random(7);
        BreakerConfig config = BreakerConfig::launchDay();
        config.halfOpenTrafficShare = 1e-9; // the share's own draw never admits anything here
        CircuitBreaker b(clock, config);
        T t;
        for (int i = 0; i < 5; ++i)
            fail(b, &t);
        clock.advance(120s);

        // The first call after the open duration is a trial; none other while it is in flight.
        QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        clock.advance(2s);
        QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Rejected);
        succeed(b, &t, true);
        QCOMPARE(b.state(), BreakerState::HalfOpen);

        // The last trial was admitted 2 s ago: the next call is one at once; then one per second.
        QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        succeed(b, &t, true);
        clock.advance(999ms);
        QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Rejected);
        clock.advance(1ms);
        QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        succeed(b, &t, true);
        QCOMPARE(b.state(), BreakerState::Closed);

        // A failed floor trial re-opens it like any other trial.
        for (int i = 0; i < 5; ++i)
            fail(b, &t);
        clock.advance(120s);
        QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        fail(b, &t, true);
        QCOMPARE(b.state(), BreakerState::Open);
    }

    void launchDayConsecutiveTriggerAlsoApplies()
    {
        FakeClock clock;
        CircuitBreaker b(clock, BreakerConfig::launchDay());
        T t;
        // Spread over time so the rate window never holds 5 calls: only the streak can trip it.
        for (int i = 0; i < 5; ++i) {
            fail(b, &t);
            clock.advance(2s);
        }
        QCOMPARE(b.state(), BreakerState::Open);
        QCOMPARE(b.stats().consecutiveTrips, 1u);
        QCOMPARE(b.currentOpenDuration(), Clock::Duration(120s));
    }

    void openDurationGrowsOnRepeatedTripsAndIsCapped()
    {
        FakeClock clock;
        FakeRandom random;
        auto config = BreakerConfig::relay();
        config.openGrowthFactor = 2.0;
        config.maxOpenDuration = 200s;
        CircuitBreaker b(clock, config);
        T t;
        for (int i = 0; i < 5; ++i)
            fail(b, &t);
        QCOMPARE(b.currentOpenDuration(), Clock::Duration(60s));
        clock.advance(60s);
        QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        fail(b, &t, true);
        QCOMPARE(b.currentOpenDuration(), Clock::Duration(120s));
        clock.advance(120s);
        QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
        fail(b, &t, true);
        QCOMPARE(b.currentOpenDuration(), Clock::Duration(200s)); // 240 s capped
        // Closing resets the growth.
        clock.advance(200s);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(b.tryAdmit(random, &t), CircuitBreaker::Admission::Trial);
            succeed(b, &t, true);
        }
        QCOMPARE(b.state(), BreakerState::Closed);
        for (int i = 0; i < 5; ++i)
            fail(b, &t);
        QCOMPARE(b.currentOpenDuration(), Clock::Duration(60s));
    }

    void neutralOutcomesNeverTrip()
    {
        FakeClock clock;
        CircuitBreaker b(clock, BreakerConfig::relay());
        T t;
        for (int i = 0; i < 50; ++i)
            b.onResult(BreakerResult::Neutral, false, &t);
        QCOMPARE(b.state(), BreakerState::Closed);
        QVERIFY(t.empty());
    }
};

QTEST_APPLESS_MAIN(tst_CircuitBreaker)
#include "tst_CircuitBreaker.moc"
