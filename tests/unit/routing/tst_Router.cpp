#include "FakeClock.h"
#include "FakeRandom.h"
#include "health/HeartbeatProber.h"
#include "routing/RetryPolicy.h"
#include "routing/RetryState.h"
#include "routing/Router.h"

#include <QtTest>

#include <atomic>
#include <map>
#include <thread>

using namespace std::chrono_literals;
using namespace sb;
using sb::test::FakeClock;
using sb::test::FakeRandom;

namespace {
ProviderConfig provider(int id, const QString &account, const QString &region = QStringLiteral("us-east"))
{
    ProviderConfig p;
    p.id = id;
    p.name = QStringLiteral("provider-%1").arg(id);
    p.dialect = QStringLiteral("openai_compat");
    p.baseUrl = QStringLiteral("https://p%1.example/v1").arg(id);
    p.domain.account = account;
    p.domain.region = region;
    p.keys = {ApiKeyConfig{id * 10, QStringLiteral("key"), QStringLiteral("sk-test-%1-abcdefghijkl").arg(id), true, {}}};
    return p;
}

ChannelConfig channel(int id, int providerId, const QString &model = QStringLiteral("gpt-4o"))
{
    return ChannelConfig{id, QStringLiteral("%1/%2").arg(model).arg(id), providerId, model, 1.0, true, {}, {}, {}};
}

// gpt-4o: channels 1 (acct-a) and 2 (acct-b) in tier 0; falls back to "small": channels 3 and 4.
EngineConfig baseConfig()
{
    EngineConfig c;
    c.providers = {provider(1, QStringLiteral("acct-a")), provider(2, QStringLiteral("acct-b")),
                   provider(3, QStringLiteral("acct-c"), QStringLiteral("eu-west"))};
    c.channels = {channel(1, 1), channel(2, 2), channel(3, 3, QStringLiteral("small")), channel(4, 1, QStringLiteral("small"))};
    RouteConfig big;
    big.id = 1;
    big.logicalModel = QStringLiteral("gpt-4o");
    big.channelIds = {1, 2};
    big.fallbackModels = {QStringLiteral("small")};
    RouteConfig small;
    small.id = 2;
    small.logicalModel = QStringLiteral("small");
    small.channelIds = {3, 4};
    c.routes = {big, small};
    return c;
}

// gpt-4o's two channels alone: no fallback model to go to.
EngineConfig withoutFallback()
{
    EngineConfig c = baseConfig();
    c.routes[0].fallbackModels.clear();
    return c;
}

EngineConfigPtr ptr(EngineConfig c)
{
    return std::make_shared<const EngineConfig>(std::move(c));
}

const Outcome down = [] {
    Outcome o;
    o.kind = OutcomeKind::ProviderDown;
    o.httpStatus = 503;
    return o;
}();

struct Rig {
    FakeClock clock;
    FakeRandom random{1};
    EngineConfig cfg = baseConfig();
    Router router{clock, random, ptr(cfg)};
    RetryPolicy policy{cfg.retry};
    std::vector<HealthEvent> events;
    Rig() { router.setEventSink([this](const HealthEvent &e) { events.push_back(e); }); }
    RetryState request() { return RetryState(policy, clock, clock.now()); }
    // Channel id of the first choice for a fresh request, recorded as a success.
    int pickOnce(const QString &model = QStringLiteral("gpt-4o"))
    {
        auto state = request();
        auto r = router.choose(model, state, std::nullopt);
        if (!r)
            return -r.refusal.httpStatus;
        router.record(*r.choice, Outcome::success(), 300ms);
        return r.choice->channelId;
    }
    void fail(int channelId, int times)
    {
        for (int i = 0; i < times; ++i)
            router.record(channelId, down, 50ms);
    }
};
} // namespace

class tst_Router : public QObject {
    Q_OBJECT
private slots:
    void unknownModelIs404()
    {
        Rig r;
        auto state = r.request();
        auto result = r.router.choose(QStringLiteral("nope"), state, std::nullopt);
        QVERIFY(!result);
        QCOMPARE(result.refusal.httpStatus, 404);
        QVERIFY(result.refusal.message.contains(QLatin1String("nope")));
        QCOMPARE(r.router.stats().unknownModel, 1u);
    }

    void choiceCarriesKeyAndTier()
    {
        Rig r;
        auto state = r.request();
        auto result = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QVERIFY(result);
        QCOMPARE(result.choice->channelId, 1);
        QCOMPARE(result.choice->tier, 0);
        QCOMPARE(result.choice->providerId, 1);
        QCOMPARE(result.choice->key.keyId, 10);
        QCOMPARE(result.choice->key.secret, QStringLiteral("sk-test-1-abcdefghijkl"));
        QVERIFY(!result.choice->panic && !result.choice->halfOpenTrial && !result.choice->failover);
        QCOMPARE(r.router.pool().channel(1)->inFlight(), 1);
        r.router.record(*result.choice, Outcome::success(), 100ms);
        QCOMPARE(r.router.pool().channel(1)->inFlight(), 0);
    }

    void healthStrategyPrefersHigherScore()
    {
        Rig r;
        QCOMPARE(r.pickOnce(), 1); // equal scores: listed order
        for (int i = 0; i < 20; ++i)
            r.router.record(1, Outcome::success(), 300ms);
        r.fail(1, 4); // 4 of 25 calls: under both breaker triggers, but the fast signal sees it
        r.router.tick();
        QVERIFY(r.router.pool().channel(1)->score() < r.router.pool().channel(2)->score());
        QCOMPARE(r.router.pool().channel(1)->breakerState(), BreakerState::Closed);
        for (int i = 0; i < 10; ++i)
            QCOMPARE(r.pickOnce(), 2);
    }

    void tierByTierFailoverOrder()
    {
        Rig r;
        auto state = r.request();
        std::optional<int> last;
        std::vector<int> order, tiers;
        for (int attempt = 0; attempt < 4; ++attempt) {
            auto result = r.router.choose(QStringLiteral("gpt-4o"), state, last);
            QVERIFY(result);
            state.attemptStarted(result.choice->channelId);
            order.push_back(result.choice->channelId);
            tiers.push_back(result.choice->tier);
            QCOMPARE(result.choice->failover, attempt > 0);
            r.router.record(*result.choice, down, 20ms);
            last = result.choice->channelId;
        }
        QCOMPARE(order, (std::vector<int>{1, 2, 3, 4}));
        QCOMPARE(tiers, (std::vector<int>{0, 0, 1, 1}));
        QCOMPARE(r.router.stats().failovers, 3u);
        QCOMPARE(r.router.stats().fallbackTierChoices, 2u);
        // Every channel was tried: now a tried one may be used again rather than nothing.
        auto again = r.router.choose(QStringLiteral("gpt-4o"), state, last);
        QVERIFY(again);
        QCOMPARE(again.choice->logicalModel, again.choice->tier == 0 ? QStringLiteral("gpt-4o") : QStringLiteral("small"));
        r.router.release(*again.choice);
        // Failover events name both ends.
        int failovers = 0;
        for (const auto &e : r.events)
            if (e.type == HealthEvent::Type::Failover) {
                ++failovers;
                QVERIFY(!e.from.isEmpty() && !e.to.isEmpty() && e.fromChannelId != e.channelId);
            }
        QCOMPARE(failovers, 4);
    }

    void failoverEventNamesTheRouteAndWhatTheFailedAttemptCameTo()
    {
        // The log's failover summary groups by route and cause (control/OperatorLog).
        Rig r;
        auto state = r.request();
        auto first = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QVERIFY(first);
        state.attemptStarted(first.choice->channelId);
        r.router.record(*first.choice, down, 20ms);
        auto second = r.router.choose(QStringLiteral("gpt-4o"), state, first.choice->channelId, 0, &down);
        QVERIFY(second);
        r.router.release(*second.choice);
        const HealthEvent &e = r.events.back();
        QCOMPARE(e.type, HealthEvent::Type::Failover);
        QCOMPARE(e.route, QStringLiteral("gpt-4o"));
        QCOMPARE(e.cause, QStringLiteral("PROVIDER_DOWN, HTTP %1").arg(down.httpStatus));
        QVERIFY2(e.reason.contains(QStringLiteral("(PROVIDER_DOWN, HTTP")), qPrintable(e.reason));
    }

    void failoverPrefersDisjointFailureDomain()
    {
        Rig r;
        // gpt-4o over three channels: 1 and 5 share account acct-a (same provider), 2 shares nothing.
        auto cfg = baseConfig();
        cfg.providers[1].domain.region = QStringLiteral("eu-central");
        cfg.channels.push_back(channel(5, 1));
        cfg.routes[0].channelIds = {1, 5, 2};
        r.router.setConfig(ptr(cfg));
        auto state = r.request();
        auto first = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QCOMPARE(first.choice->channelId, 1);
        state.attemptStarted(1);
        r.router.record(*first.choice, down, 10ms);
        auto second = r.router.choose(QStringLiteral("gpt-4o"), state, 1);
        QVERIFY(second);
        QCOMPARE(second.choice->channelId, 2); // not 5, which is listed earlier but shares the account
        QCOMPARE(r.router.stats().domainDisjointFailovers, 1u);
        // With no failure to avoid, listed order holds.
        QCOMPARE(r.pickOnce(), 1);
    }

    void channelLabelsOverrideProviderDomain()
    {
        Rig r;
        auto cfg = baseConfig();
        cfg.channels.push_back(channel(5, 1));
        cfg.channels.back().account = QStringLiteral("acct-z"); // same provider, but its own account…
        cfg.channels.back().region = QStringLiteral("ap-south"); // …and region
        cfg.providers[1].domain.region = QStringLiteral("us-east");
        cfg.routes[0].channelIds = {1, 2, 5};
        r.router.setConfig(ptr(cfg));
        auto state = r.request();
        state.attemptStarted(1);
        auto next = r.router.choose(QStringLiteral("gpt-4o"), state, 1);
        // Channel 2 shares the region us-east with channel 1; channel 5 shares nothing.
        QCOMPARE(next.choice->channelId, 5);
    }

    void openBreakerSkipsChannelAndHalfOpenTrialsGoFirst()
    {
        Rig r;
        r.fail(1, 5);
        QCOMPARE(r.router.pool().channel(1)->breakerState(), BreakerState::Open);
        for (int i = 0; i < 5; ++i)
            QCOMPARE(r.pickOnce(), 2);
        r.clock.advance(60s);
        // HALF_OPEN (relay preset): at most 3 trial calls in flight, offered before the healthy channel.
        auto state = r.request();
        std::vector<RouteChoice> trials;
        for (int i = 0; i < 3; ++i) {
            auto result = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
            QCOMPARE(result.choice->channelId, 1);
            QVERIFY(result.choice->halfOpenTrial);
            trials.push_back(*result.choice);
        }
        auto fourth = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QCOMPARE(fourth.choice->channelId, 2);
        QVERIFY(!fourth.choice->halfOpenTrial);
        r.router.release(*fourth.choice);
        for (const auto &t : trials)
            r.router.record(t, Outcome::success(), 200ms);
        QCOMPARE(r.router.pool().channel(1)->breakerState(), BreakerState::Closed);
        QCOMPARE(r.router.stats().halfOpenTrials, 3u);
    }

    void launchDayHalfOpenSharesTraffic()
    {
        Rig r;
        auto cfg = baseConfig();
        cfg.breaker = BreakerConfig::launchDay();
        r.router.setConfig(ptr(cfg));
        r.fail(1, 5);
        r.clock.advance(120s);
        std::map<int, int> counts;
        int trials = 0;
        for (int i = 0; i < 4000; ++i) {
            auto state = r.request();
            auto result = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
            ++counts[result.choice->channelId];
            if (result.choice->halfOpenTrial)
                ++trials;
            // Trials are neither failures nor successes here, so the breaker stays half-open.
            r.router.release(*result.choice);
        }
        const double share = counts[1] / 4000.0;
        QVERIFY2(share > 0.035 && share < 0.065, qPrintable(QString::number(share)));
        QCOMPARE(trials, counts[1]);
    }

    void aTryElsewhereTakesOnlyAnUntriedRoutableChannelOfAnotherProvider()
    {
        // gpt-4o: 1 (provider 1), 2 (provider 2); its fallback "small": 3 (provider 3), 4 (provider 1).
        Rig r;
        auto state = r.request();
        state.attemptStarted(1);
        auto first = r.router.choose(QStringLiteral("gpt-4o"), state, 1, 0, nullptr, 1);
        QVERIFY(first);
        QCOMPARE(first.choice->channelId, 2);
        r.router.release(*first.choice);

        r.fail(2, 5); // open: the next tier's channel of a third provider, never provider 1's own
        first = r.router.choose(QStringLiteral("gpt-4o"), state, 1, 0, nullptr, 1);
        QVERIFY(first);
        QCOMPARE(first.choice->channelId, 3);
        r.router.release(*first.choice);

        // Channel 3 asked already, 2 open, 4 the refusing provider's: nothing, and no panic choice,
        // and no refusal counted (the client gets the error it has).
        state.attemptStarted(3);
        const auto before = r.router.stats();
        const auto none = r.router.choose(QStringLiteral("gpt-4o"), state, 3, 0, nullptr, 1);
        QVERIFY(!none);
        QCOMPARE(r.router.stats().panicChoices, before.panicChoices);
        QCOMPARE(r.router.stats().unavailableRefusals, before.unavailableRefusals);
        QCOMPARE(r.router.stats().rateLimitedRefusals, before.rateLimitedRefusals);
        // Without the limit the same request still gets a channel (a tried or a panic one).
        const auto any = r.router.choose(QStringLiteral("gpt-4o"), state, 3);
        QVERIFY(any);
        r.router.release(*any.choice);
    }

    void panicModeUsesLeastBadChannel()
    {
        Rig r;
        auto cfg = withoutFallback();
        r.router.setConfig(ptr(cfg));
        r.fail(1, 5);
        r.fail(2, 5);
        r.router.record(2, Outcome::success(), 100ms); // ignored while OPEN, but 2 also had fewer failures…
        r.fail(1, 10);                                 // …than 1
        r.router.tick();
        QVERIFY(r.router.pool().channel(2)->score() >= r.router.pool().channel(1)->score());
        auto state = r.request();
        auto result = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QVERIFY(result);
        QVERIFY(result.choice->panic);
        QCOMPARE(r.router.stats().panicChoices, 1u);
        QCOMPARE(r.router.pool().stats().panicChoices, 1u);
        bool panicEvent = false;
        for (const auto &e : r.events)
            if (e.type == HealthEvent::Type::Panic) {
                panicEvent = true;
                QCOMPARE(e.route, QStringLiteral("gpt-4o"));
            }
        QVERIFY(panicEvent);
        r.router.release(*result.choice);

        // Panic off: a 503 naming each channel and why.
        cfg.pool.panicMode = false;
        r.router.setConfig(ptr(cfg));
        auto refused = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QVERIFY(!refused);
        QCOMPARE(refused.refusal.httpStatus, 503);
        QCOMPARE(refused.refusal.channels.size(), 2u);
        QVERIFY2(refused.refusal.message.contains(QLatin1String("gpt-4o/1: circuit open")), qPrintable(refused.refusal.message));
        QCOMPARE(r.router.stats().unavailableRefusals, 1u);
    }

    void panicReachesAnOpenChannelWhenTheRoutableOnesKeysCool()
    {
        // The soak's finding: channel 1 OPEN, channel 2 routable but its provider's only key cooling
        // after a 429. Nothing can take the request the normal way, so panic tries the OPEN channel
        // rather than answering 429; the cooling key itself is never overridden.
        Rig r;
        auto cfg = withoutFallback();
        r.router.setConfig(ptr(cfg));
        r.fail(1, 5);
        QCOMPARE(r.router.pool().channel(1)->breakerState(), BreakerState::Open);
        auto warmup = r.request();
        auto onTwo = r.router.choose(QStringLiteral("gpt-4o"), warmup, std::nullopt);
        QCOMPARE(onTwo.choice->channelId, 2);
        Outcome limited;
        limited.kind = OutcomeKind::RetryableRateLimit;
        limited.httpStatus = 429;
        r.router.record(*onTwo.choice, limited, 10ms);
        QVERIFY(r.router.keyRing(2)->allCoolingOrDisabled());

        auto state = r.request();
        QVERIFY(!r.router.hasUntriedChannel(QStringLiteral("gpt-4o"), state)); // 1 is open, 2 cools
        auto result = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QVERIFY(result);
        QCOMPARE(result.choice->channelId, 1);
        QVERIFY(result.choice->panic);
        QCOMPARE(r.router.stats().panicChoices, 1u);
        r.router.release(*result.choice);

        // With both providers' keys cooling panic has nothing to offer: a refusal naming each reason.
        r.router.keyRing(1)->reportRateLimited(result.choice->key.keyId, std::nullopt);
        auto refused = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QVERIFY(!refused);
        QCOMPARE(refused.refusal.httpStatus, 503); // channel 1's circuit is open as well
        QVERIFY(!refused.refusal.retryAfter);
        // Channel 2 comes back when its key's rest ends, which a request can wait for: 1 s, the default.
        QCOMPARE(refused.refusal.freeIn, std::optional<Clock::Duration>(1s));
        QVERIFY2(refused.refusal.message.contains(QLatin1String("gpt-4o/2: every API key is cooling down")),
                 qPrintable(refused.refusal.message));
        QCOMPARE(r.router.stats().panicChoices, 1u);
    }

    void untriedChannelsAreCountedOnlyWhenTheyCouldTakeTheAttempt()
    {
        Rig r;
        auto state = r.request();
        QVERIFY(r.router.hasUntriedChannel(QStringLiteral("gpt-4o"), state));
        state.attemptStarted(1);
        QVERIFY(r.router.hasUntriedChannel(QStringLiteral("gpt-4o"), state)); // 2 is left, and tier 1's 3 and 4
        state.attemptStarted(2);
        QVERIFY(r.router.hasUntriedChannel(QStringLiteral("gpt-4o"), state)); // the fallback model's channels
        r.fail(3, 5);
        r.fail(4, 5);
        QVERIFY(!r.router.hasUntriedChannel(QStringLiteral("gpt-4o"), state)); // both OPEN
        QVERIFY(!r.router.hasUntriedChannel(QStringLiteral("nope"), state));
    }

    void aHalfOpenChannelWhoseTrialsAreTakenIsNoUntriedChannel()
    {
        Rig r;
        auto cfg = withoutFallback();
        cfg.breaker.halfOpenMaxTrials = 1;
        r.router.setConfig(ptr(cfg));
        r.fail(2, 5);
        r.clock.advance(cfg.breaker.openDuration); // OPEN with its time up: the next admission is a trial
        auto state = r.request();
        state.attemptStarted(1);
        QVERIFY(r.router.hasUntriedChannel(QStringLiteral("gpt-4o"), state));

        auto elsewhere = r.request(); // another request takes channel 2's one trial
        elsewhere.attemptStarted(1);
        auto trial = r.router.choose(QStringLiteral("gpt-4o"), elsewhere, 1);
        QCOMPARE(trial.choice->channelId, 2);
        QVERIFY(trial.choice->halfOpenTrial);
        QVERIFY(!r.router.hasUntriedChannel(QStringLiteral("gpt-4o"), state)); // its next attempt is a retry
        QCOMPARE(r.router.untriedChannelFreeIn(QStringLiteral("gpt-4o"), state), std::nullopt);
        r.router.release(*trial.choice);
        QVERIFY(r.router.hasUntriedChannel(QStringLiteral("gpt-4o"), state));
    }

    void anErrorNamesTheChannelsItNeverReached()
    {
        Rig r;
        auto cfg = withoutFallback();
        r.router.setConfig(ptr(cfg));
        r.fail(2, 5);
        auto state = r.request();
        state.attemptStarted(1);
        state.attemptStarted(1);
        QCOMPARE(r.router.untriedChannelReasons(QStringLiteral("gpt-4o"), state), QStringList{QStringLiteral("gpt-4o/2: circuit open")});
        state.attemptStarted(2);
        QVERIFY(r.router.untriedChannelReasons(QStringLiteral("gpt-4o"), state).isEmpty());
    }

    void aChoiceOnATriedChannelSaysWhyTheUntriedOnesWerePassedOver()
    {
        Rig r;
        auto cfg = withoutFallback();
        r.router.setConfig(ptr(cfg));
        auto state = r.request();
        auto first = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QCOMPARE(first.choice->channelId, 1);
        QVERIFY(first.passedOver.empty()); // the usual choice skips nothing
        state.attemptStarted(1);
        r.router.record(*first.choice, down, 10ms);
        r.router.keyRing(2)->reportRateLimited(20, std::chrono::milliseconds(1500));
        QCOMPARE(r.router.untriedChannelFreeIn(QStringLiteral("gpt-4o"), state), std::optional<Clock::Duration>(1500ms));

        auto again = r.router.choose(QStringLiteral("gpt-4o"), state, 1);
        QCOMPARE(again.choice->channelId, 1); // the tried one, since 2's only key rests
        QCOMPARE(again.passedOver.size(), std::size_t(1));
        QCOMPARE(again.passedOver[0].channelId, 2);
        QCOMPARE(again.passedOver[0].reason, QStringLiteral("every API key is cooling down (next in 1.5 s)"));
        r.router.release(*again.choice);
        state.notePassedOver(2, again.passedOver[0].reason);

        // Told after its rest is over, the error gives the reason that held at the choice, and says so.
        r.clock.advance(2s);
        QCOMPARE(r.router.untriedChannelFreeIn(QStringLiteral("gpt-4o"), state), std::optional<Clock::Duration>(0ms));
        QCOMPARE(r.router.untriedChannelReasons(QStringLiteral("gpt-4o"), state),
                 QStringList{QStringLiteral("gpt-4o/2: every API key is cooling down (next in 1.5 s), as the last attempt was chosen")});
        // A channel no wait brings back is not waited for.
        r.router.keyRing(2)->reportAuthError(20, QStringLiteral("invalid key"));
        QCOMPARE(r.router.untriedChannelFreeIn(QStringLiteral("gpt-4o"), state), std::nullopt);
    }

    void drainedChannelStaysOutEvenInPanic()
    {
        Rig r;
        auto cfg = withoutFallback();
        r.router.setConfig(ptr(cfg));
        QVERIFY(r.router.drain(1, QStringLiteral("maintenance")));
        QVERIFY(r.router.drain(2));
        auto state = r.request();
        auto result = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QVERIFY(!result);
        QCOMPARE(result.refusal.httpStatus, 503);
        QVERIFY(result.refusal.message.contains(QLatin1String("drained (maintenance)")));
        QVERIFY(r.router.readmit(1));
        QCOMPARE(r.pickOnce(), 1);
    }

    void bucketRefusalMovesToNextChannelThen429()
    {
        Rig r;
        auto cfg = withoutFallback();
        cfg.providers[0].requestsPerMinute = 60;
        cfg.providers[0].burst = 1;
        cfg.providers[1].requestsPerMinute = 60;
        cfg.providers[1].burst = 1;
        r.router.setConfig(ptr(cfg));
        QCOMPARE(r.pickOnce(), 1);
        QCOMPARE(r.pickOnce(), 2); // provider 1's bucket is empty: moved on, did not wait
        QCOMPARE(r.router.stats().bucketRefusals, 1u);
        QCOMPARE(r.pickOnce(), -429); // both empty
        auto state = r.request();
        auto result = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QCOMPARE(result.refusal.httpStatus, 429);
        QVERIFY(result.refusal.retryAfter.has_value());
        QVERIFY(*result.refusal.retryAfter > 0s && *result.refusal.retryAfter <= 1s);
        QCOMPARE(r.router.stats().rateLimitedRefusals, 2u);
        r.clock.advance(1s);
        QCOMPARE(r.pickOnce(), 1);
        QVERIFY(r.router.stats().bucketRefusalsTotal >= 3u);
    }

    void rateLimitedKeyCoolsAndProviderIsSkipped()
    {
        Rig r;
        auto cfg = withoutFallback();
        r.router.setConfig(ptr(cfg));
        auto state = r.request();
        auto first = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        Outcome limited;
        limited.kind = OutcomeKind::RetryableRateLimit;
        limited.httpStatus = 429;
        limited.retryAfter = 10s;
        r.router.record(*first.choice, limited, 10ms);
        QVERIFY(r.router.keyRing(1)->allCoolingOrDisabled());
        QCOMPARE(r.router.pool().channel(1)->breakerState(), BreakerState::Closed); // not the channel's fault
        QCOMPARE(r.pickOnce(), 2);
        QVERIFY(r.router.stats().keyExhaustions >= 1u);
        QCOMPARE(r.router.stats().keyCoolDowns, 1u);
        // Both providers' keys cooling: 429 with the soonest key's return as Retry-After.
        auto second = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        limited.retryAfter = 4s;
        r.router.record(*second.choice, limited, 10ms);
        auto refused = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QCOMPARE(refused.refusal.httpStatus, 429);
        QVERIFY(refused.refusal.retryAfter && *refused.refusal.retryAfter <= 4s && *refused.refusal.retryAfter > 3s);
        r.clock.advance(4s);
        QCOMPARE(r.pickOnce(), 2);
    }

    void authErrorDisablesKey()
    {
        Rig r;
        auto state = r.request();
        auto first = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        Outcome auth;
        auth.kind = OutcomeKind::AuthError;
        auth.httpStatus = 401;
        auth.message = QStringLiteral("invalid key");
        r.router.record(*first.choice, auth, 10ms);
        QCOMPARE(r.router.keyRing(1)->healthyCount(), 0);
        QCOMPARE(r.pickOnce(), 2);
        const auto snaps = r.router.snapshots();
        QCOMPARE(snaps[0].keysHealthy, 0);
        QCOMPARE(snaps[0].keysTotal, 1);
        QCOMPARE(snaps[1].keysHealthy, 1);
        // Editing the provider's keys builds a new key ring; an unrelated edit keeps the old one.
        auto cfg = baseConfig();
        cfg.providers[2].name = QStringLiteral("renamed");
        r.router.setConfig(ptr(cfg));
        QCOMPARE(r.router.keyRing(1)->healthyCount(), 0);
        cfg.providers[0].keys[0].secret = QStringLiteral("sk-test-new-0123456789");
        r.router.setConfig(ptr(cfg));
        QCOMPARE(r.router.keyRing(1)->healthyCount(), 1);
        QCOMPARE(r.pickOnce(), 1);
    }

    void strategies()
    {
        Rig r;
        auto cfg = baseConfig();
        cfg.channels.push_back(channel(5, 3));
        cfg.routes[0].channelIds = {1, 2, 5};
        cfg.routes[0].fallbackModels.clear();

        cfg.routes[0].strategy = RoutingStrategy::Priority;
        r.router.setConfig(ptr(cfg));
        for (int i = 0; i < 3; ++i)
            QCOMPARE(r.pickOnce(), 1);

        cfg.routes[0].strategy = RoutingStrategy::RoundRobin;
        r.router.setConfig(ptr(cfg));
        std::vector<int> seen;
        for (int i = 0; i < 6; ++i)
            seen.push_back(r.pickOnce());
        QCOMPARE(seen, (std::vector<int>{1, 2, 5, 1, 2, 5}));

        cfg.routes[0].strategy = RoutingStrategy::Weighted;
        cfg.channels[0].weight = 6;
        cfg.channels[1].weight = 3;
        cfg.channels[4].weight = 1;
        r.router.setConfig(ptr(cfg));
        std::map<int, int> counts;
        for (int i = 0; i < 5000; ++i)
            ++counts[r.pickOnce()];
        QVERIFY2(std::abs(counts[1] / 5000.0 - 0.6) < 0.04, qPrintable(QString::number(counts[1])));
        QVERIFY2(std::abs(counts[2] / 5000.0 - 0.3) < 0.04, qPrintable(QString::number(counts[2])));
        QVERIFY2(std::abs(counts[5] / 5000.0 - 0.1) < 0.03, qPrintable(QString::number(counts[5])));

        cfg.routes[0].strategy = RoutingStrategy::Latency;
        r.router.setConfig(ptr(cfg));
        // Teach the EWMAs: 1 is slow, 2 medium, 5 fast.
        for (auto [id, ms] : {std::pair{1, 900}, {2, 400}, {5, 100}})
            for (int i = 0; i < 20; ++i)
                r.router.record(id, Outcome::success(), std::chrono::milliseconds(ms));
        counts.clear();
        for (int i = 0; i < 3000; ++i) {
            auto state = r.request();
            auto result = r.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
            ++counts[result.choice->channelId];
            r.router.release(*result.choice);
        }
        // Power of two choices: the fastest wins both pairs it is in (2/3), the slowest never wins.
        QVERIFY2(std::abs(counts[5] / 3000.0 - 2.0 / 3) < 0.04, qPrintable(QString::number(counts[5])));
        QCOMPARE(counts[1], 0);
    }

    void liveStateSurvivesConfigChange()
    {
        Rig r;
        r.fail(1, 5);
        auto cfg = baseConfig();
        cfg.channels.push_back(channel(6, 2));
        cfg.routes[0].channelIds = {1, 2, 6};
        r.router.setConfig(ptr(cfg));
        QCOMPARE(r.router.pool().channel(1)->breakerState(), BreakerState::Open);
        QCOMPARE(r.router.pool().channel(6)->breakerState(), BreakerState::Closed);
        QCOMPARE(r.router.snapshots().size(), 5u);
        QCOMPARE(r.router.config()->channels.size(), 5u);
    }

    void tickDrivesProber()
    {
        struct Transport : ProbeTransport {
            int started = 0;
            void startProbe(int, Clock::Duration, Done done) override
            {
                ++started;
                done(true, 5ms, {});
            }
        } transport;
        Rig r;
        HeartbeatProber prober(r.clock, r.router.pool(), transport);
        r.router.setProber(&prober);
        r.router.tick();
        QCOMPARE(transport.started, 4); // every channel is idle at start
        r.router.setProber(nullptr);
    }

    // 8 worker threads × 100,000 choose/record pairs against one Router while a control thread ticks,
    // moves the clock and swaps the config. Run under the asan preset.
    void concurrentStress()
    {
        FakeClock clock;
        SplitMixRandom random(99);
        auto cfg = baseConfig();
        Router router(clock, random, ptr(cfg));
        RetryPolicy policy(cfg.retry);
        constexpr int Threads = 8;
        constexpr int Ops = 100'000;
        std::atomic<bool> stop{false};
        std::atomic<std::uint64_t> chosen{0}, refused{0};
        std::thread control([&] {
            int n = 0;
            while (!stop.load()) {
                clock.advance(100ms);
                router.tick();
                if (++n % 50 == 0)
                    router.setConfig(ptr(baseConfig()));
                (void)router.snapshots();
                std::this_thread::yield();
            }
        });
        std::vector<std::thread> workers;
        for (int t = 0; t < Threads; ++t) {
            workers.emplace_back([&, t] {
                std::uint64_t x = 0x9E3779B97F4A7C15ULL * (t + 1);
                for (int i = 0; i < Ops; ++i) {
                    RetryState state(policy, clock, clock.now());
                    auto result = router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
                    if (!result) {
                        refused.fetch_add(1);
                        continue;
                    }
                    chosen.fetch_add(1);
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Channel 1 fails 3 % of its calls; everything else succeeds.
                    const bool fail = result.choice->channelId == 1 && x % 100 < 3;
                    router.record(*result.choice, fail ? down : Outcome::success(), std::chrono::milliseconds(50 + x % 200),
                                  std::chrono::milliseconds(20));
                }
            });
        }
        for (auto &w : workers)
            w.join();
        stop.store(true);
        control.join();
        QCOMPARE(chosen.load() + refused.load(), std::uint64_t(Threads) * Ops);
        QCOMPARE(router.stats().choices, chosen.load());
        QVERIFY(chosen.load() > refused.load());
        for (const auto &s : router.snapshots())
            QCOMPARE(s.inFlight, 0);
    }
};

QTEST_APPLESS_MAIN(tst_Router)
#include "tst_Router.moc"
