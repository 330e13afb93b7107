// Time to first token with the cache off, on a miss and on a hit, side by side in
// one run, through a real Gateway against a fake streaming provider (switchboard-sim). Requests go
// one at a time and the rows alternate, so every row sees the same machine load. Also: the same for
// the semantic cache with a local fake embeddings endpoint (its call is the price of a lookup), and
// the brute-force similarity search alone at tens of thousands of entries. Prints; never asserts.
//
//   bench_cache_ttft [requests per row, default 300] [provider TTFT in ms, default 20]
#include "FakeProviderSpecs.h"
#include "Percentile.h"
#include "ProxyConfigs.h"
#include "ProxyUnderTest.h"
#include "cache/SemanticIndex.h"
#include "net/HttpServer.h"
#include "net/ResponseWriter.h"
#include "net/UpstreamClient.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

using namespace sb;
using sb::bench::percentile;
using namespace std::chrono_literals;

namespace {

// A local embeddings endpoint: a hashed bag of words, 256 dimensions.
class EmbeddingsHandler : public HttpHandler {
public:
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override
    {
        const QString input = QJsonDocument::fromJson(request.body).object().value("input").toString();
        std::vector<double> v(256, 0.0);
        for (const QString &word : input.toLower().split(QLatin1Char(' '), Qt::SkipEmptyParts))
            v[qHash(word, 3) % v.size()] += 1.0;
        QJsonArray vector;
        for (double x : v)
            vector.append(x);
        HttpHeaders headers;
        headers.set("Content-Type", "application/json");
        response->send(200, headers,
                       QJsonDocument(QJsonObject{{"data", QJsonArray{QJsonObject{{"embedding", vector}}}}}).toJson(QJsonDocument::Compact));
    }
};

// Routes "off", "exact" and "semantic" over the one channel to the provider, and the embeddings
// service for the semantic one.
std::shared_ptr<EngineConfig> configFor(const QString &providerUrl, const QString &embeddingsUrl)
{
    auto config = test::oneChannelConfig(QStringLiteral("fake"), providerUrl, QStringLiteral("gpt-4o"));
    RouteConfig &off = config->routes.front();
    off.logicalModel = QStringLiteral("off");
    RouteConfig exact = off;
    exact.id = 2;
    exact.logicalModel = QStringLiteral("exact");
    exact.cacheEnabled = true;
    RouteConfig semantic = off;
    semantic.id = 3;
    semantic.logicalModel = QStringLiteral("semantic");
    semantic.cache.semantic = true;
    semantic.cache.embeddingsChannelId = test::addEmbeddingsChannel(*config, embeddingsUrl);
    config->routes.push_back(exact);
    config->routes.push_back(semantic);
    config->cache.maxEntries = 100000;
    config->cache.semanticMaxEntries = 100000;
    return config;
}

enum Row { Off, ExactMiss, ExactHit, SemanticMiss, SemanticHit, RowCount };
const char *const kRowNames[RowCount] = {"cache off", "exact on-miss", "exact on-hit", "semantic on-miss", "semantic on-hit"};

class Runner {
public:
    Runner(QString url, int perRow) : m_url(std::move(url)), m_perRow(perRow) {}
    void start() { next(); }
    std::vector<double> ttft[RowCount];
    int failures[RowCount] = {};
    int wrongCacheHeader[RowCount] = {};

private:
    void next()
    {
        const int total = (m_perRow + kWarmup) * RowCount;
        if (m_sent >= total) {
            QCoreApplication::quit();
            return;
        }
        const Row row = static_cast<Row>(m_sent % RowCount);
        const int round = m_sent / RowCount;
        const bool warmup = round < kWarmup;
        ++m_sent;
        // Misses ask a question never asked before; hits ask the one question asked in round 0.
        QString model, question, expected;
        switch (row) {
        case Off: model = "off"; question = QStringLiteral("question %1 for the uncached route").arg(round); break;
        case ExactMiss: model = "exact"; question = QStringLiteral("question %1 for the exact cache").arg(round); expected = "miss"; break;
        case ExactHit: model = "exact"; question = QStringLiteral("question 0 for the exact cache"); expected = "hit"; break;
        case SemanticMiss: model = "semantic"; question = QStringLiteral("topic%1 alpha%1 beta%1").arg(round); expected = "miss"; break;
        case SemanticHit: model = "semantic"; question = QStringLiteral("beta0 ALPHA0 topic0"); expected = "hit"; break;
        case RowCount: break;
        }
        if (round == 0 && (row == ExactHit || row == SemanticHit))
            expected.clear(); // the first ask of the hit question is a miss that fills the cache
        UpstreamRequest request;
        request.url = QUrl(m_url + QStringLiteral("/chat/completions"));
        request.stream = true;
        request.headers.set("Content-Type", "application/json");
        request.body = QJsonDocument(QJsonObject{{"model", model}, {"stream", true},
                                                 {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", question}}}}})
                           .toJson(QJsonDocument::Compact);
        QElapsedTimer timer;
        timer.start();
        auto first = std::make_shared<bool>(true);
        auto status = std::make_shared<int>(0);
        TransferCallbacks callbacks;
        callbacks.onHeaders = [this, status, row, expected, warmup](int code, const HttpHeaders &headers) {
            *status = code;
            if (!warmup && !expected.isEmpty() && headers.value("x-switchboard-cache") != expected.toUtf8())
                ++wrongCacheHeader[row];
        };
        callbacks.onData = [this, first, timer, row, warmup](QByteArrayView) {
            if (!*first)
                return;
            *first = false;
            if (!warmup)
                ttft[row].push_back(double(timer.nsecsElapsed()) / 1e6);
        };
        callbacks.onComplete = [this, row, status](TransferError error, const QString &) {
            if (error != TransferError::None || *status != 200)
                ++failures[row];
            // A short pause lets the tee's save (a zero timer on the worker) land before the next ask.
            QTimer::singleShot(2, [this] { next(); });
        };
        TransferOptions options;
        options.totalTimeout = 10s;
        m_client.start(request, options, std::move(callbacks));
    }

    static constexpr int kWarmup = 5;
    QString m_url;
    int m_perRow;
    int m_sent = 0;
    UpstreamClient m_client;
};

void benchIndex()
{
    std::mt19937 rng(42);
    std::normal_distribution<float> normal;
    std::printf("\nSemantic index alone (brute force, one scope, float32 dot products):\n");
    std::printf("%10s %6s %14s\n", "entries", "dim", "us per lookup");
    for (int dim : {256, 1536}) {
        for (int entries : {1000, 10000, 50000}) {
            SemanticIndex index;
            std::vector<float> v(static_cast<std::size_t>(dim));
            for (int i = 0; i < entries; ++i) {
                for (float &x : v)
                    x = normal(rng);
                SemanticIndex::normalise(v);
                index.add("scope", i + 1, v);
            }
            for (float &x : v)
                x = normal(rng);
            SemanticIndex::normalise(v);
            const int lookups = std::max(5, 2000000 / entries / (dim / 256));
            QElapsedTimer timer;
            timer.start();
            float sink = 0;
            for (int i = 0; i < lookups; ++i)
                sink += index.best("scope", v)->similarity;
            const double us = double(timer.nsecsElapsed()) / 1e3 / lookups;
            std::printf("%10d %6d %14.1f%s\n", entries, dim, us, sink > 1e30f ? "!" : "");
        }
    }
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int perRow = argc > 1 ? std::max(10, atoi(argv[1])) : 300;
    const double providerTtft = argc > 2 ? atof(argv[2]) : 20.0;

    SplitMixRandom random(11);
    test::ProxyUnderTest proxy(SystemClock::instance(), random);
    QString error;
    if (!proxy.startProviders(test::benchProviderSpec(providerTtft), &error)) {
        std::fprintf(stderr, "fake provider: %s\n", qPrintable(error));
        return 1;
    }
    HttpServer embeddings(HttpServerLimits{}, [](int) { return std::make_unique<EmbeddingsHandler>(); }, 1);
    if (!embeddings.listen(QHostAddress::LocalHost, 0, &error)) {
        std::fprintf(stderr, "embeddings: %s\n", qPrintable(error));
        return 1;
    }
    if (!proxy.startGateway(configFor(proxy.primary->baseUrl(), QStringLiteral("http://127.0.0.1:%1/v1").arg(embeddings.serverPort())),
                            &error)) {
        std::fprintf(stderr, "gateway: %s\n", qPrintable(error));
        return 1;
    }

    Runner runner(proxy.gateway->baseUrl(), perRow);
    QTimer::singleShot(0, [&runner] { runner.start(); });
    app.exec();
    const CacheFront::Stats stats = proxy.gateway->context().cache().stats();
    proxy.stop();
    embeddings.shutdown(1s);

    std::printf("Client TTFT of a streamed completion through the Gateway, %d requests per row, one at a time, rows\n"
                "alternating (fake provider TTFT %.0f ms; hits repeat one question, misses ask new ones)\n",
                perRow, providerTtft);
    std::printf("%-18s %9s %9s %9s %9s %7s %7s\n", "", "p50 ms", "p95 ms", "p99 ms", "mean ms", "failed", "header");
    for (int row = 0; row < RowCount; ++row) {
        double mean = 0;
        for (double v : runner.ttft[row])
            mean += v;
        mean /= std::max<std::size_t>(1, runner.ttft[row].size());
        std::printf("%-18s %9.3f %9.3f %9.3f %9.3f %7d %7s\n", kRowNames[row], percentile(runner.ttft[row], 0.50),
                    percentile(runner.ttft[row], 0.95), percentile(runner.ttft[row], 0.99), mean, runner.failures[row],
                    runner.wrongCacheHeader[row] ? "WRONG" : "ok");
    }
    std::printf("%-18s %9.3f %9.3f %9.3f   (exact on-miss minus cache off)\n", "miss overhead",
                percentile(runner.ttft[ExactMiss], 0.50) - percentile(runner.ttft[Off], 0.50),
                percentile(runner.ttft[ExactMiss], 0.95) - percentile(runner.ttft[Off], 0.95),
                percentile(runner.ttft[ExactMiss], 0.99) - percentile(runner.ttft[Off], 0.99));
    std::printf("cache: exact %llu hits / %llu stores, semantic %llu hits / %llu stores, %llu embeddings calls, mean %.3f ms each\n",
                (unsigned long long)stats.exact.hits, (unsigned long long)stats.exact.stores,
                (unsigned long long)stats.semantic.hits, (unsigned long long)stats.semantic.stores,
                (unsigned long long)stats.embeddingCalls,
                stats.embeddingCalls ? double(stats.embeddingMicros) / 1e3 / double(stats.embeddingCalls) : 0.0);
    benchIndex();
    return 0;
}
