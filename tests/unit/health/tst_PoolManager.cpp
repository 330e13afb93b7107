#include "FakeClock.h"
#include "FakeRandom.h"
#include "health/HeartbeatProber.h"

#include <set>
#include "health/PoolManager.h"

#include <QtTest>

#include <deque>

using namespace std::chrono_literals;
using namespace sb;
using sb::test::FakeClock;
using sb::test::FakeRandom;

namespace {
EngineConfig config(std::vector<int> ids = {1, 2})
{
    EngineConfig c;
    for (int id : ids)
        c.channels.push_back(ChannelConfig{id, QStringLiteral("ch%1").arg(id), 1, QStringLiteral("m"), 1.0, true, {}, {}, {}});
    return c;
}

// Probes wait here until the test answers them, as a real network would.
class FakeTransport : public ProbeTransport {
public:
    struct Pending {
        int channelId;
        Done done;
    };
    void startProbe(int channelId, Clock::Duration, Done done) override { pending.push_back({channelId, std::move(done)}); }
    bool probeIsBilled(int channelId) const override { return billed.count(channelId) != 0; }
    std::set<int> billed; // channels whose probe is a paid call (ERNIE with a raw access token)
    // Answers every pending probe; returns how many.
    int answerAll(bool ok)
    {
        int n = 0;
        while (!pending.empty()) {
            auto p = std::move(pending.front());
            pending.pop_front();
            p.done(ok, 20ms, {});
            ++n;
        }
        return n;
    }
    int pendingFor(int id) const
    {
        return static_cast<int>(std::count_if(pending.begin(), pending.end(), [id](const Pending &p) { return p.channelId == id; }));
    }
    std::deque<Pending> pending;
};

struct Rig {
    FakeClock clock;
    FakeRandom random;
    PoolManager pool{clock};
    FakeTransport transport;
    HeartbeatProber prober{clock, pool, transport, ProbeConfig{}, true};
    std::vector<HealthEvent> events;
    Rig()
    {
        pool.reconfigure(config());
        pool.setEventSink([this](const HealthEvent &e) { events.push_back(e); });
    }
    // One second of the control loop: evaluation and heartbeats, probes answered at once.
    void second(bool probesOk, int failingCallsOn1 = 0, int okCallsOn2 = 4)
    {
        auto c1 = pool.channel(1), c2 = pool.channel(2);
        for (int i = 0; i < failingCallsOn1; ++i)
            if (c1->admit(random) != CircuitBreaker::Admission::Rejected)
                c1->record(Outcome::local(OutcomeKind::Timeout, {}), 30s, std::nullopt, false);
        for (int i = 0; i < okCallsOn2; ++i)
            c2->record(Outcome::success(), 400ms, 150ms, false);
        clock.advance(1s);
        pool.tick();
        prober.tick();
        transport.answerAll(probesOk);
    }
    std::vector<HealthEvent> poolEvents(int channel) const
    {
        std::vector<HealthEvent> out;
        for (const auto &e : events)
            if (e.type == HealthEvent::Type::Pool && e.channelId == channel)
                out.push_back(e);
        return out;
    }
};
} // namespace

class tst_PoolManager : public QObject {
    Q_OBJECT
private slots:
    // Regression: after a 2-minute outage the primary's breaker closed again, but the outage's
    // failures kept its 5-minute score under 50 (degraded) and no traffic reached it to prove
    // otherwise, so the primary never carried traffic again in the launch-day drill.
    void aProvenRecoveryStartsAFreshScore()
    {
        Rig rig;
        for (int s = 0; s < 120; ++s)
            rig.second(false, 4);
        auto c1 = rig.pool.channel(1);
        QVERIFY(c1->snapshot().score < 30);
        QCOMPARE(c1->snapshot().breaker, BreakerState::Open);

        // The provider is back: probes succeed, and after the open duration trial calls close it.
        int secondsToClose = 0;
        while (c1->snapshot().breaker != BreakerState::Closed && secondsToClose < 120) {
            const auto admission = c1->admit(rig.random);
            if (admission != CircuitBreaker::Admission::Rejected)
                c1->record(Outcome::success(), 300ms, 100ms, admission == CircuitBreaker::Admission::Trial);
            rig.second(true, 0);
            ++secondsToClose;
        }
        QCOMPARE(c1->snapshot().breaker, BreakerState::Closed);
        // Within seconds of closing, the channel is back at full weight, not degraded for 5 minutes.
        for (int s = 0; s < 3; ++s) {
            c1->record(Outcome::success(), 300ms, 100ms, false);
            rig.second(true, 0);
        }
        QVERIFY2(c1->snapshot().score >= 50, qPrintable(QString::number(c1->snapshot().score)));
        QCOMPARE(c1->snapshot().pool, PoolState::Active);
        // The outage is still in the raw 5-minute error rate the console shows.
        QVERIFY(c1->snapshot().errorRate5m > 0.5);
    }

    void ejectedAfterThreeMinutesUnderThirtyThenReadmittedByProbes()
    {
        Rig r;
        auto c1 = r.pool.channel(1);
        for (int s = 0; s < 60; ++s) { // a minute of healthy traffic on both
            c1->record(Outcome::success(), 400ms, 150ms, false);
            r.second(true);
        }
        QCOMPARE(c1->poolState(), PoolState::Active);

        // Full outage of channel 1: calls fail until its breaker opens, then only heartbeats reach it.
        // The breaker opens within 2 s and the fast signal drops the score under 30 at once; it may rise
        // again while the 30 s window still holds the minute of successes, then stays down as only failing
        // heartbeats reach the channel. Ejection comes 3 minutes into the continuous run under 30.
        int underThirtyAt = -1, ejectedAt = -1, runStart = -1;
        for (int s = 0; s < 400 && ejectedAt < 0; ++s) {
            r.second(false, 4);
            if (qEnvironmentVariableIsSet("SB_TRACE"))
                qInfo("t=%d score=%.1f breaker=%s pool=%s", s, c1->score(), toString(c1->breakerState()), toString(c1->poolState()));
            if (underThirtyAt < 0 && c1->score() < 30)
                underThirtyAt = s;
            if (c1->poolState() != PoolState::Ejected)
                runStart = c1->score() < 30 ? (runStart < 0 ? s : runStart) : -1;
            if (c1->poolState() == PoolState::Ejected)
                ejectedAt = s;
        }
        qInfo("score < 30 after %d s, continuously from %d s, ejected after %d s", underThirtyAt, runStart, ejectedAt);
        QVERIFY(underThirtyAt >= 0 && underThirtyAt < 30);
        QVERIFY(runStart >= 0 && runStart < 60);
        QVERIFY(ejectedAt - runStart >= 179 && ejectedAt - runStart <= 181);
        QCOMPARE(c1->breakerState(), BreakerState::Open);
        QVERIFY(!c1->routable());
        QCOMPARE(r.pool.channel(2)->poolState(), PoolState::Active); // the other channel untouched

        auto ev = r.poolEvents(1);
        QCOMPARE(ev.size(), 4u); // degraded, active again (the transient), degraded, ejected
        QCOMPARE(ev[0].to, QStringLiteral("degraded"));
        QCOMPARE(ev[1].to, QStringLiteral("active"));
        QCOMPARE(ev[2].to, QStringLiteral("degraded"));
        QCOMPARE(ev[3].from, QStringLiteral("degraded"));
        QCOMPARE(ev[3].to, QStringLiteral("ejected"));
        QVERIFY2(ev[3].reason.contains(QLatin1String("below 30 for 180 s")), qPrintable(ev[3].reason));
        QCOMPARE(r.pool.stats().ejections, 1u);
        QCOMPARE(r.pool.stats().ejectedNow, 1);

        // Heartbeats keep failing: stays out. Every 10 s one probe.
        const auto startedBefore = r.prober.stats().started;
        for (int s = 0; s < 60; ++s)
            r.second(false);
        QCOMPARE(c1->poolState(), PoolState::Ejected);
        const auto probesToC1 = c1->stats().probes;
        QVERIFY(probesToC1 >= 20); // ~1 per 10 s over ~4 min of outage
        QVERIFY(r.prober.stats().started - startedBefore >= 6);

        // The provider recovers: two consecutive successful heartbeats re-admit it.
        int readmittedAt = -1;
        for (int s = 0; s < 60 && readmittedAt < 0; ++s) {
            r.second(true);
            if (c1->poolState() != PoolState::Ejected)
                readmittedAt = s;
        }
        QVERIFY(readmittedAt >= 0 && readmittedAt <= 20);
        ev = r.poolEvents(1);
        QCOMPARE(ev.size(), 5u);
        QCOMPARE(ev[4].from, QStringLiteral("ejected"));
        QCOMPARE(ev[4].to, QStringLiteral("active"));
        QVERIFY(ev[4].reason.contains(QLatin1String("2 consecutive heartbeat successes")));
        QCOMPARE(r.pool.stats().readmissions, 1u);
    }

    // The ejection rule with the 70/30 weights, for a channel that fails every request it gets: here
    // only heartbeats every 20 s, too sparse for the 30 s window's floor to hold it under 30 on its
    // own. It is ejected 3 minutes after its score went under 30 and stays out.
    void aChannelFailingEveryRequestIsEjectedOnSparseHeartbeats()
    {
        FakeClock clock;
        PoolManager pool{clock};
        FakeTransport transport;
        HeartbeatProber prober{clock, pool, transport, ProbeConfig{20s, 5s, 2}, true};
        pool.reconfigure(config({1}));
        auto c1 = pool.channel(1);
        int underThirtyFrom = -1, ejectedAt = -1;
        for (int s = 0; s < 900 && ejectedAt < 0; ++s) {
            clock.advance(1s);
            pool.tick();
            prober.tick();
            transport.answerAll(false);
            if (c1->poolState() == PoolState::Ejected)
                ejectedAt = s;
            else if (c1->score() >= 30)
                underThirtyFrom = -1;
            else if (underThirtyFrom < 0)
                underThirtyFrom = s;
        }
        qInfo("under 30 from %d s, ejected at %d s, %llu probes", underThirtyFrom, ejectedAt,
              static_cast<unsigned long long>(c1->stats().probes));
        QVERIFY(ejectedAt > 0);
        QVERIFY(ejectedAt - underThirtyFrom >= 179 && ejectedAt - underThirtyFrom <= 181);
        QVERIFY(!c1->routable());
    }

    void probeTimeoutCountsAsFailureAndLateReportIsIgnored()
    {
        FakeClock clock;
        PoolManager pool(clock);
        pool.reconfigure(config({1}));
        FakeTransport transport;
        HeartbeatProber prober(clock, pool, transport, ProbeConfig{}, true);
        prober.tick(); // idle channel: probed
        QCOMPARE(transport.pendingFor(1), 1);
        prober.tick(); // one probe at a time
        QCOMPARE(transport.pendingFor(1), 1);
        clock.advance(5s);
        prober.tick(); // timed out; not due again until 10 s after the start
        QCOMPARE(prober.stats().timedOut, 1u);
        QCOMPARE(prober.stats().failed, 1u);
        QCOMPARE(pool.channel(1)->stats().probeFailures, 1u);
        transport.answerAll(true); // too late
        QCOMPARE(prober.stats().succeeded, 0u);
        QCOMPARE(pool.channel(1)->stats().probes, 1u);
        clock.advance(5s);
        prober.tick();
        QCOMPARE(transport.pendingFor(1), 1);
    }

    void busyHealthyChannelIsNotProbed()
    {
        FakeClock clock;
        PoolManager pool(clock);
        pool.reconfigure(config({1}));
        FakeTransport transport;
        HeartbeatProber prober(clock, pool, transport, ProbeConfig{}, true);
        for (int s = 0; s < 30; ++s) {
            pool.channel(1)->record(Outcome::success(), 100ms, std::nullopt, false);
            clock.advance(1s);
            prober.tick();
        }
        QCOMPARE(prober.stats().started, 0u);
        HeartbeatProber onlyBroken(clock, pool, transport, ProbeConfig{}, false);
        clock.advance(60s);
        onlyBroken.tick();
        QCOMPARE(onlyBroken.stats().started, 0u); // idle but healthy, and idle probing is off
    }

    // ERNIE with a raw token has no free probe: its heartbeat is a 2-token chat. An idle channel of
    // it is probed a sixth as often as a free one; an ejected or open one as often as any.
    void billedProbeOfAnIdleChannelIsSentLessOften()
    {
        FakeClock clock;
        PoolManager pool(clock);
        pool.reconfigure(config({1, 2}));
        FakeTransport transport;
        transport.billed = {2};
        HeartbeatProber prober(clock, pool, transport, ProbeConfig{}, true);
        int free = 0, billed = 0;
        for (int s = 0; s < 120; ++s) {
            clock.advance(1s);
            prober.tick();
            free += transport.pendingFor(1);
            billed += transport.pendingFor(2);
            transport.answerAll(true);
        }
        QCOMPARE(free, 12);  // every 10 s
        QCOMPARE(billed, 2); // every 60 s

        for (int s = 0; s < 200; ++s) // failing calls: the channel's circuit opens
            pool.channel(2)->record(Outcome::local(OutcomeKind::ProviderDown, {}), 100ms, std::nullopt, false);
        pool.tick();
        QVERIFY(pool.channel(2)->wantsProbe(false));
        billed = 0;
        for (int s = 0; s < 60; ++s) {
            clock.advance(1s);
            prober.tick();
            billed += transport.pendingFor(2);
            transport.answerAll(false);
        }
        QVERIFY2(billed >= 5, "an open channel's billed probe must keep the normal pace");
    }

    void drainAndReadmitByHand()
    {
        Rig r;
        QVERIFY(r.pool.drain(2, QStringLiteral("maintenance")));
        QVERIFY(!r.pool.drain(2));
        auto c2 = r.pool.channel(2);
        QCOMPARE(c2->poolState(), PoolState::Drained);
        QVERIFY(!c2->routable());
        QCOMPARE(c2->admit(r.random), CircuitBreaker::Admission::Rejected);
        QVERIFY(!c2->wantsProbe(true)); // a person took it out; heartbeats do not bring it back
        for (int s = 0; s < 30; ++s)
            r.second(true, 0, 0);
        QCOMPARE(c2->poolState(), PoolState::Drained);
        QCOMPARE(c2->snapshot().poolReason, QStringLiteral("maintenance"));
        QVERIFY(r.pool.readmit(2));
        QVERIFY(!r.pool.readmit(2));
        QCOMPARE(c2->poolState(), PoolState::Active);
        QCOMPARE(r.pool.stats().drains, 1u);
        QCOMPARE(r.pool.stats().manualReadmissions, 1u);
        QVERIFY(!r.pool.drain(99));
    }

    void liveStateSurvivesReconfigure()
    {
        Rig r;
        r.pool.drain(1);
        auto before = r.pool.channel(1);
        auto c = config({1, 3});
        c.channels[0].name = QStringLiteral("renamed");
        r.pool.reconfigure(c);
        QCOMPARE(r.pool.channel(1).get(), before.get());
        QCOMPARE(r.pool.channel(1)->poolState(), PoolState::Drained);
        QCOMPARE(r.pool.channel(1)->name(), QStringLiteral("renamed"));
        QVERIFY(r.pool.channel(2) == nullptr);
        QCOMPARE(r.pool.channel(3)->poolState(), PoolState::Active);
        QCOMPARE(r.pool.channels().size(), 2u);
    }

    void breakerEventsReachTheSink()
    {
        Rig r;
        auto c1 = r.pool.channel(1);
        for (int i = 0; i < 5; ++i)
            c1->record(Outcome::local(OutcomeKind::ConnectFailed, {}), 1ms, std::nullopt, false);
        QCOMPARE(c1->breakerState(), BreakerState::Open);
        r.clock.advance(60s);
        r.pool.tick(); // the control tick moves OPEN → HALF_OPEN even with no traffic
        QCOMPARE(c1->breakerState(), BreakerState::HalfOpen);
        std::vector<HealthEvent> breaker;
        for (const auto &e : r.events)
            if (e.type == HealthEvent::Type::Breaker)
                breaker.push_back(e);
        QCOMPARE(breaker.size(), 2u);
        QCOMPARE(breaker[0].to, QStringLiteral("open"));
        QCOMPARE(breaker[0].channelName, QStringLiteral("ch1"));
        QCOMPARE(breaker[1].from, QStringLiteral("open"));
        QCOMPARE(breaker[1].to, QStringLiteral("half_open"));
        QVERIFY(breaker[1].wallMillis > 0);
    }
};

QTEST_APPLESS_MAIN(tst_PoolManager)
#include "tst_PoolManager.moc"
