// The admin API and /metrics on the proxy port, end to end: a real Gateway on a loopback port with
// the simulator's fake providers behind it and a real HTTP client in front. Every endpoint, the
// access rule, channel actions seen in the state and at the provider, reload, and bad input.
#include "FakeProviderSpecs.h"
#include "HeadlessHost.h"
#include "ProxyClient.h"
#include "ProxyUnderTest.h"
#include "RawHttp.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>

// The format checker is shared with tests/unit/telemetry; integration tests build from one file each.
#include "../unit/telemetry/PrometheusTextChecker.cpp"

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

QJsonObject channelById(const QJsonArray &channels, int id)
{
    for (const QJsonValue &c : channels)
        if (c.toObject().value("channelId").toInt() == id)
            return c.toObject();
    return {};
}

} // namespace

class tst_AdminApi : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{4321};
    ProxyUnderTest m_proxy{m_clock, m_random};
    ProxyClient m_client;
    QByteArray m_token; // sent as a bearer token when set

    void startAll(std::vector<FaultSpec> primaryFaults = {}, std::function<void(EngineConfig &)> tweak = {})
    {
        QString error;
        QVERIFY2(m_proxy.start(fakeProviderSpec("primary", std::move(primaryFaults)), fakeProviderSpec("fallback"),
                               [&](EngineConfig &config) {
                                   // Scheduled heartbeats only at start: the probe test counts the one it asks for.
                                   config.probe.interval = 3600s;
                                   if (tweak)
                                       tweak(config);
                               },
                               &error),
                 qPrintable(error));
    }

    Reply request(const QByteArray &method, const QString &path, const QByteArray &body = {}, quint16 port = 0)
    {
        RawHeaders headers;
        if (!m_token.isEmpty())
            headers.append({"Authorization", "Bearer " + m_token});
        return m_client.request(port ? port : m_proxy.gateway->port(), method, path, body, headers);
    }

    // The state the admin API reports for one channel.
    QJsonObject channel(int id) { return channelById(request("GET", "/admin/channels").json().value("data").toArray(), id); }

private slots:
    void cleanup()
    {
        m_proxy.stop();
        m_token.clear();
    }

    void channelsListsEveryChannelWithItsState()
    {
        startAll();
        const Reply reply = request("GET", "/admin/channels");
        QCOMPARE(reply.status, 200);
        QVERIFY(reply.headers.value("content-type").startsWith("application/json"));
        const QJsonArray data = reply.json().value("data").toArray();
        QCOMPARE(data.size(), 2);
        const QJsonObject a = channelById(data, 1);
        QCOMPARE(a.value("name").toString(), QStringLiteral("gpt-4o/A"));
        QCOMPARE(a.value("provider").toString(), QStringLiteral("primary"));
        QCOMPARE(a.value("routes").toArray(), QJsonArray{"gpt-4o"});
        QCOMPARE(a.value("breaker").toString(), QStringLiteral("closed"));
        QCOMPARE(a.value("pool").toString(), QStringLiteral("active"));
        QCOMPARE(a.value("keysTotal").toInt(), 1);
        for (const char *field : {"score", "errorRate30s", "errorRate5m", "p95Ms", "ttftP95Ms", "inFlight", "keysHealthy", "state"})
            QVERIFY2(a.contains(field), field);
        QVERIFY(!reply.body.contains("sk-primary-0001")); // keys are counted, never shown

        const Reply one = request("GET", "/admin/channels/2");
        QCOMPARE(one.status, 200);
        QCOMPARE(one.json().value("name").toString(), QStringLiteral("gpt-4o/B"));
    }

    void tokenIsRequiredWhenSet()
    {
        startAll({}, [](EngineConfig &c) { c.proxy.localToken = QStringLiteral("local-secret"); });
        for (const char *path : {"/admin/channels", "/admin/events", "/admin/snapshot", "/metrics", "/admin/nonexistent"}) {
            const Reply none = request("GET", path);
            QCOMPARE(none.status, 401);
            QCOMPARE(none.errorCode(), QStringLiteral("invalid_api_key"));
        }
        m_token = "wrong";
        QCOMPARE(request("GET", "/admin/channels").status, 401);
        QCOMPARE(request("POST", "/admin/channels/1/eject").status, 401);
        QCOMPARE(m_proxy.gateway->snapshot().channels.front().pool, PoolState::Active); // the refused eject did nothing
        m_token = "local-secret";
        QCOMPARE(request("GET", "/admin/channels").status, 200);
        QCOMPARE(request("GET", "/metrics").status, 200);
    }

    void ejectThenReadmit()
    {
        startAll();
        const Reply ejected = request("POST", "/admin/channels/1/eject");
        QCOMPARE(ejected.status, 200);
        QCOMPARE(ejected.json().value("pool").toString(), QStringLiteral("drained"));
        QCOMPARE(channel(1).value("state").toString(), QStringLiteral("drained"));
        QCOMPARE(channel(1).value("routable").toBool(), false);

        // Traffic now goes to the other channel.
        const Reply chat = request("POST", "/v1/chat/completions", chatBody(false));
        QCOMPARE(chat.status, 200);
        QCOMPARE(chat.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/B"));
        QCOMPARE(m_proxy.primary->stats().chat, 0u);

        const Reply readmitted = request("POST", "/admin/channels/1/readmit");
        QCOMPARE(readmitted.status, 200);
        QCOMPARE(readmitted.json().value("pool").toString(), QStringLiteral("active"));
        QCOMPARE(channel(1).value("routable").toBool(), true);
        QCOMPARE(request("POST", "/v1/chat/completions", chatBody(false)).headers.value("x-switchboard-channel"), QByteArray("gpt-4o/A"));

        // Both changes are in the event log, in order.
        const QJsonArray events = request("GET", "/admin/events").json().value("data").toArray();
        QStringList pool;
        for (const QJsonValue &e : events)
            if (e.toObject().value("type") == "pool" && e.toObject().value("channelId").toInt() == 1)
                pool << e.toObject().value("to").toString();
        QCOMPARE(pool, (QStringList{"drained", "active"}));
    }

    void probeSendsAHeartbeatToTheProvider()
    {
        startAll();
        // The scheduled heartbeats probe each idle channel once at the first tick; let that pass.
        QTRY_VERIFY_WITH_TIMEOUT(m_proxy.gateway->snapshot().prober.started >= 2, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy.gateway->snapshot().prober.succeeded + m_proxy.gateway->snapshot().prober.failed,
                                  m_proxy.gateway->snapshot().prober.started, 10000);
        const quint64 before = m_proxy.fallback->stats().probes;
        const std::uint64_t scheduled = m_proxy.gateway->snapshot().prober.started;

        const Reply reply = request("POST", "/admin/channels/2/probe");
        QCOMPARE(reply.status, 202);
        QCOMPARE(reply.json().value("probe").toString(), QStringLiteral("started"));
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy.fallback->stats().probes, before + 1, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy.gateway->manualProbeStats().succeeded, 1u, 10000);
        QCOMPARE(m_proxy.gateway->snapshot().prober.started, scheduled); // it was ours, not a scheduled one
        QCOMPARE(m_proxy.primary->stats().probes, m_proxy.gateway->snapshot().prober.started - 1); // channel 1 only scheduled
    }

    void probeNowWorksOnADrainedChannel()
    {
        // A drained channel gets no scheduled heartbeats: "probe now" is how an operator checks it first.
        startAll();
        QCOMPARE(request("POST", "/admin/channels/1/eject").status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy.gateway->snapshot().prober.succeeded + m_proxy.gateway->snapshot().prober.failed,
                                  m_proxy.gateway->snapshot().prober.started, 10000);
        const quint64 before = m_proxy.primary->stats().probes;
        QVERIFY(m_proxy.gateway->probeNow(1));
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy.primary->stats().probes, before + 1, 10000);
        QVERIFY(!m_proxy.gateway->probeNow(99));
    }

    void eventsPageAndIncidentsFollowABreakerTrip()
    {
        startAll({always(SimError::Http500)}, [](EngineConfig &c) {
            c.breaker.consecutiveFailures = 2;
            c.breaker.minCallsInWindow = 100; // only the consecutive trigger, so the trip point is known
        });
        for (int i = 0; i < 3; ++i)
            QCOMPARE(request("POST", "/v1/chat/completions", chatBody(false)).status, 200); // failed over to B
        QTRY_COMPARE_WITH_TIMEOUT(channel(1).value("breaker").toString(), QStringLiteral("open"), 10000);

        const QJsonObject page = request("GET", "/admin/events?since=0&limit=1000").json();
        const QJsonArray events = page.value("data").toArray();
        QVERIFY(!events.isEmpty());
        bool sawTrip = false;
        int failovers = 0;
        qint64 lastId = 0;
        for (const QJsonValue &v : events) {
            const QJsonObject e = v.toObject();
            QVERIFY(e.value("id").toInteger() > lastId); // oldest first, numbered
            lastId = e.value("id").toInteger();
            sawTrip |= e.value("type") == "breaker" && e.value("to") == "open" && e.value("channelId").toInt() == 1;
            failovers += e.value("type") == "failover";
        }
        QVERIFY(sawTrip);
        QVERIFY(failovers >= 2);
        QCOMPARE(page.value("lastId").toInteger(), lastId);

        // Paging: nothing newer than the last id; limit keeps the newest.
        QCOMPARE(request("GET", QStringLiteral("/admin/events?since=%1").arg(lastId)).json().value("data").toArray().size(), 0);
        const QJsonArray newest = request("GET", "/admin/events?limit=1").json().value("data").toArray();
        QCOMPARE(newest.size(), 1);
        QCOMPARE(newest.first().toObject().value("id").toInteger(), lastId);

        const QJsonArray incidents = request("GET", "/admin/incidents").json().value("data").toArray();
        QCOMPARE(incidents.size(), 1);
        const QJsonObject incident = incidents.first().toObject();
        QCOMPARE(incident.value("channelId").toInt(), 1);
        QCOMPARE(incident.value("open").toBool(), true);
        QCOMPARE(incident.value("breaker").toString(), QStringLiteral("open"));
        QVERIFY(!incident.value("cause").toString().isEmpty());
        QVERIFY(incident.value("failovers").toInt() >= 1); // the second request failed over after the trip

        const Reply bad = request("GET", "/admin/events?since=abc");
        QCOMPARE(bad.status, 400);
        QCOMPARE(bad.json().value("error").toObject().value("param").toString(), QStringLiteral("since"));
        QCOMPARE(request("GET", "/admin/events?limit=-1").status, 400);
    }

    void snapshotAndMetricsAfterTraffic()
    {
        startAll({always(SimError::Http503)});
        for (int i = 0; i < 3; ++i)
            QCOMPARE(request("POST", "/v1/chat/completions", chatBody(i % 2 == 1)).status, 200);

        const Reply snap = request("GET", "/admin/snapshot");
        QCOMPARE(snap.status, 200);
        const QJsonObject s = snap.json();
        QCOMPARE(s.value("requests").toInt(), 3);
        QCOMPARE(s.value("succeeded").toInt(), 3);
        QCOMPARE(s.value("failovers").toInt(), 3);
        QCOMPARE(s.value("channels").toArray().size(), 2);
        QVERIFY(s.contains("router") && s.contains("server") && s.contains("prober") && s.contains("retryBudget"));
        QVERIFY(s.value("baseUrl").toString().contains(QString::number(m_proxy.gateway->port())));

        const Reply metrics = request("GET", "/metrics");
        QCOMPARE(metrics.status, 200);
        QVERIFY(metrics.headers.value("content-type").startsWith("text/plain; version=0.0.4"));
        PrometheusTextChecker checker;
        const QStringList errors = checker.check(metrics.body);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n') + "\n" + metrics.body));
        const auto &m = checker.samples();
        auto value = [&](const QString &name, QMap<QString, QString> labels) {
            const QString key = PrometheusTextChecker::key(name, labels);
            if (!m.contains(key))
                qWarning().noquote() << "missing" << key;
            return m.value(key, -1);
        };
        const QMap<QString, QString> channelB{{"channel", "gpt-4o/B"}, {"channel_id", "2"}, {"provider", "fallback"}};
        const QMap<QString, QString> channelA{{"channel", "gpt-4o/A"}, {"channel_id", "1"}, {"provider", "primary"}};
        QCOMPARE(value("switchboard_requests_total", {{"route", "gpt-4o"}, {"channel", "gpt-4o/B"}, {"channel_id", "2"},
                                                      {"provider", "fallback"}, {"status", "ok"}, {"outcome", "success"}}),
                 3.0);
        QCOMPARE(value("switchboard_attempts_total", {{"route", "gpt-4o"}, {"channel", "gpt-4o/A"}, {"channel_id", "1"},
                                                      {"provider", "primary"}, {"outcome", "provider_down"}}),
                 3.0);
        QCOMPARE(value("switchboard_failovers_total", {{"route", "gpt-4o"}}), 3.0);
        QCOMPARE(value("switchboard_retries_total", {{"route", "gpt-4o"}}), 3.0);
        QCOMPARE(value("switchboard_retry_budget_refusals_total", {}), 0.0);
        QCOMPARE(checker.typeOf("switchboard_channel_request_duration_seconds"), QStringLiteral("histogram"));
        QCOMPARE(value("switchboard_channel_request_duration_seconds_count", channelA), 3.0);
        QCOMPARE(value("switchboard_channel_request_duration_seconds_count", channelB), 3.0);
        const double ttftCount = value("switchboard_channel_ttft_seconds_count", channelB);
        QVERIFY2(ttftCount >= 1 && ttftCount <= 3, qPrintable(QString::number(ttftCount))); // at least the streamed one
        QCOMPARE(value("switchboard_channel_ttft_seconds_count", channelA), 0.0);
        auto withState = [](QMap<QString, QString> labels, const QString &state) {
            labels.insert("state", state);
            return labels;
        };
        QCOMPARE(value("switchboard_channel_circuit_state", withState(channelB, "closed")), 1.0);
        QCOMPARE(value("switchboard_channel_circuit_state", withState(channelB, "open")), 0.0);
        QCOMPARE(value("switchboard_channel_pool_state", withState(channelB, "active")), 1.0);
        QVERIFY(value("switchboard_channel_health_score", channelB) > 0);
        QCOMPARE(value("switchboard_requests_in_flight", {}), 0.0);
    }

    void badPathsMethodsAndIdsAnswerInOpenAiErrorFormat_data()
    {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("status");
        QTest::addRow("unknown channel") << QByteArray("GET") << "/admin/channels/99" << 404;
        QTest::addRow("unknown channel action target") << QByteArray("POST") << "/admin/channels/99/eject" << 404;
        QTest::addRow("id not a number") << QByteArray("GET") << "/admin/channels/abc" << 404;
        QTest::addRow("signed id") << QByteArray("GET") << "/admin/channels/-1" << 404;
        QTest::addRow("huge id") << QByteArray("GET") << "/admin/channels/99999999999999" << 404;
        QTest::addRow("unknown action") << QByteArray("POST") << "/admin/channels/1/explode" << 404;
        QTest::addRow("too deep") << QByteArray("POST") << "/admin/channels/1/eject/now" << 404;
        QTest::addRow("trailing slash") << QByteArray("GET") << "/admin/channels/" << 404;
        QTest::addRow("double slash") << QByteArray("GET") << "/admin//channels" << 404;
        QTest::addRow("escaped dots") << QByteArray("GET") << "/admin/%2e%2e/v1/models" << 404;
        QTest::addRow("bare admin") << QByteArray("GET") << "/admin" << 404;
        QTest::addRow("unknown resource") << QByteArray("GET") << "/admin/keys" << 404;
        QTest::addRow("delete channels") << QByteArray("DELETE") << "/admin/channels" << 405;
        QTest::addRow("GET an action") << QByteArray("GET") << "/admin/channels/1/eject" << 405;
        QTest::addRow("POST metrics") << QByteArray("POST") << "/metrics" << 405;
        QTest::addRow("GET reload") << QByteArray("GET") << "/admin/reload" << 405;
        QTest::addRow("POST snapshot") << QByteArray("POST") << "/admin/snapshot" << 405;
    }

    void badPathsMethodsAndIdsAnswerInOpenAiErrorFormat()
    {
        QFETCH(QByteArray, method);
        QFETCH(QString, path);
        QFETCH(int, status);
        if (!m_proxy.gateway)
            startAll();
        // A raw socket, so the path reaches the server exactly as written (no client normalisation).
        const QByteArray raw = exchangeUntilClose(m_proxy.gateway->port(),
                                                  rawRequest(method, path.toUtf8(), {}, "Content-Length: 0\r\nConnection: close\r\n"));
        const QByteArray statusLine = raw.left(raw.indexOf("\r\n"));
        QVERIFY2(statusLine.startsWith("HTTP/1.1 " + QByteArray::number(status)), raw.constData());
        const QJsonObject error = QJsonDocument::fromJson(raw.mid(raw.indexOf("\r\n\r\n") + 4)).object().value("error").toObject();
        QVERIFY2(!error.value("message").toString().isEmpty(), raw.constData());
        QCOMPARE(error.value("type").toString(), QStringLiteral("invalid_request_error"));
        if (status == 405)
            QVERIFY(raw.toLower().contains("\r\nallow: "));
        QCOMPARE(m_proxy.gateway->snapshot().channels.front().pool, PoolState::Active); // nothing happened
    }

    void reloadWithoutAStoreSaysSo()
    {
        startAll();
        const Reply reply = request("POST", "/admin/reload");
        QCOMPARE(reply.status, 500);
        QCOMPARE(reply.errorCode(), QStringLiteral("reload_failed"));
    }

    void reloadRereadsTheConfigurationFile()
    {
        // A headless instance started with --config: reload reads the file again and applies it live.
        QString error;
        QVERIFY2(m_proxy.startProviders(fakeProviderSpec("primary"), fakeProviderSpec("fallback"), &error), qPrintable(error));
        QTemporaryDir dir;
        const EngineHost::Options options = headlessOptions(dir.path());
        auto config = m_proxy.config();
        QVERIFY(writeConfigFile(options.configPath, *config));

        SplitMixRandom random(7);
        EngineHost host(m_clock, random);
        QVERIFY2(host.start(options, &error), qPrintable(error));
        const quint16 port = host.gateway()->port();
        auto models = [&] {
            QStringList ids;
            for (const QJsonValue &m : request("GET", "/v1/models", {}, port).json().value("data").toArray())
                ids << m.toObject().value("id").toString();
            return ids;
        };
        QCOMPARE(models(), QStringList{"gpt-4o"});

        RouteConfig mini = config->routes.front();
        mini.id = 2;
        mini.logicalModel = QStringLiteral("gpt-4o-mini");
        config->routes.push_back(mini);
        QVERIFY(writeConfigFile(options.configPath, *config));
        const Reply reloaded = request("POST", "/admin/reload", {}, port);
        QCOMPARE(reloaded.status, 200);
        QVERIFY(reloaded.json().value("message").toString().contains("switchboard.json"));
        QCOMPARE(models(), (QStringList{"gpt-4o", "gpt-4o-mini"}));

        // A broken file is refused with the reason, and the running configuration stays.
        {
            QFile out(options.configPath);
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write("{ not json");
        }
        const Reply refused = request("POST", "/admin/reload", {}, port);
        QCOMPARE(refused.status, 500);
        QVERIFY(refused.json().value("error").toObject().value("message").toString().contains("unchanged"));
        QCOMPARE(models(), (QStringList{"gpt-4o", "gpt-4o-mini"}));
        host.stop(500ms);
    }
};

QTEST_GUILESS_MAIN(tst_AdminApi)
#include "tst_AdminApi.moc"
