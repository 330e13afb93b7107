#include "FakeClock.h"
#include "health/ChannelHealth.h"
#include "health/HealthScorer.h"
#include "health/SlidingWindow.h"

#include <QtTest>

using namespace std::chrono_literals;
using namespace sb;
using sb::test::FakeClock;

namespace {
struct Rig {
    FakeClock clock;
    SlidingWindow window{300s};
    HealthScorer scorer{HealthConfig{}};
    HealthScore evaluate()
    {
        const auto now = clock.now();
        return scorer.evaluate(window.snapshot(now, 300s), window.counts(now, 30s), window.counts(now, 5s), 1s);
    }
    // `perSecond` calls a second for `seconds`, each failing when `fail`.
    HealthScore run(int seconds, int perSecond, bool fail, std::chrono::milliseconds latency = 200ms)
    {
        HealthScore last;
        for (int s = 0; s < seconds; ++s) {
            for (int i = 0; i < perSecond; ++i)
                window.record(clock.now(), fail ? OutcomeKind::ProviderDown : OutcomeKind::Success,
                              fail ? std::nullopt : std::optional<Clock::Duration>(latency));
            clock.advance(1s);
            last = evaluate();
        }
        return last;
    }
};
} // namespace

class tst_HealthScorer : public QObject {
    Q_OBJECT
private slots:
    void healthyChannelScoresHundred()
    {
        Rig r;
        QCOMPARE(r.evaluate().score, 100.0); // no evidence: healthy
        const auto h = r.run(120, 4, false);
        QCOMPARE(h.score, 100.0);
        QVERIFY(h.baselineP95Ms > 0);
    }

    void formulaWeightsErrorsSeventyPercent()
    {
        Rig r;
        // 5 min with 10 % failures spread evenly: E = 0.1 → base = 100 × (0.7 × 0.9 + 0.3) = 93; the fast
        // windows see the same 10 % happening now, capping at 90.
        for (int s = 0; s < 300; ++s) {
            for (int i = 0; i < 10; ++i)
                r.window.record(r.clock.now(), i == 0 ? OutcomeKind::ProviderDown : OutcomeKind::Success, 200ms);
            r.clock.advance(1s);
        }
        r.clock.advance(-1ms);
        const auto h = r.evaluate();
        QVERIFY2(std::abs(h.slowErrorRate - 0.1) < 0.01, qPrintable(QString::number(h.slowErrorRate)));
        QVERIFY2(std::abs(h.score - 90.0) < 1.0, qPrintable(QString::number(h.score)));
    }

    void fiveMinutesOfErrorsWeighSeventyPercentNotAll()
    {
        Rig r;
        // 4 minutes where every other call fails, then a clean minute: the fast windows are clean (F = 0),
        // latency is normal (L = 0) and E ≈ 0.4. The stated weights give 100 × (0.7 × 0.6 + 0.3) = 72; a
        // formula that scales the latency term by (1 − E) too, as this one once did, gives 60.
        for (int s = 0; s < 240; ++s) {
            r.window.record(r.clock.now(), OutcomeKind::ProviderDown);
            r.window.record(r.clock.now(), OutcomeKind::Success, 200ms);
            r.clock.advance(1s);
        }
        const auto h = r.run(59, 2, false);
        QCOMPARE(h.fastErrorRate, 0.0);
        QCOMPARE(h.latencyPenalty, 0.0);
        QVERIFY2(std::abs(h.slowErrorRate - 0.4) < 0.01, qPrintable(QString::number(h.slowErrorRate)));
        const double stated = 100.0 * (0.7 * (1.0 - h.slowErrorRate) + 0.3);
        QVERIFY2(std::abs(h.score - stated) < 0.01, qPrintable(QStringLiteral("%1 vs %2").arg(h.score).arg(stated)));
        QVERIFY2(h.score > 71 && h.score < 73, qPrintable(QString::number(h.score)));
    }

    void aChannelThatAnswersNothingStaysUnderThirtyOnSparseCalls()
    {
        Rig r;
        // One call every 20 s, every one failing: the 30 s window often holds a single failure (F = 0.5,
        // a cap of 50), so only the 5-minute term can keep the score under 30 — and with "normal latency"
        // credited to a channel that never answered it would sit at exactly 30 and never be ejected.
        int firstUnder30 = -1;
        for (int s = 0; s < 600; ++s) {
            if (s % 20 == 0)
                r.window.record(r.clock.now(), OutcomeKind::ProviderDown);
            r.clock.advance(1s);
            const auto h = r.evaluate();
            if (firstUnder30 < 0 && h.score < 30)
                firstUnder30 = s;
            if (s >= 200) { // ten failures in the 5-minute window: E = 1, and the whole latency penalty
                QVERIFY2(h.score < 30, qPrintable(QStringLiteral("t=%1 score=%2").arg(s).arg(h.score)));
                QCOMPARE(h.latencyPenalty, 1.0);
            }
        }
        QVERIFY(firstUnder30 >= 0 && firstUnder30 <= 200);
        // One stray error on an idle channel still costs no more than its share: 7 + 3 points once the fast
        // windows forget it.
        Rig idle;
        idle.window.record(idle.clock.now(), OutcomeKind::ProviderDown);
        idle.clock.advance(31s);
        QVERIFY2(std::abs(idle.evaluate().score - 90.0) < 0.01, qPrintable(QString::number(idle.evaluate().score)));
    }

    void fullOutageDropsUnderThirtyWithinSeconds()
    {
        Rig r;
        r.run(300, 4, false); // a busy, healthy channel
        int secondsToUnder30 = -1;
        for (int s = 1; s <= 30; ++s) {
            if (r.run(1, 4, true).score < 30) {
                secondsToUnder30 = s;
                break;
            }
        }
        qInfo("full outage at 4 req/s: score under 30 after %d s", secondsToUnder30);
        QVERIFY(secondsToUnder30 > 0);
        QVERIFY(secondsToUnder30 <= 10);
        // …and recovery brings it back: once the failures leave the windows, the score returns.
        r.run(120, 4, true);
        const auto during = r.evaluate();
        QCOMPARE(during.score, 0.0);
        const auto soon = r.run(60, 4, false);
        QVERIFY2(soon.score >= 50, qPrintable(QString::number(soon.score)));
        const auto later = r.run(300, 4, false);
        QCOMPARE(later.score, 100.0);
    }

    void oneErrorOnIdleChannelDoesNotSwingWildly()
    {
        Rig r;
        r.window.record(r.clock.now(), OutcomeKind::ProviderDown);
        const auto h = r.evaluate();
        QVERIFY2(h.score >= 50, qPrintable(QString::number(h.score))); // no evidence at all: at worst 50
        // With three heartbeats of evidence in the 30 s window it moves even less.
        Rig p;
        for (int i = 0; i < 3; ++i) {
            p.window.record(p.clock.now(), OutcomeKind::Success, std::nullopt, std::nullopt, true);
            p.clock.advance(10s);
        }
        p.clock.advance(-9s);
        p.window.record(p.clock.now(), OutcomeKind::ProviderDown);
        QVERIFY(p.evaluate().score >= 66);
        // After the fast windows forget it, the 5 min floor of 10 calls keeps it at 90.
        p.clock.advance(31s);
        QVERIFY2(p.evaluate().score >= 89.9, qPrintable(QString::number(p.evaluate().score)));
    }

    void latencyDeviationCostsUpToThirtyPoints()
    {
        Rig r;
        r.run(300, 4, false, 200ms);
        const double baseline = r.evaluate().baselineP95Ms;
        QVERIFY(baseline > 150 && baseline < 250);
        // Latency triples: P95 at 3× baseline costs the whole 30 % latency weight, and the slow-following
        // baseline keeps it visible for minutes.
        const auto h = r.run(120, 4, false, 600ms);
        QVERIFY2(h.latencyPenalty > 0.7, qPrintable(QString::number(h.latencyPenalty)));
        QVERIFY2(h.score < 80 && h.score >= 70, qPrintable(QString::number(h.score)));
        QVERIFY(h.baselineP95Ms < 400); // not yet the new normal
    }

    void channelHealthScoresAndRecovers()
    {
        FakeClock clock;
        EngineConfig config;
        ChannelConfig channel{7, QStringLiteral("c7"), 1, QStringLiteral("m"), 1.0, true, {}, {}, {}};
        ChannelHealth h(clock, config, channel, nullptr);
        for (int i = 0; i < 20; ++i) {
            h.record(Outcome::success(), 300ms, 100ms, false);
            clock.advance(500ms);
        }
        QCOMPARE(h.evaluate().score, 100.0);
        QVERIFY(h.latencyEwmaMs() > 290 && h.latencyEwmaMs() < 310);
        for (int i = 0; i < 40; ++i)
            h.record(Outcome::local(OutcomeKind::ConnectFailed, {}), 1ms, std::nullopt, false);
        QVERIFY(h.evaluate().score < 30);
        const auto snap = h.snapshot();
        QCOMPARE(snap.calls30s, 60u);
        QVERIFY(std::abs(snap.errorRate30s - 40.0 / 60) < 1e-9);
        QVERIFY(snap.ttftP95Ms > 80 && snap.ttftP95Ms < 120);
    }
};

QTEST_APPLESS_MAIN(tst_HealthScorer)
#include "tst_HealthScorer.moc"
