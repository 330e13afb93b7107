// The proxy end to end: a real Gateway on a loopback port, real fake providers (switchboard-sim's
// FakeProvider) behind it, and a real HTTP client in front. Each case is one of the promises the
// proxy makes to a caller: answers in OpenAI's format, fails over invisibly before the first byte,
// never ends a broken stream silently, and refuses bad input with the right status.
#include "FakeProvider.h"
#include "engine/Gateway.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTcpServer>
#include <QTcpSocket>

using namespace sb;
using namespace sb::sim;
using namespace std::chrono_literals;

namespace {

struct Reply {
    int status = 0;
    QByteArray body;
    QHash<QByteArray, QByteArray> headers; // lower-case names
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
};

ProviderSpec providerSpec(const QString &name, std::vector<FaultSpec> faults = {})
{
    ProviderSpec spec;
    spec.name = name;
    spec.dialect = QStringLiteral("openai_compat");
    spec.models = {QStringLiteral("gpt-4o")};
    spec.ttftMs = Distribution::constant(5);
    spec.tokensPerSecond = Distribution::constant(2000);
    spec.completionTokens = 12;
    spec.faults = std::move(faults);
    return spec;
}

FaultSpec always(SimError error)
{
    FaultSpec fault;
    fault.type = FaultSpec::Type::Errors;
    fault.from = 0;
    fault.probability = 1.0;
    fault.mix = {ErrorMixEntry{error, 1.0}};
    return fault;
}

std::shared_ptr<EngineConfig> twoChannelConfig(const QString &primaryUrl, const QString &fallbackUrl)
{
    auto config = std::make_shared<EngineConfig>();
    config->proxy.listenPort = 0;
    ProviderConfig a;
    a.id = 1;
    a.name = QStringLiteral("primary");
    a.dialect = QStringLiteral("openai_compat");
    a.baseUrl = primaryUrl;
    a.primaryTimeout = 3s;
    a.fallbackTimeout = 3s;
    a.domain.account = QStringLiteral("acct-a");
    a.keys = {ApiKeyConfig{1, QStringLiteral("primary key"), QStringLiteral("sk-primary-0001"), true, {}}};
    ProviderConfig b = a;
    b.id = 2;
    b.name = QStringLiteral("fallback");
    b.baseUrl = fallbackUrl;
    b.domain.account = QStringLiteral("acct-b");
    b.keys = {ApiKeyConfig{2, QStringLiteral("fallback key"), QStringLiteral("sk-fallback-0002"), true, {}}};
    config->providers = {a, b};
    ChannelConfig ca;
    ca.id = 1;
    ca.name = QStringLiteral("gpt-4o/A");
    ca.providerId = 1;
    ca.upstreamModel = QStringLiteral("gpt-4o");
    ChannelConfig cb = ca;
    cb.id = 2;
    cb.name = QStringLiteral("gpt-4o/B");
    cb.providerId = 2;
    config->channels = {ca, cb};
    RouteConfig route;
    route.id = 1;
    route.logicalModel = QStringLiteral("gpt-4o");
    route.strategy = RoutingStrategy::Priority; // A first, so every test knows which channel is primary
    route.channelIds = {1, 2};
    config->routes = {route};
    config->retry.baseDelay = 10ms;
    config->retry.jitter = 5ms;
    return config;
}

QByteArray chatBody(bool stream, const QString &model = QStringLiteral("gpt-4o"))
{
    QJsonObject body{{"model", model},
                     {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Say something."}}}},
                     {"stream", stream}};
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

// The text an OpenAI SSE stream carries, and whether it ended with [DONE].
struct StreamText {
    QString content;
    bool done = false;
    int chunks = 0;
    QJsonObject error;
};

StreamText parseStream(const QByteArray &body)
{
    StreamText out;
    for (const QByteArray &event : body.split('\n')) {
        if (!event.startsWith("data: "))
            continue;
        const QByteArray data = event.mid(6).trimmed();
        if (data == "[DONE]") {
            out.done = true;
            continue;
        }
        const QJsonObject chunk = QJsonDocument::fromJson(data).object();
        if (chunk.contains("error")) {
            out.error = chunk.value("error").toObject();
            continue;
        }
        ++out.chunks;
        for (const QJsonValue &choice : chunk.value("choices").toArray())
            out.content += choice.toObject().value("delta").toObject().value("content").toString();
    }
    return out;
}

} // namespace

class tst_ProxyEndToEnd : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{1234};
    std::unique_ptr<ScenarioClock> m_scenarioClock;
    std::unique_ptr<FakeProvider> m_primary;
    std::unique_ptr<FakeProvider> m_fallback;
    std::unique_ptr<Gateway> m_gateway;
    QNetworkAccessManager m_http;

    void startAll(std::vector<FaultSpec> primaryFaults, std::vector<FaultSpec> fallbackFaults = {},
                  std::function<void(EngineConfig &)> tweak = {})
    {
        m_scenarioClock = std::make_unique<ScenarioClock>(m_clock, 1.0);
        m_primary = std::make_unique<FakeProvider>(providerSpec("primary", std::move(primaryFaults)), *m_scenarioClock, m_random);
        m_fallback = std::make_unique<FakeProvider>(providerSpec("fallback", std::move(fallbackFaults)), *m_scenarioClock, m_random);
        QString error;
        QVERIFY2(m_primary->start(&error), qPrintable(error));
        QVERIFY2(m_fallback->start(&error), qPrintable(error));
        auto config = twoChannelConfig(m_primary->baseUrl(), m_fallback->baseUrl());
        if (tweak)
            tweak(*config);
        QVERIFY(config->validate().isEmpty());
        m_gateway = std::make_unique<Gateway>(m_clock, m_random, config);
        QVERIFY2(m_gateway->start(&error), qPrintable(error));
        QVERIFY(m_gateway->port() != 0);
    }

    Reply request(const QByteArray &method, const QString &path, const QByteArray &body = {},
                  QList<QPair<QByteArray, QByteArray>> headers = {})
    {
        QNetworkRequest req(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_gateway->port()).arg(path)));
        req.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        for (const auto &h : headers)
            req.setRawHeader(h.first, h.second);
        QNetworkReply *reply = m_http.sendCustomRequest(req, method, body);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(20000);
        Reply out;
        out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        out.body = reply->readAll();
        for (const auto &pair : reply->rawHeaderPairs())
            out.headers.insert(pair.first.toLower(), pair.second);
        reply->deleteLater();
        return out;
    }

    Reply chat(bool stream, const QString &model = QStringLiteral("gpt-4o"))
    {
        return request("POST", "/v1/chat/completions", chatBody(stream, model));
    }

private slots:
    void cleanup()
    {
        if (m_gateway)
            m_gateway->stop(500ms);
        m_gateway.reset();
        m_primary.reset();
        m_fallback.reset();
    }

    void nonStreamAnswerComesFromThePrimary()
    {
        startAll({});
        const Reply reply = chat(false);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/A"));
        QCOMPARE(reply.headers.value("x-switchboard-failover"), QByteArray("false"));
        QCOMPARE(reply.headers.value("x-switchboard-attempts"), QByteArray("1"));
        const QJsonObject json = reply.json();
        QCOMPARE(json.value("object").toString(), QStringLiteral("chat.completion"));
        QCOMPARE(json.value("model").toString(), QStringLiteral("gpt-4o"));
        QVERIFY(!json.value("choices").toArray().first().toObject().value("message").toObject().value("content").toString().isEmpty());
        QCOMPARE(m_primary->stats().chat, 1u);
        QCOMPARE(m_fallback->stats().chat, 0u);
    }

    void streamEndsWithDone()
    {
        startAll({});
        const Reply reply = chat(true);
        QCOMPARE(reply.status, 200);
        QVERIFY(reply.headers.value("content-type").startsWith("text/event-stream"));
        const StreamText text = parseStream(reply.body);
        QVERIFY(text.done);
        QVERIFY(text.chunks > 1);
        QVERIFY(!text.content.isEmpty());
        QVERIFY(text.error.isEmpty());
    }

    void failsOverInvisiblyBeforeTheFirstByte_data()
    {
        QTest::addColumn<int>("error");
        QTest::addColumn<bool>("stream");
        for (bool stream : {false, true}) {
            const char *mode = stream ? "stream" : "non-stream";
            QTest::addRow("500 %s", mode) << int(SimError::Http500) << stream;
            QTest::addRow("503 %s", mode) << int(SimError::Http503) << stream;
            QTest::addRow("429 %s", mode) << int(SimError::Http429RetryAfter) << stream;
            QTest::addRow("rate limit in a 200 body %s", mode) << int(SimError::BodyRateLimit) << stream;
            QTest::addRow("connection reset %s", mode) << int(SimError::ConnectionReset) << stream;
        }
        QTest::addRow("error as the first SSE event") << int(SimError::FirstEventError) << true;
    }

    void failsOverInvisiblyBeforeTheFirstByte()
    {
        QFETCH(int, error);
        QFETCH(bool, stream);
        startAll({always(static_cast<SimError>(error))});
        const Reply reply = chat(stream);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/B"));
        QCOMPARE(reply.headers.value("x-switchboard-failover"), QByteArray("true"));
        QCOMPARE(reply.headers.value("x-switchboard-attempts"), QByteArray("2"));
        if (stream) {
            const StreamText text = parseStream(reply.body);
            QVERIFY(text.done);
            QVERIFY(text.error.isEmpty());
        } else {
            QCOMPARE(reply.json().value("object").toString(), QStringLiteral("chat.completion"));
        }
        QCOMPARE(m_fallback->stats().chat, 1u);
        QTRY_COMPARE(m_gateway->snapshot().failovers, 1u);
    }

    void failsOverWhenNothingListens()
    {
        // A port that was open a moment ago and is closed now: connect refused.
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost));
        const QString deadUrl = QStringLiteral("http://127.0.0.1:%1/v1").arg(closed.serverPort());
        closed.close();
        startAll({}, {}, [&](EngineConfig &config) { config.providers[0].baseUrl = deadUrl; });
        const Reply reply = chat(false);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/B"));
    }

    void aHangingPrimaryTimesOutAndFailsOver()
    {
        startAll({always(SimError::Hang)}, {}, [](EngineConfig &config) {
            config.providers[0].primaryTimeout = 400ms;
        });
        const Reply reply = chat(true);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/B"));
        QVERIFY(parseStream(reply.body).done);
    }

    void aBrokenStreamEndsWithAnErrorEventNeverSilently_data()
    {
        QTest::addColumn<int>("error");
        QTest::addRow("error event mid-stream") << int(SimError::MidStreamError);
        QTest::addRow("stream cut mid-way") << int(SimError::StreamCut);
    }

    void aBrokenStreamEndsWithAnErrorEventNeverSilently()
    {
        QFETCH(int, error);
        startAll({always(static_cast<SimError>(error))});
        const Reply reply = chat(true);
        QCOMPARE(reply.status, 200); // the status line went out with the first chunk
        const StreamText text = parseStream(reply.body);
        QVERIFY2(!text.content.isEmpty(), reply.body.constData()); // part of the answer reached the client …
        QVERIFY(!text.done);                                        // … it was not passed off as complete …
        QVERIFY2(!text.error.isEmpty(), reply.body.constData());    // … and the client was told.
        QCOMPARE(m_fallback->stats().chat, 0u); // bytes had gone out: no failover
        QTRY_COMPARE(m_gateway->snapshot().midStream, 1u);
    }

    void bothChannelsDownGivesA502WithTheReason()
    {
        startAll({always(SimError::Http500)}, {always(SimError::Http503)});
        const Reply reply = chat(false);
        QCOMPARE(reply.status, 502);
        const QJsonObject error = reply.json().value("error").toObject();
        QVERIFY(error.value("message").toString().contains(QStringLiteral("gpt-4o")));
        QCOMPARE(error.value("code").toString(), QStringLiteral("upstream_unavailable"));
    }

    void allRateLimitedGivesA429WithRetryAfter()
    {
        startAll({always(SimError::Http429RetryAfter)}, {always(SimError::Http429RetryAfter)});
        const Reply reply = chat(false);
        QCOMPARE(reply.status, 429);
        QVERIFY(reply.headers.contains("retry-after"));
        QVERIFY(reply.headers.value("retry-after").toInt() >= 1);
        QCOMPARE(reply.json().value("error").toObject().value("type").toString(), QStringLiteral("rate_limit_error"));
    }

    void badInputGetsItsStatusAndTheServerStaysUp_data()
    {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addRow("invalid JSON") << QByteArray("POST") << "/v1/chat/completions" << QByteArray("{\"model\":") << 400;
        QTest::addRow("not an object") << QByteArray("POST") << "/v1/chat/completions" << QByteArray("[1,2]") << 400;
        QTest::addRow("missing messages") << QByteArray("POST") << "/v1/chat/completions" << QByteArray("{\"model\":\"gpt-4o\"}") << 400;
        QTest::addRow("wrong type") << QByteArray("POST") << "/v1/chat/completions"
                                    << QByteArray("{\"model\":\"gpt-4o\",\"messages\":\"hi\"}") << 400;
        QTest::addRow("stream not a boolean") << QByteArray("POST") << "/v1/chat/completions"
                                              << QByteArray("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"stream\":\"yes\"}") << 400;
        QTest::addRow("invalid UTF-8 inside JSON") << QByteArray("POST") << "/v1/chat/completions"
                                                   << QByteArray("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}") << 400;
        QTest::addRow("unknown model") << QByteArray("POST") << "/v1/chat/completions" << chatBody(false, "no-such-model") << 404;
        QTest::addRow("unknown path") << QByteArray("GET") << "/v2/whatever" << QByteArray() << 404;
        QTest::addRow("wrong method") << QByteArray("GET") << "/v1/chat/completions" << QByteArray() << 405;
        QTest::addRow("deeply nested JSON") << QByteArray("POST") << "/v1/chat/completions"
                                            << (QByteArray(5000, '[') + QByteArray(5000, ']')) << 400;
    }

    void badInputGetsItsStatusAndTheServerStaysUp()
    {
        QFETCH(QByteArray, method);
        QFETCH(QString, path);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        startAll({});
        const Reply reply = request(method, path, body);
        QCOMPARE(reply.status, status);
        QVERIFY2(reply.json().value("error").toObject().contains("message"), reply.body.constData());
        QCOMPARE(m_primary->stats().chat, 0u);
        QCOMPARE(chat(false).status, 200); // still up
    }

    void localTokenIsRequiredWhenSet()
    {
        startAll({}, {}, [](EngineConfig &config) { config.proxy.localToken = QStringLiteral("local-secret"); });
        QCOMPARE(chat(false).status, 401);
        const Reply wrong = request("POST", "/v1/chat/completions", chatBody(false), {{"Authorization", "Bearer nope"}});
        QCOMPARE(wrong.status, 401);
        const Reply right = request("POST", "/v1/chat/completions", chatBody(false), {{"Authorization", "Bearer local-secret"}});
        QCOMPARE(right.status, 200);
        QCOMPARE(request("GET", "/healthz").status, 200); // health checks need no token
    }

    void refusesANonLoopbackAddressWithoutAToken()
    {
        ProxyConfig proxy;
        proxy.listenHost = QStringLiteral("0.0.0.0");
        QString error;
        QVERIFY(!listenAddressAllowed(proxy, &error));
        QVERIFY(error.contains(QStringLiteral("local token")));
        proxy.localToken = QStringLiteral("t");
        QVERIFY(listenAddressAllowed(proxy, &error));
        proxy.listenHost = QStringLiteral("127.0.0.1");
        proxy.localToken.clear();
        QVERIFY(listenAddressAllowed(proxy, &error));
    }

    void modelsAndHealth()
    {
        startAll({});
        const Reply models = request("GET", "/v1/models");
        QCOMPARE(models.status, 200);
        const QJsonArray data = models.json().value("data").toArray();
        QCOMPARE(data.size(), 1);
        QCOMPARE(data.first().toObject().value("id").toString(), QStringLiteral("gpt-4o"));
        QCOMPARE(request("GET", "/healthz").status, 200);
    }

    void theProvidersKeyGoesUpstreamNeverTheClients()
    {
        startAll({}, {}, [](EngineConfig &config) { config.proxy.localToken = QStringLiteral("local-secret"); });
        // FakeProvider accepts any key when none is configured, so check what the keyed provider saw:
        // restrict the primary to its own key and send the client's token; a 200 proves the provider's
        // key went upstream (the client's would be rejected).
        m_gateway->stop(100ms);
        m_gateway.reset();
        m_primary.reset();
        ProviderSpec spec = providerSpec("primary");
        spec.keys = {KeySpec{QByteArray("sk-primary-0001"), 0}};
        m_primary = std::make_unique<FakeProvider>(spec, *m_scenarioClock, m_random);
        QString error;
        QVERIFY(m_primary->start(&error));
        auto config = twoChannelConfig(m_primary->baseUrl(), m_fallback->baseUrl());
        config->proxy.localToken = QStringLiteral("local-secret");
        m_gateway = std::make_unique<Gateway>(m_clock, m_random, config);
        QVERIFY(m_gateway->start(&error));
        const Reply reply = request("POST", "/v1/chat/completions", chatBody(false), {{"Authorization", "Bearer local-secret"}});
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/A"));
        QCOMPARE(m_primary->stats().keyRejected, 0u);
    }

    void clientDisconnectMidStreamCancelsTheUpstream()
    {
        // Slow tokens so the stream is still running when the client leaves.
        startAll({}, {}, {});
        m_gateway->stop(100ms);
        m_gateway.reset();
        m_primary.reset();
        ProviderSpec spec = providerSpec("primary");
        spec.tokensPerSecond = Distribution::constant(5);
        spec.completionTokens = 200;
        m_primary = std::make_unique<FakeProvider>(spec, *m_scenarioClock, m_random);
        QString error;
        QVERIFY(m_primary->start(&error));
        m_gateway = std::make_unique<Gateway>(m_clock, m_random, twoChannelConfig(m_primary->baseUrl(), m_fallback->baseUrl()));
        QVERIFY(m_gateway->start(&error));

        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, m_gateway->port());
        QVERIFY(client.waitForConnected(5000));
        const QByteArray body = chatBody(true);
        client.write("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                     + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        QTRY_VERIFY_WITH_TIMEOUT(client.bytesAvailable() > 0 || client.waitForReadyRead(100), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_gateway->snapshot().inFlight, 1, 5000);
        client.abort();
        QTRY_COMPARE_WITH_TIMEOUT(m_gateway->snapshot().inFlight, 0, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(m_gateway->snapshot().cancelled, 1u, 5000);
    }
};

QTEST_GUILESS_MAIN(tst_ProxyEndToEnd)
#include "tst_ProxyEndToEnd.moc"
