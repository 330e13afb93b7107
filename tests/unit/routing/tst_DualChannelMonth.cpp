#include "FakeClock.h"
#include "FakeRandom.h"
#include "health/HeartbeatProber.h"
#include "routing/RetryPolicy.h"
#include "routing/RetryState.h"
#include "routing/Router.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace std::chrono_literals;
using namespace sb;
using sb::test::FakeClock;
using sb::test::FakeRandom;

namespace {
// One channel's month: outages whose lengths follow a mix seen in provider status histories (60 %
// a few minutes, 30 % up to an hour, 10 % one to three hours), adding up to `downShare` of the month
// (one channel's field figure: ~3 %, ~21 h), placed at independent random times.
class OutageSchedule {
public:
    OutageSchedule(Random &random, Clock::Duration month, double downShare)
    {
        const double end = toSeconds(month);
        const double target = end * downShare;
        std::vector<double> lengths;
        double total = 0;
        while (total < target) {
            const double kind = random.uniform01();
            const double minutes = kind < 0.6 ? random.uniform(2, 10) : kind < 0.9 ? random.uniform(10, 60) : random.uniform(60, 180);
            lengths.push_back(std::min(minutes * 60.0, target - total));
            total += lengths.back();
        }
        // The up time split at random points: the gaps before, between and after the outages.
        std::vector<double> cuts;
        for (std::size_t i = 0; i < lengths.size(); ++i)
            cuts.push_back(random.uniform(0, end - target));
        std::sort(cuts.begin(), cuts.end());
        double previousCut = 0, t = 0;
        for (std::size_t i = 0; i < lengths.size(); ++i) {
            t += cuts[i] - previousCut;
            previousCut = cuts[i];
            m_outages.push_back({t, t + lengths[i]});
            t += lengths[i];
        }
        m_share = total / end;
    }
    bool downAt(double second) const
    {
        for (const auto &o : m_outages) // a month has a few dozen outages: a scan is fine
            if (second >= o.first && second < o.second)
                return true;
        return false;
    }
    double share() const { return m_share; }
    int count() const { return static_cast<int>(m_outages.size()); }

private:
    std::vector<std::pair<double, double>> m_outages;
    double m_share = 0;
};

ProviderConfig provider(int id, const QString &account, const QString &region)
{
    ProviderConfig p;
    p.id = id;
    p.name = QStringLiteral("provider-%1").arg(id);
    p.dialect = QStringLiteral("openai_compat");
    p.baseUrl = QStringLiteral("https://p%1.example/v1").arg(id);
    p.domain.account = account;
    p.domain.region = region;
    p.keys = {ApiKeyConfig{id, QStringLiteral("key"), QStringLiteral("sk-sim-%1-0123456789").arg(id), true, {}}};
    return p;
}

struct World {
    double now = 0; // seconds into the month
    const OutageSchedule *a = nullptr;
    const OutageSchedule *b = nullptr;
    bool down(int channelId) const { return (channelId == 1 ? a : b)->downAt(now); }
};

class SimTransport : public ProbeTransport {
public:
    explicit SimTransport(const World &world) : m_world(world) {}
    void startProbe(int channelId, Clock::Duration, Done done) override
    {
        done(!m_world.down(channelId), 150ms, {});
    }

private:
    const World &m_world;
};
} // namespace

class tst_DualChannelMonth : public QObject {
    Q_OBJECT
private slots:
    // The field figures (ARCHITECTURE.md, "Defaults and why"): one channel ~97 % a month; two
    // independent channels with health-scored routing and immediate failover 99.81 %. Runs the real Router, breakers, scorer, pool and prober on a FakeClock
    // at one request every 20 s (129,600 requests) with the control tick (and heartbeats) every 20 s.
    void routedAvailabilityOverAMonth()
    {
        const auto month = std::chrono::duration_cast<Clock::Duration>(std::chrono::hours(24 * 30));
        FakeRandom outageRandom(2024);
        const OutageSchedule scheduleA(outageRandom, month, 0.03);
        const OutageSchedule scheduleB(outageRandom, month, 0.03);

        EngineConfig cfg;
        cfg.providers = {provider(1, QStringLiteral("acct-a"), QStringLiteral("us-east")),
                         provider(2, QStringLiteral("acct-b"), QStringLiteral("eu-west"))};
        cfg.channels = {ChannelConfig{1, QStringLiteral("gpt-4o/A"), 1, QStringLiteral("gpt-4o"), 1.0, true, {}, {}, {}},
                        ChannelConfig{2, QStringLiteral("gpt-4o/B"), 2, QStringLiteral("gpt-4o"), 1.0, true, {}, {}, {}}};
        RouteConfig route;
        route.id = 1;
        route.logicalModel = QStringLiteral("gpt-4o");
        route.channelIds = {1, 2};
        cfg.routes = {route};

        FakeClock clock;
        FakeRandom random(7);
        Router router(clock, random, std::make_shared<const EngineConfig>(cfg));
        RetryPolicy policy(cfg.retry);
        World world{0, &scheduleA, &scheduleB};
        SimTransport transport(world);
        HeartbeatProber prober(clock, router.pool(), transport, cfg.probe);
        router.setProber(&prober);

        const QString model = QStringLiteral("gpt-4o");
        const double step = 20.0; // one request and one control tick every 20 s: 129,600 requests
        std::uint64_t requests = 0, served = 0, bothDownRequests = 0, firstAttemptFailures = 0, attempts = 0;
        Outcome down;
        down.kind = OutcomeKind::ProviderDown;
        down.httpStatus = 503;
        for (double t = 0; t < toSeconds(month); t += step) {
            clock.advance(std::chrono::duration<double>(step));
            world.now = t;
            router.tick();

            ++requests;
            if (world.down(1) && world.down(2))
                ++bothDownRequests;
            RetryState state(policy, clock, clock.now());
            std::optional<int> last;
            bool ok = false;
            while (true) {
                auto result = router.choose(model, state, last);
                if (!result)
                    break;
                const auto &choice = *result.choice;
                state.attemptStarted(choice.channelId);
                ++attempts;
                const bool isDown = world.down(choice.channelId);
                const Outcome outcome = isDown ? down : Outcome::success();
                const auto latency = isDown ? std::chrono::milliseconds(800)
                                            : std::chrono::milliseconds(600 + static_cast<int>(random.below(400)));
                router.record(choice, outcome, latency, latency / 4);
                if (!isDown) {
                    ok = true;
                    break;
                }
                if (state.attempts() == 1)
                    ++firstAttemptFailures;
                if (!state.shouldRetry(outcome))
                    break;
                last = choice.channelId;
            }
            if (ok)
                ++served;
        }
        const double availability = double(served) / double(requests);
        const double ceiling = 1.0 - double(bothDownRequests) / double(requests);
        const auto stats = router.stats();
        const auto pool = router.pool().stats();
        qInfo("channel A down %.2f %% (%d outages), channel B down %.2f %% (%d outages)", scheduleA.share() * 100,
              scheduleA.count(), scheduleB.share() * 100, scheduleB.count());
        qInfo("single channel availability ~%.2f %%; both down %.3f %% of requests", (1 - scheduleA.share()) * 100,
              (1 - ceiling) * 100);
        qInfo("routed availability %.3f %% (%llu of %llu requests; ceiling with both down %.3f %%)", availability * 100,
              static_cast<unsigned long long>(served), static_cast<unsigned long long>(requests), ceiling * 100);
        qInfo("first attempts failed: %llu (%.3f %%), attempts %llu, failovers %llu, breaker trips %llu, ejections %llu, "
              "readmissions %llu, panic choices %llu, probes %llu",
              static_cast<unsigned long long>(firstAttemptFailures), 100.0 * firstAttemptFailures / requests,
              static_cast<unsigned long long>(attempts), static_cast<unsigned long long>(stats.failovers),
              static_cast<unsigned long long>(pool.trips), static_cast<unsigned long long>(pool.ejections),
              static_cast<unsigned long long>(pool.readmissions), static_cast<unsigned long long>(pool.panicChoices),
              static_cast<unsigned long long>(prober.stats().started));
        router.setProber(nullptr);

        // The schedules are what the mission describes: each channel down 3 % of the month.
        QVERIFY(std::abs(scheduleA.share() - 0.03) < 1e-9 && std::abs(scheduleB.share() - 0.03) < 1e-9);
        QVERIFY(availability >= 0.998);
        // Routing loses (almost) nothing beyond the minutes when both channels are down.
        QVERIFY(ceiling - availability < 0.0005);
        // The healthy channel took the traffic: few first attempts hit a dead channel.
        QVERIFY(double(firstAttemptFailures) / requests < 0.005);
    }
};

QTEST_APPLESS_MAIN(tst_DualChannelMonth)
#include "tst_DualChannelMonth.moc"
