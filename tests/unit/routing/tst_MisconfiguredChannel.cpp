// The misconfigured channel state through the Router on FakeClock (ARCHITECTURE.md, "Errors and
// outcomes"): which outcomes mark a channel, that routing skips it (panic mode included), and each
// way back in — a heartbeat that succeeds, a change of its provider's configuration, the one
// request a minute let through — and that nothing else lets it back.
#include "FakeClock.h"
#include "FakeRandom.h"
#include "routing/RetryPolicy.h"
#include "routing/RetryState.h"
#include "routing/Router.h"

#include <QtTest>

using namespace std::chrono_literals;
using namespace sb;
using sb::test::FakeClock;
using sb::test::FakeRandom;

namespace {

ProviderConfig provider(int id, int keys)
{
    ProviderConfig p;
    p.id = id;
    p.name = QStringLiteral("provider-%1").arg(id);
    p.baseUrl = QStringLiteral("https://p%1.example/v1").arg(id);
    p.domain.account = QStringLiteral("acct-%1").arg(id);
    for (int k = 0; k < keys; ++k)
        p.keys.push_back(ApiKeyConfig{id * 10 + k, QStringLiteral("key %1").arg(k),
                                      QStringLiteral("sk-test-%1-%2-abcdefghijkl").arg(id).arg(k), true, {}});
    return p;
}

// gpt-4o: channel 1 on provider 1 (tried first, by priority), channel 2 on provider 2; channel 3,
// also on provider 1, serves "other".
EngineConfig config(int keysOfProvider1 = 1)
{
    EngineConfig c;
    c.providers = {provider(1, keysOfProvider1), provider(2, 1)};
    c.channels = {ChannelConfig{1, QStringLiteral("gpt-4o/A"), 1, QStringLiteral("gpt-4o"), 1.0, true, {}, {}, {}},
                  ChannelConfig{2, QStringLiteral("gpt-4o/B"), 2, QStringLiteral("gpt-4o"), 1.0, true, {}, {}, {}},
                  ChannelConfig{3, QStringLiteral("other/A"), 1, QStringLiteral("other"), 1.0, true, {}, {}, {}}};
    RouteConfig route;
    route.id = 1;
    route.logicalModel = QStringLiteral("gpt-4o");
    route.channelIds = {1, 2};
    route.strategy = RoutingStrategy::Priority;
    RouteConfig other;
    other.id = 2;
    other.logicalModel = QStringLiteral("other");
    other.channelIds = {3};
    c.routes = {route, other};
    return c;
}

Outcome endpointNotFound()
{
    Outcome o;
    o.kind = OutcomeKind::ProviderDown;
    o.httpStatus = 404;
    o.providerCode = QStringLiteral("endpoint_not_found");
    o.message = QStringLiteral("HTTP 404 'Not Found' (no such endpoint)");
    o.misconfiguration = Misconfiguration::EndpointNotFound;
    o.endpoint = QStringLiteral("POST https://p1.example/v1/chat/completions");
    return o;
}

Outcome refused()
{
    Outcome o;
    o.kind = OutcomeKind::AuthError;
    o.httpStatus = 401;
    o.message = QStringLiteral("Incorrect API key provided.");
    return o;
}

struct Rig {
    FakeClock clock;
    FakeRandom random{7};
    EngineConfig cfg;
    Router router;
    RetryPolicy policy;
    std::vector<HealthEvent> events;
    explicit Rig(EngineConfig c = config()) : cfg(c), router(clock, random, std::make_shared<const EngineConfig>(c)), policy(c.retry)
    {
        router.setEventSink([this](const HealthEvent &e) { events.push_back(e); });
    }
    RetryState request() { return RetryState(policy, clock, clock.now()); }
    // The first channel a fresh request is given, its attempt answered with `outcome`.
    int attempt(const Outcome &outcome, const QString &model = QStringLiteral("gpt-4o"))
    {
        auto state = request();
        auto r = router.choose(model, state, std::nullopt);
        if (!r)
            return -r.refusal.httpStatus;
        router.record(*r.choice, outcome, 200ms);
        return r.choice->channelId;
    }
    PoolState pool(int channelId) { return router.pool().channel(channelId)->poolState(); }
    ChannelSnapshot snapshot(int channelId)
    {
        for (const ChannelSnapshot &s : router.snapshots())
            if (s.channelId == channelId)
                return s;
        return {};
    }
    int poolEventsTo(const QString &to) const
    {
        return int(std::count_if(events.begin(), events.end(),
                                 [&](const HealthEvent &e) { return e.type == HealthEvent::Type::Pool && e.to == to; }));
    }
};

} // namespace

class tst_MisconfiguredChannel : public QObject {
    Q_OBJECT

private slots:
    void anEndpointThatDoesNotExistMarksTheChannelWithWhatToFix()
    {
        Rig rig;
        QCOMPARE(rig.attempt(endpointNotFound()), 1);
        QCOMPARE(rig.pool(1), PoolState::Misconfigured);
        const ChannelSnapshot s = rig.snapshot(1);
        QCOMPARE(s.misconfiguration, QStringLiteral("endpoint_not_found"));
        QVERIFY(!s.routable);
        QVERIFY2(s.poolReason.startsWith(QStringLiteral("Check the base URL of provider provider-1: POST "
                                                        "https://p1.example/v1/chat/completions answered HTTP 404 'Not Found'")),
                 qPrintable(s.poolReason));
        QVERIFY(s.misconfiguredRetryInS > 59 && s.misconfiguredRetryInS <= 60);
        QCOMPARE(rig.poolEventsTo(QStringLiteral("misconfigured")), 1);
        QCOMPARE(rig.router.pool().stats().misconfiguredNow, 1);
        // Only that channel: the other channel of the same provider still serves.
        QCOMPARE(rig.pool(3), PoolState::Active);
    }

    void routingSkipsAMisconfiguredChannelEvenInPanic()
    {
        Rig rig;
        rig.attempt(endpointNotFound());
        for (int i = 0; i < 5; ++i)
            QCOMPARE(rig.attempt(Outcome::success()), 2);
        // With the other channel drained too, nothing is left: a 503 naming why, no panic choice.
        rig.router.drain(2);
        auto state = rig.request();
        const RouteResult r = rig.router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QVERIFY(!r);
        QCOMPARE(r.refusal.httpStatus, 503);
        QVERIFY2(r.refusal.message.contains(QStringLiteral("gpt-4o/A: misconfigured (Check the base URL of provider provider-1")),
                 qPrintable(r.refusal.message));
        QCOMPARE(rig.router.stats().panicChoices, 0u);
    }

    void oneRequestAMinuteMayTryAndItsAnswerLetsTheChannelBack()
    {
        Rig rig;
        rig.attempt(endpointNotFound());
        rig.clock.advance(59s);
        QCOMPARE(rig.attempt(Outcome::success()), 2);
        rig.clock.advance(1s);
        // Due: exactly one request is let through; the next goes elsewhere.
        auto first = rig.request();
        const RouteResult trial = rig.router.choose(QStringLiteral("gpt-4o"), first, std::nullopt);
        QVERIFY(trial);
        QCOMPARE(trial.choice->channelId, 1);
        QCOMPARE(rig.attempt(Outcome::success()), 2);
        rig.router.record(*trial.choice, Outcome::success(), 200ms);
        QCOMPARE(rig.pool(1), PoolState::Active);
        QCOMPARE(rig.poolEventsTo(QStringLiteral("active")), 1);
        QCOMPARE(rig.attempt(Outcome::success()), 1);
    }

    void aRetryThatFindsItStillWrongKeepsItOutAnotherMinute()
    {
        Rig rig;
        rig.attempt(endpointNotFound());
        rig.clock.advance(60s);
        QCOMPARE(rig.attempt(endpointNotFound()), 1);
        QCOMPARE(rig.pool(1), PoolState::Misconfigured);
        QCOMPARE(rig.poolEventsTo(QStringLiteral("misconfigured")), 1); // marked once, not once a minute
        rig.clock.advance(30s);
        QCOMPARE(rig.attempt(Outcome::success()), 2);
        rig.clock.advance(30s);
        QCOMPARE(rig.attempt(Outcome::success()), 1);
        QCOMPARE(rig.pool(1), PoolState::Active);
    }

    void aHeartbeatThatSucceedsLetsItBackAndOneThatFailsDoesNot()
    {
        Rig rig;
        rig.attempt(endpointNotFound());
        auto health = rig.router.pool().channel(1);
        QVERIFY(health->wantsProbe(false));
        health->recordProbe(false, 10ms);
        QCOMPARE(rig.pool(1), PoolState::Misconfigured);
        health->recordProbe(true, 10ms);
        QCOMPARE(rig.pool(1), PoolState::Active);
        QVERIFY(rig.snapshot(1).poolReason.contains(QStringLiteral("heartbeat")));
    }

    void changingTheProvidersConfigurationLetsItBackAndAnUnrelatedChangeDoesNot()
    {
        Rig rig;
        rig.attempt(endpointNotFound());
        EngineConfig unrelated = rig.cfg;
        unrelated.providers[1].baseUrl = QStringLiteral("https://elsewhere.example/v1"); // provider 2's
        rig.router.setConfig(std::make_shared<const EngineConfig>(unrelated));
        QCOMPARE(rig.pool(1), PoolState::Misconfigured);
        EngineConfig fixed = unrelated;
        fixed.providers[0].baseUrl = QStringLiteral("https://p1.example/api/v1");
        rig.router.setConfig(std::make_shared<const EngineConfig>(fixed));
        QCOMPARE(rig.pool(1), PoolState::Active);
        QVERIFY(rig.snapshot(1).poolReason.contains(QStringLiteral("configuration changed")));
    }

    // How the provider is reached over TLS is part of its configuration: the CA bundle that fixes a
    // refused certificate lets the channel back at once, as does a change of its HTTP/2 choice.
    void aTlsFailureIsLetBackByTheProvidersTrustOrProtocolChanging()
    {
        Rig rig;
        Outcome handshake = Outcome::local(OutcomeKind::ConnectFailed, QStringLiteral("TLS with the upstream failed: unable to get local issuer certificate"));
        handshake.misconfiguration = Misconfiguration::TlsFailed;
        rig.attempt(handshake);
        QCOMPARE(rig.pool(1), PoolState::Misconfigured);
        EngineConfig trusting = rig.cfg;
        trusting.providers[0].caBundle = QStringLiteral("/etc/ssl/private-ca.pem");
        rig.router.setConfig(std::make_shared<const EngineConfig>(trusting));
        QCOMPARE(rig.pool(1), PoolState::Active);

        rig.attempt(handshake);
        QCOMPARE(rig.pool(1), PoolState::Misconfigured);
        EngineConfig multiplexing = trusting;
        multiplexing.providers[0].http2 = true;
        rig.router.setConfig(std::make_shared<const EngineConfig>(multiplexing));
        QCOMPARE(rig.pool(1), PoolState::Active);
    }

    void everyKeyRefusedMarksEveryChannelOfTheProvider()
    {
        Rig rig(config(2));
        QCOMPARE(rig.attempt(refused()), 1); // first key disabled, one left: not yet
        QCOMPARE(rig.pool(1), PoolState::Active);
        QCOMPARE(rig.attempt(refused()), 1); // the second one too
        QCOMPARE(rig.pool(1), PoolState::Misconfigured);
        QCOMPARE(rig.pool(3), PoolState::Misconfigured);
        QCOMPARE(rig.pool(2), PoolState::Active);
        const ChannelSnapshot s = rig.snapshot(1);
        QCOMPARE(s.misconfiguration, QStringLiteral("keys_refused"));
        QCOMPARE(s.poolReason, QStringLiteral("Every key of provider-1 was refused (401 'Incorrect API key provided.'): "
                                              "replace the keys in Providers"));
        QVERIFY(!s.poolReason.contains(QStringLiteral("sk-test")));
        // A heartbeat (which may need no key) does not bring it back: the keys are still refused.
        rig.router.pool().channel(1)->recordProbe(true, 5ms);
        QCOMPARE(rig.pool(1), PoolState::Misconfigured);
        // New keys are the fix.
        EngineConfig fixed = rig.cfg;
        fixed.providers[0].keys[0].secret = QStringLiteral("sk-test-new-abcdefghijkl");
        rig.router.setConfig(std::make_shared<const EngineConfig>(fixed));
        QCOMPARE(rig.pool(1), PoolState::Active);
        QCOMPARE(rig.pool(3), PoolState::Active);
    }

    void oneKeyRefusedWithAnotherGoodDoesNotMark()
    {
        Rig rig(config(2));
        QCOMPARE(rig.attempt(refused()), 1);
        QCOMPARE(rig.attempt(Outcome::success()), 1);
        QCOMPARE(rig.attempt(Outcome::success()), 1);
        QCOMPARE(rig.pool(1), PoolState::Active);
        QCOMPARE(rig.poolEventsTo(QStringLiteral("misconfigured")), 0);
    }

    void aKeylessProviderThatWantsAKeyIsMarked()
    {
        Rig rig(config(0));
        QCOMPARE(rig.attempt(refused()), 1);
        QCOMPARE(rig.pool(1), PoolState::Misconfigured);
        QCOMPARE(rig.snapshot(1).poolReason,
                 QStringLiteral("provider-1 refused a request without a key (401 'Incorrect API key provided.'): add a key in Providers"));
    }

    void nameAndTlsFailuresMarkButARefusedConnectionDoesNot()
    {
        Rig rig;
        Outcome refusedConnection = Outcome::local(OutcomeKind::ConnectFailed, QStringLiteral("Could not connect to the upstream: refused"));
        QCOMPARE(rig.attempt(refusedConnection), 1);
        QCOMPARE(rig.pool(1), PoolState::Active);

        Outcome dns = Outcome::local(OutcomeKind::ConnectFailed, QStringLiteral("Could not resolve host: nonexistent.invalid"));
        dns.misconfiguration = Misconfiguration::NameNotResolved;
        QCOMPARE(rig.attempt(dns), 1);
        QCOMPARE(rig.snapshot(1).misconfiguration, QStringLiteral("name_not_resolved"));
        QVERIFY(rig.snapshot(1).poolReason.contains(QStringLiteral("host name does not resolve (Could not resolve host: nonexistent.invalid)")));

        Rig tls;
        Outcome handshake = Outcome::local(OutcomeKind::ConnectFailed, QStringLiteral("TLS with the upstream failed: wrong version number"));
        handshake.misconfiguration = Misconfiguration::TlsFailed;
        QCOMPARE(tls.attempt(handshake), 1);
        QCOMPARE(tls.snapshot(1).misconfiguration, QStringLiteral("tls_failed"));
        QVERIFY(tls.snapshot(1).poolReason.startsWith(QStringLiteral("TLS failed with provider provider-1 (TLS with the upstream failed")));
    }

    void aDrainedChannelStaysDrainedAndAManualReadmitClearsIt()
    {
        Rig rig;
        rig.router.drain(1);
        QVERIFY(!rig.router.pool().channel(1)->markMisconfigured(Misconfiguration::TlsFailed, QStringLiteral("x")));
        QCOMPARE(rig.pool(1), PoolState::Drained);
        rig.router.readmit(1);
        rig.attempt(endpointNotFound());
        QCOMPARE(rig.pool(1), PoolState::Misconfigured);
        QVERIFY(rig.router.readmit(1));
        QCOMPARE(rig.pool(1), PoolState::Active);
    }
};

QTEST_GUILESS_MAIN(tst_MisconfiguredChannel)
#include "tst_MisconfiguredChannel.moc"
