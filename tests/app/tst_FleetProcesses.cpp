// A fleet as a team runs it: three real `switchboard --headless --config FILE --redis URL`
// processes sharing a real redis-server, behind Debian's nginx as a round-robin load balancer, in
// front of the simulator's providers. Every client request goes through nginx, which never retries
// on another instance, so any failure an instance lets out reaches the client and is counted.
#include "FakeProviderSpecs.h"
#include "HeadlessHost.h"
#include "HeadlessProcess.h"
#include "NginxBalancer.h"
#include "ProxyClient.h"
#include "ProxyUnderTest.h"
#include "RedisServer.h"

#include "common/Random.h"
#include "fleet/FleetAllowance.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

constexpr int kInstances = 3;

// Requests kept in flight through the balancer until stop(), each answer counted.
class Load {
public:
    Load(quint16 port, int inFlight) : m_port(port)
    {
        for (int i = 0; i < inFlight; ++i)
            send();
    }
    void stop() { m_stopping = true; }
    bool idle() const { return m_inFlight == 0; }
    int answered = 0, refused = 0, failed = 0; // 200; 429; anything else
    QStringList failures;

private:
    void send()
    {
        QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(m_port)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        request.setTransferTimeout(30000);
        QNetworkReply *reply = m_network.post(request, chatBody(false));
        ++m_inFlight;
        QObject::connect(reply, &QNetworkReply::finished, reply, [this, reply] {
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            if (status == 200)
                ++answered;
            else if (status == 429)
                ++refused;
            else {
                ++failed;
                failures << QStringLiteral("%1 %2").arg(status).arg(QString::fromUtf8(reply->readAll().left(200)));
            }
            reply->deleteLater();
            --m_inFlight;
            if (!m_stopping)
                send();
        });
    }

    quint16 m_port;
    QNetworkAccessManager m_network;
    int m_inFlight = 0;
    bool m_stopping = false;
};

} // namespace

class tst_FleetProcesses : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{25};
    RedisServer m_redis;
    std::unique_ptr<ProxyUnderTest> m_providers;
    std::vector<std::unique_ptr<QTemporaryDir>> m_dirs;
    std::vector<std::unique_ptr<HeadlessProcess>> m_fleet;
    NginxBalancer m_balancer;
    ProxyClient m_client;

    // The providers (the primary with `primaryFaults` and `primaryKeys`), one configuration file
    // as `adjust` leaves it, three instances on it joined to the fleet, and nginx in front.
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
        config->fleet.name = QStringLiteral("process-fleet");
        adjust(*config);
        m_dirs.push_back(std::make_unique<QTemporaryDir>());
        const QString file = m_dirs.back()->filePath(QStringLiteral("fleet.json"));
        QVERIFY(writeConfigFile(file, *config));
        QList<quint16> ports;
        for (int i = 0; i < kInstances; ++i) {
            m_dirs.push_back(std::make_unique<QTemporaryDir>());
            m_fleet.push_back(std::make_unique<HeadlessProcess>(QStringLiteral(SB_SWITCHBOARD_BINARY), m_dirs.back()->path()));
            QVERIFY2(m_fleet.back()->start({QStringLiteral("--config"), file, QStringLiteral("--redis"), m_redis.url()}),
                     qPrintable(m_fleet.back()->log()));
            ports << m_fleet.back()->port();
        }
        for (int i = 0; i < kInstances; ++i)
            QTRY_VERIFY2_WITH_TIMEOUT(fleetSeenBy(i).value(QStringLiteral("connected")).toBool(), qPrintable(m_fleet[std::size_t(i)]->log()), 10000);
        QVERIFY2(m_balancer.start(ports, &error), qPrintable(error));
    }

    QJsonObject fleetSeenBy(int instance)
    {
        return m_client.request(m_fleet[std::size_t(instance)]->port(), "GET", QStringLiteral("/admin/fleet")).json();
    }
    // The breaker as the instance holds it now (/admin/fleet reads it live; /admin/channels
    // shows the last second's snapshot).
    QString breakerSeenBy(int instance, const QString &channel)
    {
        for (const QJsonValue &c : fleetSeenBy(instance).value(QStringLiteral("channels")).toArray())
            if (c.toObject().value(QStringLiteral("name")).toString() == channel)
                return c.toObject().value(QStringLiteral("breaker")).toString();
        return {};
    }
    int chatThroughBalancer() { return m_client.postChat(m_balancer.port(), chatBody(false)).status; }
    int chatWith(int instance) { return m_client.postChat(m_fleet[std::size_t(instance)]->port(), chatBody(false)).status; }

private slots:
    void cleanup()
    {
        m_balancer.stop();
        for (auto &instance : m_fleet)
            instance->stop();
        m_fleet.clear();
        m_dirs.clear();
        if (m_providers)
            m_providers->stop();
        m_providers.reset();
        m_redis.kill();
    }

    // The launch-day outage, met first by one instance: within a second every instance's breaker
    // for the channel is open, and the clients behind the balancer never see an error.
    void anOutageSeenByOneTripsEveryInstance()
    {
        FaultSpec outage;
        outage.type = FaultSpec::Type::Blackout;
        outage.from = 0;
        outage.mix = {ErrorMixEntry{SimError::Http503, 1.0}};
        // The breaker opens on the outage's first failure: the health score steers traffic off the
        // channel within a second, and a cold instance may not have met five failures by then.
        startFleet({outage}, [](EngineConfig &config) { config.breaker.consecutiveFailures = 1; });
        const QString channel = QStringLiteral("gpt-4o/A");
        int errors = 0;
        QElapsedTimer meeting;
        meeting.start();
        while (breakerSeenBy(0, channel) != u"open" && meeting.elapsed() < 10000)
            errors += chatWith(0) == 200 ? 0 : 1;
        QVERIFY2(breakerSeenBy(0, channel) == u"open", qPrintable(m_fleet[0]->log()));
        QElapsedTimer sinceOpen;
        sinceOpen.start();
        for (int i = 1; i < kInstances; ++i)
            QTRY_COMPARE_WITH_TIMEOUT(breakerSeenBy(i, channel), QStringLiteral("open"), 1000);
        qInfo("every instance's breaker open %lld ms after the first", sinceOpen.elapsed());
        const auto primaryCalls = m_providers->primary->stats().chat;
        for (int n = 0; n < 30; ++n)
            errors += chatThroughBalancer() == 200 ? 0 : 1;
        QCOMPARE(errors, 0);
        QCOMPARE(m_providers->primary->stats().chat, primaryCalls);
    }

    // A key the provider refuses, found dead by one instance, is never sent again by the others.
    void aKeyDisabledByOneStaysDisabledOnTheOthers()
    {
        startFleet({}, [](EngineConfig &config) {
            config.providers[0].keys = {ApiKeyConfig{1, QStringLiteral("revoked"), QStringLiteral("sk-revoked-0001"), true, {}},
                                        ApiKeyConfig{2, QStringLiteral("good"), QStringLiteral("sk-good-0002"), true, {}}};
        }, {KeySpec("sk-good-0002")});
        for (int i = 0; i < 4 && m_providers->primary->stats().keyRejected == 0; ++i)
            QCOMPARE(chatWith(0), 200);
        QCOMPARE(m_providers->primary->stats().keyRejected, std::uint64_t(1));
        for (int i = 1; i < kInstances; ++i)
            QVERIFY2(m_fleet[std::size_t(i)]->waitForLog(QStringLiteral("(seen by ")), qPrintable(m_fleet[std::size_t(i)]->log()));
        for (int n = 0; n < 30; ++n)
            QCOMPARE(chatThroughBalancer(), 200);
        QCOMPARE(m_providers->primary->stats().keyRejected, std::uint64_t(1)); // nobody tried the dead key again
    }

    // 600 requests a minute for the provider, with more than that coming through the balancer:
    // once the first burst is spent the provider gets 10 a second within 5 %.
    void aFleetLimitHoldsBehindTheBalancer()
    {
        constexpr int kPerMinute = 600;
        constexpr int kBurst = 10;
        startFleet({}, [](EngineConfig &config) {
            config.providers[0].requestsPerMinute = kPerMinute;
            config.providers[0].burst = kBurst;
            config.routes.front().channelIds = {config.channels.front().id}; // the primary alone: a refusal is a 429
            config.retry.maxClientWait = 0ms;
        });
        QTest::qWait(500); // every instance's first draw answered
        const auto before = m_providers->primary->stats().chat;
        QElapsedTimer elapsed;
        elapsed.start();
        Load load(m_balancer.port(), 9);
        QTest::qWait(3000);
        const auto atSteady = m_providers->primary->stats().chat;
        QElapsedTimer steady;
        steady.start();
        QTest::qWait(12000);
        load.stop();
        const double steadySeconds = steady.elapsed() / 1000.0;
        const auto atEnd = m_providers->primary->stats().chat;
        QTRY_VERIFY_WITH_TIMEOUT(load.idle(), 30000);
        const double seconds = elapsed.elapsed() / 1000.0;
        const double admitted = double(m_providers->primary->stats().chat - before);
        const double steadyAdmitted = double(atEnd - atSteady);
        const double steadyAllowed = kPerMinute / 60.0 * steadySeconds;
        const double allowed = kBurst + kPerMinute / 60.0 * seconds + kInstances * FleetAllowance::chunkFor(kPerMinute, 4);
        qInfo("%.0f admitted in %.1f s (at most %.0f), %.0f in %.1f s of steady load (limit %.0f); %d answered, %d refused, %d failed",
              admitted, seconds, allowed, steadyAdmitted, steadySeconds, steadyAllowed, load.answered, load.refused, load.failed);
        QVERIFY2(load.refused > 0, "the load never exceeded the limit: the test proves nothing");
        QVERIFY2(load.failed == 0, qPrintable(load.failures.join('\n')));
        QVERIFY2(admitted <= allowed, qPrintable(QStringLiteral("%1 of %2").arg(admitted).arg(allowed)));
        QVERIFY2(steadyAdmitted <= steadyAllowed * 1.05 && steadyAdmitted >= steadyAllowed * 0.95,
                 qPrintable(QStringLiteral("%1 of %2").arg(steadyAdmitted).arg(steadyAllowed)));
    }

    // A route's hard stop, reached by the fleet's spend, stops every instance.
    void aBudgetsHardStopAppliesToAllThree()
    {
        startFleet({}, [](EngineConfig &config) {
            config.prices = {ModelPrice{QStringLiteral("gpt-4o"), 0.0, 1000.0}}; // 24 completion tokens: $0.024 a request
            config.budgets = {BudgetConfig{QStringLiteral("gpt-4o"), BudgetPeriod::Day, 0.0, 0.1}};
        });
        for (int n = 0; n < 5; ++n)
            QCOMPARE(chatThroughBalancer(), 200); // $0.12 over the three
        for (int i = 0; i < kInstances; ++i)
            QTRY_COMPARE_WITH_TIMEOUT(chatWith(i), 429, 3000);
    }

    // Redis killed mid-drill: not one client request fails, every instance says it is on its own
    // within a second, and when Redis is back they are one fleet again.
    void killingRedisMidDrillCostsNothing()
    {
        startFleet({}, [](EngineConfig &config) {
            config.providers[0].requestsPerMinute = 60000; // a shared limit in use when Redis goes
            config.prices = {ModelPrice{QStringLiteral("gpt-4o"), 0.0, 1.0}};
            config.budgets = {BudgetConfig{QStringLiteral("gpt-4o"), BudgetPeriod::Day, 0.0, 1000.0}};
        });
        Load load(m_balancer.port(), 6);
        QTest::qWait(1000);
        m_redis.kill();
        QElapsedTimer sinceKill;
        sinceKill.start();
        for (int i = 0; i < kInstances; ++i)
            QTRY_VERIFY_WITH_TIMEOUT(!fleetSeenBy(i).value(QStringLiteral("connected")).toBool(), 1000);
        qInfo("every instance on its own %lld ms after Redis went", sinceKill.elapsed());
        QTest::qWait(2000);
        const int answeredAlone = load.answered;
        QString error;
        QVERIFY2(m_redis.start({}, &error), qPrintable(error));
        for (int i = 0; i < kInstances; ++i)
            QTRY_VERIFY_WITH_TIMEOUT(fleetSeenBy(i).value(QStringLiteral("connected")).toBool(), 7000);
        QTRY_COMPARE_WITH_TIMEOUT(fleetSeenBy(0).value(QStringLiteral("instances")).toArray().size(), kInstances, 3000);
        QTest::qWait(1000);
        load.stop();
        QTRY_VERIFY_WITH_TIMEOUT(load.idle(), 30000);
        qInfo("%d answered (%d before Redis came back), %d refused, %d failed", load.answered, answeredAlone, load.refused, load.failed);
        QVERIFY2(load.failed == 0 && load.refused == 0, qPrintable(load.failures.join('\n')));
        QVERIFY(answeredAlone > 0);
        for (auto &instance : m_fleet) { // each said so in its log, both ways
            QVERIFY2(instance->log().contains(QStringLiteral("serving on this instance's own state, reconnecting")), qPrintable(instance->log()));
            QVERIFY2(instance->log().contains(QStringLiteral("is back; fleet state shared again")), qPrintable(instance->log()));
        }
    }
};

QTEST_MAIN(tst_FleetProcesses)
#include "tst_FleetProcesses.moc"
