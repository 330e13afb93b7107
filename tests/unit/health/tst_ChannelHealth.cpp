// ChannelHealth's slow-wait threshold and evidence on FakeClock: the threshold is learnt from the
// channel's own successful calls (its factor × their recent p99 time to first token, at least the
// floor), survives a spell with no successes, and each waiting request's evidence is one failure
// for the windows and the breaker, enough to open it with no call having finished.

#include "FakeClock.h"
#include "health/ChannelHealth.h"

#include <QtTest>

using namespace std::chrono_literals;
using namespace sb;
using sb::test::FakeClock;

namespace {

EngineConfig slowWaitConfig(double factor = 3.0, std::chrono::milliseconds floor = 2s)
{
    EngineConfig c;
    c.health.slowWaitFactor = factor;
    c.health.slowWaitFloor = floor;
    c.channels = {ChannelConfig{1, QStringLiteral("ch1"), 1, QStringLiteral("m"), 1.0, true, {}, {}, {}}};
    return c;
}

struct Rig {
    explicit Rig(const EngineConfig &c = slowWaitConfig()) : config(c), health(clock, config, config.channels.front(), nullptr) {}

    void successes(int n, Clock::Duration ttft)
    {
        for (int i = 0; i < n; ++i)
            health.record(Outcome::success(200), ttft + 50ms, ttft, false);
    }
    double thresholdMs() const { return health.slowWaitThreshold() ? toMillis(*health.slowWaitThreshold()) : -1.0; }

    FakeClock clock;
    EngineConfig config;
    ChannelHealth health;
};

} // namespace

class tst_ChannelHealth : public QObject {
    Q_OBJECT

private slots:
    void theThresholdIsTheFloorForAFastChannel()
    {
        Rig rig;
        rig.successes(20, 100ms);
        rig.health.evaluate();
        QCOMPARE(rig.thresholdMs(), 2000.0);
    }

    void theThresholdIsAMultipleOfTheLearntP99ForASlowerOne()
    {
        Rig rig;
        rig.successes(95, 200ms);
        rig.successes(5, 1500ms); // the p99 among them
        rig.health.evaluate();
        // 3 × ~1.5 s; the histogram's bins are 20 % wide.
        QVERIFY2(rig.thresholdMs() > 3 * 1500 * 0.8 && rig.thresholdMs() < 3 * 1500 * 1.2, qPrintable(QString::number(rig.thresholdMs())));
        Rig floorOnly(slowWaitConfig(3.0, 10s));
        floorOnly.successes(95, 200ms);
        floorOnly.successes(5, 1500ms);
        floorOnly.health.evaluate();
        QCOMPARE(floorOnly.thresholdMs(), 10000.0);
    }

    void noThresholdBeforeMinVolumeSuccessesOrWithTheRuleOff()
    {
        Rig rig;
        rig.successes(rig.config.health.minVolume - 1, 100ms);
        rig.health.evaluate();
        QCOMPARE(rig.health.slowWaitThreshold(), std::nullopt);
        rig.successes(1, 100ms);
        rig.health.evaluate();
        QVERIFY(rig.health.slowWaitThreshold());

        Rig off(slowWaitConfig(0.0));
        off.successes(50, 100ms);
        off.health.evaluate();
        QCOMPARE(off.health.slowWaitThreshold(), std::nullopt);
    }

    void theThresholdOutlivesTheSuccessesItWasLearntFrom()
    {
        // A hung channel stops succeeding; its evidence must not stop when its successes leave the window.
        Rig rig;
        rig.successes(20, 100ms);
        rig.health.evaluate();
        rig.clock.advance(10min);
        rig.health.evaluate();
        QCOMPARE(rig.thresholdMs(), 2000.0);
    }

    void eachWaitIsOneFailureAndFiveOpenTheBreaker()
    {
        Rig rig; // the relay breaker: five failures in a row
        rig.successes(20, 100ms);
        for (int i = 0; i < 4; ++i)
            rig.health.recordSlowWait(false);
        QCOMPARE(rig.health.breakerState(), BreakerState::Closed);
        const WindowSnapshot window = rig.health.window(5s);
        QCOMPARE(window.failures, 4u);
        QCOMPARE(window.count(OutcomeKind::Timeout), 4u);
        QCOMPARE(window.calls, 24u);
        rig.health.recordSlowWait(false);
        QCOMPARE(rig.health.breakerState(), BreakerState::Open);
        QCOMPARE(rig.health.stats().slowWaits, 5u);
        // The fast signal sees them at the next evaluation, too.
        QVERIFY(rig.health.evaluate().score < 100.0);
    }
};

QTEST_GUILESS_MAIN(tst_ChannelHealth)
#include "tst_ChannelHealth.moc"
