// Provider-level events (key cool-downs and disables, bucket refusals) reach the history: an
// EngineHost on a real SQLite file, the simulator's providers behind it. A key that gets a 429 is recorded cooling down (named by label and masked form, never the secret); a key the
// provider rejects is recorded disabled; a provider's own rate limit records its first refusal, once.
// The same events are lines of the log an operator reads (control/OperatorLog), keys masked there too.
#include "common/Logging.h"
#include "common/SecretMask.h"
#include "sim/FakeProvider.h"
#include "FakeProviderSpecs.h"
#include "HeadlessHost.h"
#include "ProxyClient.h"
#include "store/HistoryReader.h"

#include <QtTest>
#include <QTemporaryDir>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

const QString kRateLimitedSecret = QStringLiteral("sk-ratelimited-secret-0001");
const QString kRejectedSecret = QStringLiteral("sk-rejected-secret-0002");

ProviderConfig provider(int id, const QString &name, const QString &baseUrl, std::vector<ApiKeyConfig> keys)
{
    ProviderConfig p;
    p.id = id;
    p.name = name;
    p.baseUrl = baseUrl;
    p.primaryTimeout = 3s;
    p.fallbackTimeout = 3s;
    p.keys = std::move(keys);
    return p;
}

} // namespace

class tst_ProviderEvents : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{11};
    ProxyClient m_client;

    int chat(EngineHost &host, const QString &model)
    {
        return m_client.postChat(host.gateway()->port(), chatBody(false, model)).status;
    }

private slots:
    void keyAndBucketEventsAreInTheHistory()
    {
        LoggingOptions logging;
        logging.toStderr = false;
        setupLogging(logging); // info, as the headless service logs
        ScenarioClock scenarioClock(m_clock, 1.0);
        auto spec = [](const QString &name, std::vector<FaultSpec> faults) {
            ProviderSpec s = fakeProviderSpec(name, std::move(faults));
            s.models = {QStringLiteral("up-model")};
            return s;
        };
        FakeProvider limited(spec(QStringLiteral("limited"), {always(SimError::Http429RetryAfter)}), scenarioClock, m_random);
        ProviderSpec rejectingSpec = spec(QStringLiteral("rejecting"), {});
        rejectingSpec.keys = {KeySpec{"sk-the-only-key-it-knows", 0}}; // ours is unknown to it: 401
        FakeProvider rejecting(rejectingSpec, scenarioClock, m_random);
        FakeProvider healthy(spec(QStringLiteral("healthy"), {}), scenarioClock, m_random);
        QString error;
        for (FakeProvider *p : {&limited, &rejecting, &healthy})
            QVERIFY2(p->start(&error), qPrintable(error));

        EngineConfig config;
        config.proxy.listenPort = 0;
        config.retry.baseDelay = 1ms;
        config.retry.jitter = 1ms;
        // No request is held for a key or a bucket here, so each later one finds them as the first
        // left them (held, it would meet the limited key's next 429 once its rest ended: news again).
        config.retry.maxClientWait = 0ms;
        ProviderConfig bucketed = provider(3, QStringLiteral("healthy"), healthy.baseUrl(),
                                           {ApiKeyConfig{3, QStringLiteral("ok"), QStringLiteral("sk-healthy-0003"), true, {}}});
        bucketed.requestsPerMinute = 6; // a burst of one: the second request inside ten seconds is refused
        bucketed.burst = 1;
        config.providers = {
            provider(1, QStringLiteral("limited"), limited.baseUrl(), {ApiKeyConfig{1, QStringLiteral("team"), kRateLimitedSecret, true, {}}}),
            provider(2, QStringLiteral("rejecting"), rejecting.baseUrl(), {ApiKeyConfig{2, QStringLiteral("old"), kRejectedSecret, true, {}}}),
            bucketed};
        config.channels = {ChannelConfig{1, QStringLiteral("m/limited"), 1, QStringLiteral("up-model"), 1.0, true, {}, {}, {}},
                           ChannelConfig{2, QStringLiteral("m/rejecting"), 2, QStringLiteral("up-model"), 1.0, true, {}, {}, {}},
                           ChannelConfig{3, QStringLiteral("m/healthy"), 3, QStringLiteral("up-model"), 1.0, true, {}, {}, {}}};
        RouteConfig route;
        route.id = 1;
        route.logicalModel = QStringLiteral("m");
        route.strategy = RoutingStrategy::Priority;
        route.channelIds = {1, 2, 3};
        config.routes = {route};
        QVERIFY2(config.validate().isEmpty(), qPrintable(config.validate().join(' ')));

        QTemporaryDir dir;
        const EngineHost::Options options = headlessOptions(dir.path());
        QVERIFY(writeConfigFile(options.configPath, config));
        const qint64 from = m_clock.wallMillis();
        {
            EngineHost host(m_clock, m_random);
            QVERIFY2(host.start(options, &error), qPrintable(error));
            // The first request meets the 429 (key cools), the 401 (key disabled) and is answered by the
            // third provider; the second finds both keys out and the third provider's bucket empty.
            QCOMPARE(chat(host, QStringLiteral("m")), 200);
            QVERIFY(chat(host, QStringLiteral("m")) != 200);
            QCOMPARE(chat(host, QStringLiteral("m")), chat(host, QStringLiteral("m"))); // refusals stay quiet
            host.stop(500ms);
        }

        HistoryReader reader(options.dbPath);
        QVERIFY2(reader.open(&error), qPrintable(error));
        const auto cooling = reader.events(from, std::numeric_limits<qint64>::max(), EventKind::KeyCooldown);
        QCOMPARE(cooling.size(), std::size_t(1)); // the key was cooling for the later requests: no news
        QCOMPARE(cooling.front().providerId, 1);
        QCOMPARE(cooling.front().keyId, 1);
        QVERIFY2(cooling.front().message.contains(QStringLiteral("limited key 'team'")), qPrintable(cooling.front().message));
        QVERIFY2(cooling.front().message.contains(QStringLiteral("429")), qPrintable(cooling.front().message));

        const auto disabled = reader.events(from, std::numeric_limits<qint64>::max(), EventKind::KeyDisabled);
        QCOMPARE(disabled.size(), std::size_t(1));
        QCOMPARE(disabled.front().providerId, 2);
        QCOMPARE(disabled.front().keyId, 2);

        const auto refusals = reader.events(from, std::numeric_limits<qint64>::max(), EventKind::BucketRefusal);
        QCOMPARE(refusals.size(), std::size_t(1)); // one event when the limit starts refusing, not one per request
        QCOMPARE(refusals.front().providerId, 3);
        QVERIFY2(refusals.front().message.contains(QStringLiteral("6 requests/min")), qPrintable(refusals.front().message));

        for (const auto &events : {cooling, disabled, refusals})
            for (const EventRecord &e : events) {
                QVERIFY2(!e.message.contains(kRateLimitedSecret) && !e.message.contains(kRejectedSecret), qPrintable(e.message));
                QCOMPARE(e.channelId, 0);
            }

        const QString log = recentLogLines(2000).join(QLatin1Char('\n'));
        QVERIFY2(log.contains(QStringLiteral("keys: limited key 'team' (%1) got a 429").arg(maskSecret(kRateLimitedSecret))), qPrintable(log));
        QVERIFY2(log.contains(QStringLiteral("keys: rejecting key 'old' (%1) disabled: ").arg(maskSecret(kRejectedSecret))), qPrintable(log));
        QVERIFY2(log.contains(QStringLiteral("rate limit: healthy's rate limit (6 requests/min) refused a request")), qPrintable(log));
        QVERIFY2(log.contains(QStringLiteral("route m: failover from m/limited to m/rejecting (RETRYABLE_RATE_LIMIT, HTTP 429)")),
                 qPrintable(log));
        QVERIFY2(!log.contains(kRateLimitedSecret) && !log.contains(kRejectedSecret), "a secret reached the log");
    }
};

QTEST_GUILESS_MAIN(tst_ProviderEvents)
#include "tst_ProviderEvents.moc"
