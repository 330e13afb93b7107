// The caches through a real Gateway: a real loopback proxy port, switchboard-sim's fake
// providers behind it, a small fake embeddings server for the semantic cache, and a real HTTP
// client in front. Miss then hit in both forms, SSE with [DONE] on a hit, bypass headers, per-route
// opt-in, nothing saved from errors or cut streams, the history's cache-hit flag, and semantic
// entries that survive a restart of the engine.
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyConfigs.h"
#include "ProxyUnderTest.h"
#include "StreamText.h"
#include "net/HttpServer.h"
#include "net/ResponseWriter.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <atomic>
#include <cmath>
#include <mutex>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

// What the cache did with a request: "miss", "hit" or "skip"; empty on a route without a cache.
QByteArray cache(const Reply &reply)
{
    return reply.headers.value("x-switchboard-cache");
}

QString completionText(const Reply &reply)
{
    return reply.json().value("choices").toArray().at(0).toObject().value("message").toObject().value("content").toString();
}

// An OpenAI-compatible /v1/embeddings endpoint with a bag-of-words embedding: the same words in
// any case, order or punctuation give the same vector (cosine 1), other words another.
class FakeEmbeddings {
public:
    static constexpr int kDim = 64;

    bool start(QString *error)
    {
        m_server = std::make_unique<HttpServer>(HttpServerLimits{}, [this](int) { return std::make_unique<Handler>(this); }, 1);
        return m_server->listen(QHostAddress::LocalHost, 0, error);
    }
    QString baseUrl() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_server->serverPort()); }
    int calls() const { return m_calls.load(); }
    QStringList inputs() const
    {
        std::lock_guard lock(m_mutex);
        return m_inputs;
    }

private:
    struct Handler : HttpHandler {
        explicit Handler(FakeEmbeddings *owner) : m_owner(owner) {}
        void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override
        {
            HttpHeaders headers;
            headers.set("Content-Type", "application/json");
            if (request.path != "/v1/embeddings") {
                response->send(200, headers, R"({"object":"list","data":[]})");
                return;
            }
            m_owner->m_calls.fetch_add(1);
            const QString input = QJsonDocument::fromJson(request.body).object().value("input").toString();
            {
                std::lock_guard lock(m_owner->m_mutex);
                m_owner->m_inputs << input;
            }
            QJsonArray vector;
            std::vector<double> v(kDim, 0.0);
            for (const QString &word : input.toLower().split(QRegularExpression(QStringLiteral("[^a-z]+")), Qt::SkipEmptyParts))
                v[qHash(word, 7) % kDim] += 1.0;
            for (double x : v)
                vector.append(x);
            const QJsonObject body{{"object", "list"},
                                   {"data", QJsonArray{QJsonObject{{"object", "embedding"}, {"index", 0}, {"embedding", vector}}}},
                                   {"model", "fake-embed"}};
            response->send(200, headers, QJsonDocument(body).toJson(QJsonDocument::Compact));
        }
        FakeEmbeddings *m_owner;
    };

    std::unique_ptr<HttpServer> m_server;
    std::atomic<int> m_calls{0};
    mutable std::mutex m_mutex;
    QStringList m_inputs;
};

QByteArray questionBody(bool stream, const QString &question = QStringLiteral("What is the capital of France?"),
                    const QString &system = QString(), const QString &model = QStringLiteral("gpt-4o"))
{
    QJsonArray messages;
    if (!system.isEmpty())
        messages.append(QJsonObject{{"role", "system"}, {"content", system}});
    messages.append(QJsonObject{{"role", "user"}, {"content", question}});
    return QJsonDocument(QJsonObject{{"model", model}, {"messages", messages}, {"stream", stream}}).toJson(QJsonDocument::Compact);
}

} // namespace

class tst_CacheThrough : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{4321};
    ProxyUnderTest m_proxy{m_clock, m_random};
    std::unique_ptr<FakeEmbeddings> m_embeddings;
    ProxyClient m_client;
    std::mutex m_recordsMutex;
    std::vector<RequestRecord> m_records;

    // gpt-4o cached and gpt-4o-nocache, both over the two channels, and the embeddings service of the
    // semantic cache as channel 3.
    std::shared_ptr<EngineConfig> makeConfig(std::function<void(EngineConfig &)> tweak)
    {
        auto config = m_proxy.config();
        addEmbeddingsChannel(*config, m_embeddings->baseUrl());
        config->routes.front().cacheEnabled = true;
        RouteConfig uncached = config->routes.front();
        uncached.id = 2;
        uncached.logicalModel = QStringLiteral("gpt-4o-nocache");
        uncached.cacheEnabled = false;
        config->routes.push_back(uncached);
        if (tweak)
            tweak(*config);
        return config;
    }

    void startAll(std::vector<FaultSpec> faults = {}, std::function<void(EngineConfig &)> tweak = {}, const QString &storePath = {})
    {
        QString error;
        QVERIFY2(m_proxy.startProviders(fakeProviderSpec("primary", faults), fakeProviderSpec("fallback", faults), &error), qPrintable(error));
        m_embeddings = std::make_unique<FakeEmbeddings>();
        QVERIFY2(m_embeddings->start(&error), qPrintable(error));
        startGateway(makeConfig(std::move(tweak)), storePath);
    }

    void startGateway(std::shared_ptr<EngineConfig> config, const QString &storePath = {})
    {
        QVERIFY2(config->validate().isEmpty(), qPrintable(config->validate().join('\n')));
        m_proxy.gateway = std::make_unique<Gateway>(m_clock, m_random, config);
        if (!storePath.isEmpty()) {
            QString error;
            QVERIFY2(m_proxy.gateway->context().cache().openStore(storePath, &error), qPrintable(error));
        }
        m_proxy.gateway->context().setRequestSink([this](RequestRecord &&r) {
            std::lock_guard lock(m_recordsMutex);
            m_records.push_back(std::move(r));
        });
        QString error;
        QVERIFY2(m_proxy.gateway->start(&error), qPrintable(error));
    }

    Reply post(const QByteArray &body, const RawHeaders &headers = {}) { return m_client.postChat(m_proxy.gateway->port(), body, headers); }

    quint64 upstreamChats() const { return m_proxy.primary->stats().chat + m_proxy.fallback->stats().chat; }
    CacheFront::Stats cacheStats() { return m_proxy.gateway->context().cache().stats(); }

    std::vector<RequestRecord> records()
    {
        std::lock_guard lock(m_recordsMutex);
        return m_records;
    }

    void useSemantic(EngineConfig &c, SemanticPreset preset = SemanticPreset::Balanced)
    {
        c.routes[0].cacheEnabled = false;
        c.routes[0].cache.semantic = true;
        c.routes[0].cache.preset = preset;
        c.routes[0].cache.embeddingsChannelId = 3;
    }

private slots:
    void cleanup()
    {
        m_proxy.stop();
        m_embeddings.reset();
        m_records.clear();
    }

    void streamMissThenHitAsSse()
    {
        startAll();
        const Reply miss = post(questionBody(true));
        QCOMPARE(miss.status, 200);
        QCOMPARE(cache(miss), QByteArray("miss"));
        const StreamText first = parseStream(miss.body);
        QVERIFY(first.done);
        QVERIFY(!first.content.isEmpty());
        QCOMPARE(upstreamChats(), 1u);
        QTRY_COMPARE(cacheStats().exact.stores, 1u);

        const Reply hit = post(questionBody(true));
        QCOMPARE(hit.status, 200);
        QCOMPARE(cache(hit), QByteArray("hit"));
        QCOMPARE(hit.headers.value("x-switchboard-cache-kind"), QByteArray("exact"));
        QVERIFY(hit.headers.value("content-type").startsWith("text/event-stream"));
        QVERIFY(hit.body.endsWith("data: [DONE]\n\n"));
        const StreamText second = parseStream(hit.body);
        QVERIFY(second.done);
        QCOMPARE(second.content, first.content);
        QCOMPARE(second.chunks, first.chunks);
        QCOMPARE(upstreamChats(), 1u); // the provider was not asked again
        QVERIFY(!m_embeddings->calls()); // the exact cache costs no embeddings call
    }

    void nonStreamMissThenHit()
    {
        startAll();
        const Reply miss = post(questionBody(false));
        QCOMPARE(miss.status, 200);
        QCOMPARE(cache(miss), QByteArray("miss"));
        QTRY_COMPARE(cacheStats().exact.stores, 1u);
        const Reply hit = post(questionBody(false));
        QCOMPARE(hit.status, 200);
        QCOMPARE(cache(hit), QByteArray("hit"));
        QCOMPARE(hit.json().value("object").toString(), QStringLiteral("chat.completion"));
        QCOMPARE(completionText(hit), completionText(miss));
        QCOMPARE(upstreamChats(), 1u);
    }

    void aHitAnswersTheOtherForm()
    {
        startAll();
        const Reply streamed = post(questionBody(true));
        QTRY_COMPARE(cacheStats().exact.stores, 1u);
        const Reply whole = post(questionBody(false)); // same question, not streamed: same key
        QCOMPARE(cache(whole), QByteArray("hit"));
        QCOMPARE(completionText(whole), parseStream(streamed.body).content);

        const Reply other = post(questionBody(false, QStringLiteral("Another question")));
        QCOMPARE(cache(other), QByteArray("miss"));
        QTRY_COMPARE(cacheStats().exact.stores, 2u);
        const Reply asStream = post(questionBody(true, QStringLiteral("Another question")));
        QCOMPARE(cache(asStream), QByteArray("hit"));
        const StreamText text = parseStream(asStream.body);
        QVERIFY(text.done);
        QCOMPARE(text.content, completionText(other));
        QCOMPARE(upstreamChats(), 2u);
    }

    void bypassHeadersSkipTheCache_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<QByteArray>("value");
        QTest::newRow("Cache-Control: no-cache") << QByteArray("Cache-Control") << QByteArray("no-cache");
        QTest::newRow("x-switchboard-cache: skip") << QByteArray("x-switchboard-cache") << QByteArray("skip");
    }
    void bypassHeadersSkipTheCache()
    {
        QFETCH(QByteArray, name);
        QFETCH(QByteArray, value);
        startAll();
        post(questionBody(false));
        QTRY_COMPARE(cacheStats().exact.stores, 1u);
        const Reply skipped = post(questionBody(false), {{name, value}});
        QCOMPARE(skipped.status, 200);
        QCOMPARE(cache(skipped), QByteArray("skip"));
        QCOMPARE(upstreamChats(), 2u);
        QCOMPARE(cache(post(questionBody(false))), QByteArray("hit"));
        QCOMPARE(upstreamChats(), 2u);
        QCOMPARE(cacheStats().skipped, 1u);
    }

    void aRouteWithoutCacheIsNeverCached()
    {
        startAll();
        const QByteArray body = questionBody(true, QStringLiteral("hello"), {}, QStringLiteral("gpt-4o-nocache"));
        const Reply a = post(body);
        const Reply b = post(body);
        QCOMPARE(a.status, 200);
        QCOMPARE(b.status, 200);
        QVERIFY(!a.headers.contains("x-switchboard-cache"));
        QVERIFY(!b.headers.contains("x-switchboard-cache"));
        QCOMPARE(upstreamChats(), 2u);
        QCOMPARE(cacheStats().exact.stores, 0u);
    }

    void aStreamCutMidwayIsNotCached_data()
    {
        QTest::addColumn<int>("error");
        QTest::newRow("cut") << int(SimError::StreamCut);
        QTest::newRow("error event mid-stream") << int(SimError::MidStreamError);
    }
    void aStreamCutMidwayIsNotCached()
    {
        QFETCH(int, error);
        // Not continued, as both providers break it: what it leaves is an answer with a piece missing.
        startAll({always(static_cast<SimError>(error))}, [](EngineConfig &c) { c.retry.continueStreams = false; });
        const Reply broken = post(questionBody(true));
        QCOMPARE(broken.status, 200);
        const StreamText text = parseStream(broken.body);
        QVERIFY(!text.done);
        QVERIFY(!text.error.isEmpty());
        QVERIFY(text.chunks > 0); // it really was cut mid-way, after bytes went out
        // The save would run on the next turn of the worker's loop; a later request sees its effect.
        const Reply again = post(questionBody(true));
        QCOMPARE(cache(again), QByteArray("miss"));
        QCOMPARE(cacheStats().exact.stores, 0u);
        QCOMPARE(upstreamChats(), 2u);
    }

    void anErrorIsNotCached()
    {
        startAll({always(SimError::Http500)});
        const Reply failed = post(questionBody(false));
        QCOMPARE(failed.status, 502);
        QCOMPARE(cache(failed), QByteArray("miss"));
        QVERIFY(failed.json().contains("error"));
        const Reply again = post(questionBody(false));
        QCOMPARE(again.status, 502);
        QCOMPARE(cache(again), QByteArray("miss"));
        QCOMPARE(cacheStats().exact.stores, 0u);
        QCOMPARE(cacheStats().exact.hits, 0u);
    }

    void theHistoryMarksCacheHits()
    {
        startAll();
        post(questionBody(true));
        QTRY_COMPARE(cacheStats().exact.stores, 1u);
        post(questionBody(true));
        QTRY_COMPARE(records().size(), std::size_t(2));
        const auto rows = records();
        QVERIFY(!rows[0].cacheHit);
        QCOMPARE(rows[0].channelName, QStringLiteral("gpt-4o/A"));
        QVERIFY(rows[1].cacheHit);
        QCOMPARE(rows[1].status, RequestStatus::Ok);
        QCOMPARE(rows[1].httpStatus, 200);
        QCOMPARE(rows[1].logicalModel, QStringLiteral("gpt-4o"));
        QVERIFY(rows[1].streamed);
        QVERIFY(rows[1].ttftMs >= 0);
        QVERIFY(rows[1].attempts.empty());
        QCOMPARE(m_proxy.gateway->context().counters().requests.load(), 2u);
        QCOMPARE(m_proxy.gateway->context().counters().succeeded.load(), 2u);
    }

    void semanticHitForARewording()
    {
        startAll({}, [this](EngineConfig &c) { useSemantic(c); });
        const Reply miss = post(questionBody(true, QStringLiteral("What is the capital of France?")));
        QCOMPARE(cache(miss), QByteArray("miss"));
        QTRY_COMPARE(cacheStats().semantic.stores, 1u);
        const Reply hit = post(questionBody(true, QStringLiteral("what is THE capital of france")));
        QCOMPARE(cache(hit), QByteArray("hit"));
        QCOMPARE(hit.headers.value("x-switchboard-cache-kind"), QByteArray("semantic"));
        QCOMPARE(hit.headers.value("x-switchboard-cache-similarity").toDouble(), 1.0);
        QCOMPARE(parseStream(hit.body).content, parseStream(miss.body).content);
        QVERIFY(parseStream(hit.body).done);
        QCOMPARE(upstreamChats(), 1u);
        QCOMPARE(m_embeddings->calls(), 2);
        QCOMPARE(m_embeddings->inputs().at(0), QStringLiteral("user: What is the capital of France?"));

        const Reply other = post(questionBody(true, QStringLiteral("How do I bake sourdough bread?")));
        QCOMPARE(cache(other), QByteArray("miss"));
        QCOMPARE(upstreamChats(), 2u);
    }

    void semanticCacheIsScopedBySystemPrompt()
    {
        startAll({}, [this](EngineConfig &c) { useSemantic(c, SemanticPreset::Loose); });
        post(questionBody(false, QStringLiteral("Capital of France?"), QStringLiteral("Answer in English.")));
        QTRY_COMPARE(cacheStats().semantic.stores, 1u);
        const Reply otherSystem = post(questionBody(false, QStringLiteral("Capital of France?"), QStringLiteral("Answer in French.")));
        QCOMPARE(cache(otherSystem), QByteArray("miss"));
        const Reply sameSystem = post(questionBody(false, QStringLiteral("capital of france"), QStringLiteral("Answer in English.")));
        QCOMPARE(cache(sameSystem), QByteArray("hit"));
        QCOMPARE(upstreamChats(), 2u);
    }

    void semanticEntriesSurviveARestart()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("switchboard.db");
        startAll({}, [this](EngineConfig &c) { useSemantic(c); }, path);
        const Reply miss = post(questionBody(false));
        QCOMPARE(cache(miss), QByteArray("miss"));
        QTRY_COMPARE(cacheStats().semantic.stores, 1u);
        m_proxy.gateway->context().cache().semantic().flush();
        const EngineConfigPtr config = m_proxy.gateway->config();
        m_proxy.gateway->stop(500ms);
        m_proxy.gateway.reset();

        startGateway(std::make_shared<EngineConfig>(*config), path);
        QCOMPARE(cacheStats().semantic.loaded, qint64(1));
        const Reply hit = post(questionBody(false, QStringLiteral("what is the capital of France")));
        QCOMPARE(cache(hit), QByteArray("hit"));
        QCOMPARE(completionText(hit), completionText(miss));
        QCOMPARE(upstreamChats(), 1u);
    }

    void aFailedEmbeddingsCallIsAMiss()
    {
        startAll({}, [this](EngineConfig &c) {
            useSemantic(c);
            c.providers[2].baseUrl = QStringLiteral("http://127.0.0.1:1/v1"); // nothing listens there
        });
        const Reply reply = post(questionBody(true));
        QCOMPARE(reply.status, 200);
        QCOMPARE(cache(reply), QByteArray("miss"));
        QVERIFY(parseStream(reply.body).done);
        QCOMPARE(cacheStats().embeddingFailures, 1u);
        QCOMPARE(cacheStats().semantic.stores, 0u);
    }
};

QTEST_MAIN(tst_CacheThrough)
#include "tst_CacheThrough.moc"
