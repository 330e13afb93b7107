// The proxy end to end: a real Gateway on a loopback port, real fake providers (switchboard-sim's
// FakeProvider) behind it, and a real HTTP client in front. Each case is one of the promises the
// proxy makes to a caller: answers in OpenAI's format, fails over invisibly before the first byte,
// never ends a broken stream silently, and refuses bad input with the right status.
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyUnderTest.h"
#include "RawHttp.h"
#include "StreamText.h"

#include <QtTest>
#include <QJsonArray>
#include <QTcpServer>
#include <QTcpSocket>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

class tst_ProxyEndToEnd : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{1234};
    ProxyUnderTest m_proxy{m_clock, m_random};
    ProxyClient m_client;

    void startAll(std::vector<FaultSpec> primaryFaults, std::vector<FaultSpec> fallbackFaults = {},
                  std::function<void(EngineConfig &)> tweak = {})
    {
        startWith(fakeProviderSpec("primary", std::move(primaryFaults)), fakeProviderSpec("fallback", std::move(fallbackFaults)), tweak);
    }

    void startWith(ProviderSpec primary, ProviderSpec fallback = fakeProviderSpec("fallback"),
                   std::function<void(EngineConfig &)> tweak = {})
    {
        QString error;
        QVERIFY2(m_proxy.start(std::move(primary), std::move(fallback), tweak, &error), qPrintable(error));
        QVERIFY(m_proxy.gateway->port() != 0);
    }

    Reply request(const QByteArray &method, const QString &path, const QByteArray &body = {}, const RawHeaders &headers = {})
    {
        return m_client.request(m_proxy.gateway->port(), method, path, body, headers);
    }

    Reply chat(bool stream, const QString &model = QStringLiteral("gpt-4o"))
    {
        return request("POST", "/v1/chat/completions", chatBody(stream, model));
    }

    // Requests recorded to the end (finish() feeds the client window before /metrics' counters).
    std::uint64_t finishedRequests() const
    {
        std::uint64_t total = 0;
        for (const auto &[key, count] : m_proxy.gateway->context().requestMetrics().snapshot().requests)
            total += count;
        return total;
    }

private slots:
    void cleanup() { m_proxy.stop(); }

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
        QCOMPARE(m_proxy.primary->stats().chat, 1u);
        QCOMPARE(m_proxy.fallback->stats().chat, 0u);
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
        QCOMPARE(m_proxy.fallback->stats().chat, 1u);
        QTRY_COMPARE(m_proxy.gateway->snapshot().failovers, 1u);
    }

    // The Overview's availability is the share of answered requests that succeeded; a request for a
    // model nothing serves is the caller's mistake, not an outage, whoever said so (the router: no
    // such route; or the provider: its own 404 for the model).
    void anUnknownModelDoesNotCountAgainstAvailability()
    {
        startAll({});
        QCOMPARE(chat(false).status, 200);
        for (int i = 0; i < 3; ++i) {
            const Reply reply = chat(i == 1, QStringLiteral("no-such-model"));
            QCOMPARE(reply.status, 404);
            QCOMPARE(reply.json().value("error").toObject().value("code").toString(), QStringLiteral("model_not_found"));
        }
        QTRY_COMPARE(finishedRequests(), 4u);
        const MetricsSnapshot snapshot = m_proxy.gateway->snapshot();
        QCOMPARE(snapshot.answered5m, 1u);
        QCOMPARE(snapshot.availability5m, 1.0);
    }

    void aProvidersUnknownModelDoesNotCountAgainstAvailability()
    {
        startAll({always(SimError::UnknownModel)}, {always(SimError::UnknownModel)});
        const Reply reply = chat(false);
        QCOMPARE(reply.status, 404);
        QTRY_COMPARE(finishedRequests(), 1u);
        QCOMPARE(m_proxy.gateway->snapshot().answered5m, 0u);
        QCOMPARE(m_proxy.gateway->snapshot().availability5m, 1.0);
    }

    // …while an outage still does: the same check would pass if nothing were counted at all.
    void anOutageCountsAgainstAvailability()
    {
        startAll({always(SimError::Http500)}, {always(SimError::Http500)});
        QVERIFY(chat(false).status >= 500);
        QTRY_COMPARE(finishedRequests(), 1u);
        QCOMPARE(m_proxy.gateway->snapshot().answered5m, 1u);
        QCOMPARE(m_proxy.gateway->snapshot().availability5m, 0.0);
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

    // With continuation off; with it on, tst_StreamRescue.
    void aBrokenStreamEndsWithAnErrorEventNeverSilently()
    {
        QFETCH(int, error);
        startAll({always(static_cast<SimError>(error))}, {}, [](EngineConfig &c) { c.retry.continueStreams = false; });
        const Reply reply = chat(true);
        QCOMPARE(reply.status, 200); // the status line went out with the first chunk
        const StreamText text = parseStream(reply.body);
        QVERIFY2(!text.content.isEmpty(), reply.body.constData()); // part of the answer reached the client …
        QVERIFY(!text.done);                                        // … it was not passed off as complete …
        QVERIFY2(!text.error.isEmpty(), reply.body.constData());    // … and the client was told.
        QCOMPARE(m_proxy.fallback->stats().chat, 0u); // bytes had gone out, and no continuation
        QTRY_COMPARE(m_proxy.gateway->snapshot().midStream, 1u);
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
        QCOMPARE(m_proxy.primary->stats().chat, 0u);
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

    // The running configuration is shared by every worker and read without a lock: serving must
    // leave each of its strings' text where it was. (A name written through QString::utf16()
    // moved a literal's text into a new buffer; two workers doing that at once freed each other's.)
    void servingLeavesTheSharedConfigurationsTextWhereItWas()
    {
        startAll({}, {}, [](EngineConfig &config) {
            for (ChannelConfig &channel : config.channels)
                channel.upstreamModel = QStringLiteral("gpt-4o");
        });
        const EngineConfigPtr config = m_proxy.gateway->config();
        const auto textPlaces = [&config] {
            std::vector<const QChar *> places;
            for (const ProviderConfig &p : config->providers) {
                for (const QString *s : {&p.name, &p.dialect, &p.baseUrl, &p.domain.account})
                    places.push_back(s->constData());
                for (const ApiKeyConfig &k : p.keys)
                    places.push_back(k.secret.constData());
            }
            for (const ChannelConfig &c : config->channels)
                places.insert(places.end(), {c.name.constData(), c.upstreamModel.constData()});
            for (const RouteConfig &r : config->routes)
                places.push_back(r.logicalModel.constData());
            return places;
        };
        const std::vector<const QChar *> before = textPlaces();

        QCOMPARE(chat(false).status, 200);
        QCOMPARE(chat(true).status, 200);
        const QByteArray responses = R"({"model":"gpt-4o","input":"Say hello."})";
        QCOMPARE(request("POST", "/v1/responses", responses, {{"content-type", "application/json"}}).status, 200);
        const QByteArray messages = R"({"model":"gpt-4o","max_tokens":16,"messages":[{"role":"user","content":"Say hello."}]})";
        QCOMPARE(request("POST", "/v1/messages", messages, {{"content-type", "application/json"}, {"anthropic-version", "2023-06-01"}}).status,
                 200);
        QCOMPARE(request("GET", "/v1/models").status, 200);

        QVERIFY(m_proxy.gateway->config() == config);
        QVERIFY(textPlaces() == before);
    }

    void theProvidersKeyGoesUpstreamNeverTheClients()
    {
        // FakeProvider accepts any key when none is configured, so check what the keyed provider saw:
        // restrict the primary to its own key and send the client's token; a 200 proves the provider's
        // key went upstream (the client's would be rejected).
        ProviderSpec keyed = fakeProviderSpec("primary");
        keyed.keys = {KeySpec{QByteArray("sk-primary-0001"), 0}};
        startWith(keyed, fakeProviderSpec("fallback"), [](EngineConfig &config) { config.proxy.localToken = QStringLiteral("local-secret"); });
        const Reply reply = request("POST", "/v1/chat/completions", chatBody(false), {{"Authorization", "Bearer local-secret"}});
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/A"));
        QCOMPARE(m_proxy.primary->stats().keyRejected, 0u);
    }

    void clientDisconnectMidStreamCancelsTheUpstream()
    {
        // Slow tokens so the stream is still running when the client leaves.
        ProviderSpec slow = fakeProviderSpec("primary");
        slow.tokensPerSecond = Distribution::constant(5);
        slow.completionTokens = 200;
        startWith(slow);

        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, m_proxy.gateway->port());
        QVERIFY(client.waitForConnected(5000));
        client.write(rawRequest("POST", "/v1/chat/completions", chatBody(true)));
        QTRY_VERIFY_WITH_TIMEOUT(client.bytesAvailable() > 0 || client.waitForReadyRead(100), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy.gateway->snapshot().inFlight, 1, 5000);
        client.abort();
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy.gateway->snapshot().inFlight, 0, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(m_proxy.gateway->snapshot().cancelled, 1u, 5000);
    }
};

QTEST_GUILESS_MAIN(tst_ProxyEndToEnd)
#include "tst_ProxyEndToEnd.moc"
