// What the proxy adds to time-to-first-token: the same streamed completion asked of a
// fake provider directly and through the Gateway, alternating one request each way so that both
// see the same machine load, then the percentiles side by side. A benchmark prints; it never asserts.
//
//   bench_proxy_ttft [requests per side, default 400] [provider TTFT in ms, default 20]
#include "FakeProviderSpecs.h"
#include "Percentile.h"
#include "ProxyUnderTest.h"
#include "net/UpstreamClient.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace sb;
using sb::bench::percentile;
using namespace std::chrono_literals;

namespace {

// Sends one streamed request at a time, alternating targets, and records the time from sending to
// the first body byte (the first SSE event: the client's TTFT).
class Runner {
public:
    Runner(QString direct, QString proxied, int perSide) : m_urls{std::move(direct), std::move(proxied)}, m_perSide(perSide) {}

    void start() { next(); }
    std::vector<double> ttft[2];
    int failures[2] = {0, 0};

private:
    void next()
    {
        if (m_sent >= 2 * m_perSide + 2 * kWarmup) {
            QCoreApplication::quit();
            return;
        }
        const int side = m_sent % 2;
        const bool warmup = m_sent < 2 * kWarmup;
        ++m_sent;
        UpstreamRequest request;
        request.url = QUrl(m_urls[side] + QStringLiteral("/chat/completions"));
        request.stream = true;
        request.headers.set("Content-Type", "application/json");
        request.headers.set("Authorization", "Bearer bench");
        request.body = QJsonDocument(QJsonObject{{"model", "gpt-4o"}, {"stream", true},
                                                 {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hi"}}}}})
                           .toJson(QJsonDocument::Compact);
        const auto started = SystemClock::instance().now();
        auto first = std::make_shared<bool>(true);
        auto status = std::make_shared<int>(0);
        TransferCallbacks callbacks;
        callbacks.onHeaders = [status](int code, const HttpHeaders &) { *status = code; };
        callbacks.onData = [this, first, started, side, warmup](QByteArrayView) {
            if (!*first)
                return;
            *first = false;
            if (!warmup)
                ttft[side].push_back(toMillis(SystemClock::instance().now() - started));
        };
        callbacks.onComplete = [this, side, status](TransferError error, const QString &) {
            if (error != TransferError::None || *status != 200)
                ++failures[side];
            QTimer::singleShot(0, [this] { next(); });
        };
        TransferOptions options;
        options.totalTimeout = 10s;
        m_client.start(request, options, std::move(callbacks));
    }

    static constexpr int kWarmup = 20;
    QString m_urls[2];
    int m_perSide;
    int m_sent = 0;
    UpstreamClient m_client;
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int perSide = argc > 1 ? std::max(10, atoi(argv[1])) : 400;
    const double providerTtft = argc > 2 ? atof(argv[2]) : 20.0;

    SplitMixRandom random(7);
    test::ProxyUnderTest proxy(SystemClock::instance(), random);
    QString error;
    if (!proxy.start(test::benchProviderSpec(providerTtft), {}, &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }

    Runner runner(proxy.primary->baseUrl(), proxy.gateway->baseUrl(), perSide);
    QTimer::singleShot(0, [&runner] { runner.start(); });
    app.exec();
    proxy.stop();

    std::printf("TTFT of a streamed completion, %d requests each way, one at a time (fake provider TTFT %.0f ms)\n",
                perSide, providerTtft);
    std::printf("%-10s %10s %10s %10s %9s\n", "", "p50 ms", "p95 ms", "p99 ms", "failed");
    const char *names[2] = {"direct", "proxied"};
    for (int side = 0; side < 2; ++side)
        std::printf("%-10s %10.2f %10.2f %10.2f %9d\n", names[side], percentile(runner.ttft[side], 0.50),
                    percentile(runner.ttft[side], 0.95), percentile(runner.ttft[side], 0.99), runner.failures[side]);
    std::printf("%-10s %10.2f %10.2f %10.2f\n", "added", percentile(runner.ttft[1], 0.50) - percentile(runner.ttft[0], 0.50),
                percentile(runner.ttft[1], 0.95) - percentile(runner.ttft[0], 0.95),
                percentile(runner.ttft[1], 0.99) - percentile(runner.ttft[0], 0.99));
    return 0;
}
