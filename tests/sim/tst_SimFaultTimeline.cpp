#include "sim/FaultTimeline.h"
#include "sim/ScenarioClock.h"

#include "FakeClock.h"
#include "FakeRandom.h"

#include <QtTest>

#include <map>

using namespace sb::sim;
using namespace std::chrono_literals;

class tst_SimFaultTimeline : public QObject {
    Q_OBJECT

private slots:
    void scenarioTimeRunsTimeScaleTimesFaster()
    {
        sb::test::FakeClock clock;
        ScenarioClock scenario(clock, 10.0);
        QCOMPARE(scenario.now(), 0.0);
        clock.advance(3s);
        QCOMPARE(scenario.now(), 30.0);
        QCOMPARE(scenario.toRealMs(3800), 380.0);
        scenario.restart();
        QCOMPARE(scenario.now(), 0.0);
    }

    void blackoutRefusesEverythingInsideItsWindowOnly()
    {
        FaultSpec blackout;
        blackout.type = FaultSpec::Type::Blackout;
        blackout.from = 120;
        blackout.to = 240;
        blackout.mix = {{SimError::Http500, 1}, {SimError::Http503, 1}, {SimError::Http429, 1}};
        const FaultTimeline timeline({blackout});
        sb::test::FakeRandom random(1);
        std::map<SimError, int> seen;
        for (int i = 0; i < 300; ++i) {
            const double t = 120.0 + i * 0.4;
            const FaultDecision d = timeline.decide(t, random);
            QVERIFY(d.error != SimError::None);
            ++seen[d.error];
        }
        QCOMPARE(seen.size(), std::size_t(3)); // the whole mix shows up
        for (const auto &[error, count] : seen)
            QVERIFY2(count > 60, toString(error)); // roughly a third each
        QCOMPARE(timeline.decide(119.999, random).error, SimError::None);
        QCOMPARE(timeline.decide(240.0, random).error, SimError::None);
        QVERIFY(!timeline.isDown(119.9));
        QVERIFY(timeline.isDown(120.0));
        QVERIFY(!timeline.isDown(240.0));
        QVERIFY(!timeline.refusesConnections(150)); // HTTP errors need a listener
        QCOMPARE(timeline.nextChange(0), 120.0);
        QCOMPARE(timeline.nextChange(130), 240.0);
        QVERIFY(std::isinf(timeline.nextChange(240)));
    }

    void connectRefusedBlackoutClosesTheListener()
    {
        FaultSpec f;
        f.type = FaultSpec::Type::Blackout;
        f.from = 10;
        f.to = 20;
        f.mix = {{SimError::ConnectRefused, 1}};
        const FaultTimeline timeline({f});
        QVERIFY(!timeline.refusesConnections(9));
        QVERIFY(timeline.refusesConnections(10));
        QVERIFY(!timeline.refusesConnections(20));
    }

    void flappingAlternatesDownAndUp()
    {
        FaultSpec f;
        f.type = FaultSpec::Type::Flapping;
        f.from = 30;
        f.to = 90;
        f.downSeconds = 10;
        f.upSeconds = 5;
        f.mix = {{SimError::Http503, 1}};
        const FaultTimeline timeline({f});
        sb::test::FakeRandom random(2);
        QVERIFY(!timeline.isDown(29.9));
        QVERIFY(timeline.isDown(30));
        QVERIFY(timeline.isDown(39.9));
        QVERIFY(!timeline.isDown(40));
        QVERIFY(!timeline.isDown(44.9));
        QVERIFY(timeline.isDown(45));
        QCOMPARE(timeline.decide(46, random).error, SimError::Http503);
        QCOMPARE(timeline.decide(56, random).error, SimError::None);
        QVERIFY(!timeline.isDown(95)); // over
        QCOMPARE(timeline.nextChange(0), 30.0);
        QCOMPARE(timeline.nextChange(31), 40.0);
        QCOMPARE(timeline.nextChange(41), 45.0);
        QCOMPARE(timeline.nextChange(88), 90.0); // the window's end cuts the last phase
    }

    void errorProbabilityIsHonoured()
    {
        FaultSpec f;
        f.type = FaultSpec::Type::Errors;
        f.probability = 0.2;
        f.mix = {{SimError::BodyRateLimit, 1}};
        const FaultTimeline timeline({f});
        sb::test::FakeRandom random(3);
        int errors = 0;
        for (int i = 0; i < 5000; ++i)
            errors += timeline.decide(i * 0.01, random).error == SimError::BodyRateLimit;
        QVERIFY2(errors > 900 && errors < 1100, qPrintable(QString::number(errors)));
        QVERIFY(!timeline.isDown(5)); // random errors are not an outage: heartbeats pass
    }

    void spikesAndSlowTokensShapeTheAnswerWithoutFailingIt()
    {
        FaultSpec spike;
        spike.type = FaultSpec::Type::LatencySpike;
        spike.from = 10;
        spike.to = 20;
        spike.probability = 1.0;
        spike.extraMs = Distribution::constant(1500);
        FaultSpec slow;
        slow.type = FaultSpec::Type::SlowTokens;
        slow.from = 15;
        slow.to = 30;
        slow.factor = 4;
        const FaultTimeline timeline({spike, slow});
        sb::test::FakeRandom random(4);
        FaultDecision d = timeline.decide(12, random);
        QCOMPARE(d.error, SimError::None);
        QCOMPARE(d.extraTtftMs, 1500.0);
        QCOMPARE(d.tokenRateFactor, 1.0);
        d = timeline.decide(16, random);
        QCOMPARE(d.extraTtftMs, 1500.0);
        QCOMPARE(d.tokenRateFactor, 0.25);
        d = timeline.decide(25, random);
        QCOMPARE(d.extraTtftMs, 0.0);
        QCOMPARE(d.tokenRateFactor, 0.25);
    }

    void retryAfterTravelsWithThe429()
    {
        FaultSpec f;
        f.type = FaultSpec::Type::Errors;
        f.probability = 1.0;
        f.mix = {{SimError::Http429RetryAfter, 1}};
        f.retryAfterSeconds = 9;
        sb::test::FakeRandom random(5);
        const FaultDecision d = FaultTimeline({f}).decide(1, random);
        QCOMPARE(d.error, SimError::Http429RetryAfter);
        QCOMPARE(d.retryAfterSeconds, 9);
    }

    void perKeyLimitsForceRotation()
    {
        KeyLimiter limiter({{"k1", 3}, {"k2", 0}});
        QCOMPARE(limiter.admit("k1", 0.0), KeyLimiter::Verdict::Admitted);
        QCOMPARE(limiter.admit("k1", 1.0), KeyLimiter::Verdict::Admitted);
        QCOMPARE(limiter.admit("k1", 2.0), KeyLimiter::Verdict::Admitted);
        double retryAfter = 0;
        QCOMPARE(limiter.admit("k1", 3.0, &retryAfter), KeyLimiter::Verdict::RateLimited);
        QCOMPARE(retryAfter, 57.0); // the first request leaves the window at 60 s
        QCOMPARE(limiter.admit("k2", 3.0), KeyLimiter::Verdict::Admitted); // unlimited key
        QCOMPARE(limiter.admit("stolen", 3.0), KeyLimiter::Verdict::UnknownKey);
        QCOMPARE(limiter.admit("k1", 59.9), KeyLimiter::Verdict::RateLimited);
        QCOMPARE(limiter.admit("k1", 60.0), KeyLimiter::Verdict::Admitted); // a sliding minute
        const KeyLimiter::Stats stats = limiter.stats();
        QCOMPARE(stats.admitted, quint64(5));
        QCOMPARE(stats.rateLimited, quint64(2));
        QCOMPARE(stats.unknownKey, quint64(1));
        QCOMPARE(limiter.admittedPerKey(), (std::vector<quint64>{4, 1}));
    }

    void noKeysMeansAnyKey()
    {
        KeyLimiter limiter({});
        QCOMPARE(limiter.admit("", 0), KeyLimiter::Verdict::Admitted);
        QCOMPARE(limiter.admit("whatever", 0), KeyLimiter::Verdict::Admitted);
    }
};

QTEST_APPLESS_MAIN(tst_SimFaultTimeline)
#include "tst_SimFaultTimeline.moc"
