// Three engines of one fleet in one process, each a real Gateway with its own port and control
// thread, sharing a real redis-server on loopback, in front of the simulator's providers: what one
// instance learns (an outage, a refused key) the others adopt within a second; a provider's rate
// limit and a route's budget hold for the fleet as a whole; Redis going away costs no request and
// the fleet converges again when it is back.
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyConfigs.h"
#include "ProxyUnderTest.h"
#include "RedisServer.h"

#include "control/Gateway.h"
#include "fleet/FleetAllowance.h"
#include "fleet/RedisConnection.h"
#include "proxy/EngineContext.h"

#include <QElapsedTimer>
#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

constexpr int kInstances = 3;

// One member of the test's fleet.
struct Instance {
    std::unique_ptr<SplitMixRandom> random;
    std::unique_ptr<Gateway> gateway;
};

std::shared_ptr<ChannelHealth> channelNamed(Gateway &gateway, const QString &name)
{
    for (const auto &health : gateway.context().router().pool().channels())
        if (health->name() == name)
            return health;
    return nullptr;
}

KeyRing::KeyState keyState(Gateway &gateway, int providerId, int keyId)
{
    for (const KeyRing::KeyStatus &status : gateway.context().router().keyRing(providerId)->status())
        if (status.keyId == keyId)
            return status.state;
    return KeyRing::KeyState::Active;
}

} // namespace

class tst_FleetState : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{2026};
    RedisServer m_redis;
    std::unique_ptr<ProxyUnderTest> m_providers;
    std::vector<Instance> m_fleet;
    ProxyClient m_client;

    // The providers (the primary with `primaryFaults`), then three instances on the same
    // configuration as `adjust` leaves it, each connected to the fleet.
    void startFleet(std::vector<FaultSpec> primaryFaults, const std::function<void(EngineConfig &)> &adjust,
                    std::vector<KeySpec> primaryKeys = {})
    {
        QString error;
        QVERIFY2(m_redis.start({}, &error), qPrintable(error));
        m_providers = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        ProviderSpec primary = fakeProviderSpec(QStringLiteral("primary"), std::move(primaryFaults));
        primary.keys = std::move(primaryKeys);
        QVERIFY2(m_providers->startProviders(primary, fakeProviderSpec(QStringLiteral("fallback")), &error), qPrintable(error));
        auto config = m_providers->config();
        config->fleet.redisUrl = m_redis.url();
        config->fleet.name = QStringLiteral("test-fleet");
        adjust(*config);
        for (int i = 0; i < kInstances; ++i) {
            auto own = std::make_shared<EngineConfig>(*config);
            own->fleet.instanceId = QStringLiteral("instance-%1").arg(QChar('a' + i));
            Instance instance;
            instance.random = std::make_unique<SplitMixRandom>(100 + i);
            instance.gateway = std::make_unique<Gateway>(m_clock, *instance.random, own);
            QVERIFY2(instance.gateway->start(&error), qPrintable(error));
            m_fleet.push_back(std::move(instance));
        }
        for (Instance &instance : m_fleet)
            QTRY_VERIFY_WITH_TIMEOUT(instance.gateway->fleetStatus() && instance.gateway->fleetStatus()->connected, 5000);
    }

    Gateway &at(int i) { return *m_fleet[std::size_t(i)].gateway; }
    int chat(int instance) { return m_client.postChat(at(instance).port(), chatBody(false)).status; }

private slots:
    void cleanup()
    {
        for (Instance &instance : m_fleet)
            instance.gateway->stop(0ms);
        m_fleet.clear();
        if (m_providers)
            m_providers->stop();
        m_providers.reset();
        m_redis.kill();
    }

    // The launch-day outage seen by one instance only: its breaker opens, and every other
    // instance's breaker for that channel is open within a second, before any of their own
    // requests went to the broken provider. No client sees an error.
    void anOutageSeenByOneTripsEveryBreaker()
    {
        FaultSpec outage;
        outage.type = FaultSpec::Type::Blackout;
        outage.from = 0;
        outage.mix = {ErrorMixEntry{SimError::Http503, 1.0}};
        startFleet({outage}, [](EngineConfig &) {});
        int errors = 0;
        QElapsedTimer sinceOpen;
        for (int i = 0; i < 40 && channelNamed(at(0), QStringLiteral("gpt-4o/A"))->breakerState() != BreakerState::Open; ++i)
            errors += chat(0) == 200 ? 0 : 1;
        QCOMPARE(channelNamed(at(0), QStringLiteral("gpt-4o/A"))->breakerState(), BreakerState::Open);
        sinceOpen.start();
        for (int i = 1; i < kInstances; ++i)
            QTRY_COMPARE_WITH_TIMEOUT(channelNamed(at(i), QStringLiteral("gpt-4o/A"))->breakerState(), BreakerState::Open, 1000);
        qInfo("every breaker open %lld ms after the first", sinceOpen.elapsed());
        const auto primaryCalls = m_providers->primary->stats().chat;
        for (int i = 1; i < kInstances; ++i)
            for (int n = 0; n < 5; ++n)
                errors += chat(i) == 200 ? 0 : 1;
        QCOMPARE(m_providers->primary->stats().chat, primaryCalls); // the others never tried it
        QCOMPARE(errors, 0);
        // Adopted, not relearnt: the others' events say whose evidence it was.
        const auto events = at(1).eventLog().all();
        QVERIFY(std::any_of(events.begin(), events.end(), [](const auto &e) {
            return e.event.type == HealthEvent::Type::Breaker && e.event.to == u"open" && e.event.fleetOrigin == u"instance-a";
        }));
    }

    // A key the provider refuses, found by one instance, is disabled on every instance.
    void aKeyDisabledByOneStaysDisabledOnTheOthers()
    {
        startFleet({}, [](EngineConfig &config) {
            ProviderConfig &primary = config.providers[0];
            primary.keys = {ApiKeyConfig{1, QStringLiteral("revoked"), QStringLiteral("sk-revoked-0001"), true, {}},
                            ApiKeyConfig{2, QStringLiteral("good"), QStringLiteral("sk-good-0002"), true, {}}};
        }, {KeySpec("sk-good-0002")});
        for (int i = 0; i < 4 && keyState(at(0), 1, 1) != KeyRing::KeyState::Disabled; ++i)
            QCOMPARE(chat(0), 200);
        QCOMPARE(keyState(at(0), 1, 1), KeyRing::KeyState::Disabled);
        for (int i = 1; i < kInstances; ++i) {
            QTRY_COMPARE_WITH_TIMEOUT(keyState(at(i), 1, 1), KeyRing::KeyState::Disabled, 1000);
            QCOMPARE(keyState(at(i), 1, 2), KeyRing::KeyState::Active);
        }
        const auto rejected = m_providers->primary->stats().keyRejected;
        for (int i = 1; i < kInstances; ++i)
            for (int n = 0; n < 4; ++n)
                QCOMPARE(chat(i), 200);
        QCOMPARE(m_providers->primary->stats().keyRejected, rejected); // nobody sent the dead key again
    }

    // 600 requests a minute for the provider, whatever instance they come through: over 15 s of
    // more load than that, spread over the three, the provider gets 10 a second (plus the burst)
    // within 5 %.
    void aProviderLimitHoldsAcrossTheFleet()
    {
        constexpr int kPerMinute = 600;
        constexpr int kBurst = 10;
        constexpr int kRunMs = 15000;
        constexpr int kSteadyFromMs = 3000;
        startFleet({}, [](EngineConfig &config) {
            config.providers[0].requestsPerMinute = kPerMinute;
            config.providers[0].burst = kBurst;
            config.routes.front().channelIds = {config.channels.front().id}; // the primary alone: a refusal is a 429
            config.retry.maxClientWait = 0ms;
        });
        for (int i = 0; i < kInstances; ++i)
            QTRY_VERIFY_WITH_TIMEOUT(at(i).fleetStatus()->limitDraws > 0, 5000);
        const auto before = m_providers->primary->stats().chat;
        QElapsedTimer elapsed;
        elapsed.start();
        int answered = 0, refused = 0, other = 0;
        // Three requests in flight on each instance, for 15 s.
        int inFlight = 0;
        QNetworkAccessManager network;
        std::function<void(int)> send = [&](int instance) {
            QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(at(instance).port())));
            request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
            QNetworkReply *reply = network.post(request, chatBody(false));
            ++inFlight;
            connect(reply, &QNetworkReply::finished, this, [&, reply, instance] {
                const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                reply->deleteLater();
                --inFlight;
                ++(status == 200 ? answered : status == 429 ? refused : other);
                if (elapsed.elapsed() < kRunMs)
                    send(instance);
            });
        };
        for (int i = 0; i < kInstances; ++i)
            for (int n = 0; n < 3; ++n)
                send(i);
        // Once the burst and what the instances held at the start are spent, the fleet runs at
        // the bucket's rate: measured from then on, it is the limit within 5 %.
        std::uint64_t atSteady = 0;
        QTimer::singleShot(kSteadyFromMs, this, [&] { atSteady = m_providers->primary->stats().chat; });
        QTRY_VERIFY_WITH_TIMEOUT(elapsed.elapsed() >= kRunMs && inFlight == 0, kRunMs * 2);
        const double seconds = elapsed.elapsed() / 1000.0;
        const double admitted = double(m_providers->primary->stats().chat - before);
        const double steadySeconds = seconds - kSteadyFromMs / 1000.0;
        const double steadyAdmitted = double(m_providers->primary->stats().chat - atSteady);
        const double steadyAllowed = kPerMinute / 60.0 * steadySeconds;
        // Over the whole run, no more than the bucket's burst and rate plus what each instance
        // may hold unspent (its chunk): the documented worst case.
        const int chunk = FleetAllowance::chunkFor(kPerMinute, 4);
        const double allowed = kBurst + kPerMinute / 60.0 * seconds + kInstances * chunk;
        qInfo("%.0f admitted in %.1f s (at most %.0f), %.0f in the last %.1f s (limit %.0f); %d answered, %d refused with 429, %d other",
              admitted, seconds, allowed, steadyAdmitted, steadySeconds, steadyAllowed, answered, refused, other);
        QVERIFY2(refused > 0, "the load never exceeded the limit: the test proves nothing");
        QCOMPARE(other, 0);
        QVERIFY2(admitted <= allowed, qPrintable(QStringLiteral("%1 of %2").arg(admitted).arg(allowed)));
        QVERIFY2(steadyAdmitted <= steadyAllowed * 1.05 && steadyAdmitted >= steadyAllowed * 0.95,
                 qPrintable(QStringLiteral("%1 of %2").arg(steadyAdmitted).arg(steadyAllowed)));
        for (int i = 0; i < kInstances; ++i)
            QVERIFY2(at(i).fleetStatus()->limitGranted > 0, "an instance never drew on the shared limit");
    }

    // A route's hard stop reached by two instances' spend stops the third, which spent nothing.
    void aBudgetsHardStopAppliesToEveryInstance()
    {
        startFleet({}, [](EngineConfig &config) {
            config.prices = {ModelPrice{QStringLiteral("gpt-4o"), 0.0, 1000.0}}; // 24 completion tokens: $0.024 a request
            config.budgets = {BudgetConfig{QStringLiteral("gpt-4o"), BudgetPeriod::Day, 0.0, 0.1}};
        });
        QCOMPARE(chat(2), 200);
        for (int n = 0; n < 3; ++n) {
            QCOMPARE(chat(0), 200);
            QCOMPARE(chat(1), 200);
        }
        // $0.168 spent by the fleet (a and b with c's one request): every instance refuses now.
        for (int i = 0; i < kInstances; ++i)
            QTRY_COMPARE_WITH_TIMEOUT(chat(i), 429, 2000);
    }

    // Any instance's admin API lists the whole fleet, flags an instance whose configuration
    // differs from the others', and its metrics say which instance they are.
    void everyInstanceSeesTheFleetAndADivergingConfiguration()
    {
        startFleet({}, [](EngineConfig &) {});
        auto fleetSeenBy = [&](int instance) { return m_client.request(at(instance).port(), "GET", QStringLiteral("/admin/fleet")).json(); };
        QTRY_COMPARE_WITH_TIMEOUT(fleetSeenBy(1).value(QStringLiteral("instances")).toArray().size(), kInstances, 3000);
        QJsonObject fleet = fleetSeenBy(1);
        QCOMPARE(fleet.value(QStringLiteral("configured")).toBool(), true);
        QCOMPARE(fleet.value(QStringLiteral("instance")).toString(), QStringLiteral("instance-b"));
        QCOMPARE(fleet.value(QStringLiteral("config_differs")).toBool(), false);
        QStringList ids;
        for (const QJsonValue &i : fleet.value(QStringLiteral("instances")).toArray())
            ids << i.toObject().value(QStringLiteral("id")).toString();
        ids.sort();
        QCOMPARE(ids, (QStringList{QStringLiteral("instance-a"), QStringLiteral("instance-b"), QStringLiteral("instance-c")}));

        auto changed = std::make_shared<EngineConfig>(*at(2).config());
        changed->retry.maxAttempts += 1;
        at(2).applyConfig(changed);
        QTRY_VERIFY_WITH_TIMEOUT(fleetSeenBy(0).value(QStringLiteral("config_differs")).toBool(), 3000);
        for (const QJsonValue &i : fleetSeenBy(0).value(QStringLiteral("instances")).toArray())
            QCOMPARE(i.toObject().value(QStringLiteral("config_differs")).toBool(), i.toObject().value(QStringLiteral("id")).toString() == u"instance-c");

        const QByteArray metrics = m_client.request(at(1).port(), "GET", QStringLiteral("/metrics")).body;
        QVERIFY(metrics.contains("switchboard_fleet_connected{instance_id=\"instance-b\",fleet=\"test-fleet\"} 1"));
        QVERIFY(metrics.contains("switchboard_requests_in_flight{instance_id=\"instance-b\"}"));
    }

    // Redis stuck in a DEBUG SLEEP: requests through every instance, with a shared limit and a
    // budget in use, are answered while Redis still sleeps, since none of them waits on it.
    void aSlowRedisDoesNotSlowTheRequestPath()
    {
        startFleet({}, [](EngineConfig &config) {
            config.providers[0].requestsPerMinute = 6000;
            config.prices = {ModelPrice{QStringLiteral("gpt-4o"), 0.0, 1.0}};
            config.budgets = {BudgetConfig{QStringLiteral("gpt-4o"), BudgetPeriod::Day, 0.0, 100.0}};
        });
        for (int i = 0; i < kInstances; ++i)
            QTRY_VERIFY_WITH_TIMEOUT(at(i).fleetStatus()->limitGranted > 0, 5000);
        RedisConnection sleeper(m_clock);
        QVERIFY(openOn(sleeper, m_redis));
        bool awake = false;
        QVERIFY(sleeper.command({"DEBUG", "SLEEP", "3"}, [&](const RedisReply &) { awake = true; }));
        QTest::qWait(100); // the sleep has begun
        for (int n = 0; n < 30; ++n)
            QCOMPARE(chat(n % kInstances), 200);
        QVERIFY2(!awake, "Redis woke before the requests were through: the test proves nothing");
        QTRY_VERIFY_WITH_TIMEOUT(awake, 10000);
        for (int i = 0; i < kInstances; ++i)
            QCOMPARE(chat(i), 200);
    }

    // Redis killed while the fleet serves: no request fails, each instance says it is on its own
    // within a second, and when Redis is back they reconnect, and what one learnt meanwhile
    // reaches the others.
    void redisGoingAwayCostsNothingAndTheFleetResyncs()
    {
        FaultSpec outage;
        outage.type = FaultSpec::Type::Blackout;
        outage.from = 8; // scenario seconds: while Redis is away
        outage.mix = {ErrorMixEntry{SimError::Http503, 1.0}};
        startFleet({outage}, [](EngineConfig &config) {
            config.providers[0].requestsPerMinute = 6000; // a shared limit in use when Redis goes
        });
        int errors = 0;
        for (int i = 0; i < kInstances; ++i)
            errors += chat(i) == 200 ? 0 : 1;
        m_redis.kill();
        for (int i = 0; i < kInstances; ++i)
            QTRY_VERIFY_WITH_TIMEOUT(!at(i).fleetStatus()->connected, 1000);
        // Every instance serves on its own until the outage begins…
        QElapsedTimer serving;
        serving.start();
        while (m_providers->scenarioClock->now() < outage.from)
            for (int i = 0; i < kInstances; ++i)
                errors += chat(i) == 200 ? 0 : 1;
        // … then instance a alone meets it and opens the breaker; the others cannot hear of it.
        while (channelNamed(at(0), QStringLiteral("gpt-4o/A"))->breakerState() != BreakerState::Open) {
            errors += chat(0) == 200 ? 0 : 1;
            QVERIFY(serving.elapsed() < 30000);
        }
        QCOMPARE(errors, 0);
        QCOMPARE(channelNamed(at(1), QStringLiteral("gpt-4o/A"))->breakerState(), BreakerState::Closed);
        QString error;
        QVERIFY2(m_redis.start({}, &error), qPrintable(error));
        for (int i = 0; i < kInstances; ++i)
            QTRY_VERIFY_WITH_TIMEOUT(at(i).fleetStatus()->connected, 7000);
        // Back in the fleet, a's open circuit is everyone's.
        for (int i = 1; i < kInstances; ++i)
            QTRY_COMPARE_WITH_TIMEOUT(channelNamed(at(i), QStringLiteral("gpt-4o/A"))->breakerState(), BreakerState::Open, 1000);
        QVERIFY(at(0).fleetStatus()->reconnects > 0);
        const auto events = at(0).eventLog().all();
        QVERIFY(std::any_of(events.begin(), events.end(), [](const auto &e) { return e.event.type == HealthEvent::Type::Fleet && e.event.to == u"lost"; }));
        QVERIFY(std::any_of(events.begin(), events.end(), [](const auto &e) { return e.event.type == HealthEvent::Type::Fleet && e.event.to == u"connected"; }));
    }
};

QTEST_MAIN(tst_FleetState)
#include "tst_FleetState.moc"
