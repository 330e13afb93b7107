// Throughput and latency of the local HTTP server alone: a handler that answers a canned
// chat-completion JSON at once, driven by keep-alive loopback clients in this process.
// Prints figures; asserts nothing. Usage: bench_http_server [connections=64] [seconds=5] [workers=0]
// For an external load generator: bench_http_server --serve [workers] prints the port and serves
// until killed (POST anything; GET /stream answers 20 SSE events).

#include "net/HttpHandler.h"
#include "net/HttpServer.h"
#include "net/ResponseWriter.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

namespace {

const QByteArray kCompletion = R"({"id":"chatcmpl-bench","object":"chat.completion","created":1,"model":"bench",)"
                               R"("choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},)"
                               R"("finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}})";

class CannedHandler : public sb::HttpHandler {
public:
    void handle(const sb::HttpRequest &request, std::shared_ptr<sb::ResponseWriter> response) override
    {
        sb::HttpHeaders headers;
        if (request.path == "/stream") {
            headers.add("Content-Type", "text/event-stream");
            response->startStream(200, headers);
            for (int i = 0; i < 20; ++i)
                response->write("data: {\"choices\":[{\"delta\":{\"content\":\"tok\"}}]}\n\n");
            response->write("data: [DONE]\n\n");
            response->finish();
            return;
        }
        headers.add("Content-Type", "application/json");
        response->send(200, headers, kCompletion);
    }
};

const QByteArray kRequest = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            "Content-Length: 62\r\n\r\n"
                            R"({"model":"bench","messages":[{"role":"user","content":"hi!"}]})";

// One keep-alive client: sends, waits for the whole response (Content-Length framing), repeats.
struct LoadClient {
    QTcpSocket socket;
    QByteArray buffer;
    QElapsedTimer sent;
    std::vector<qint64> *latencies = nullptr;
    bool *running = nullptr;
    long long *done = nullptr;

    void send()
    {
        sent.start();
        socket.write(kRequest);
    }
    void onReadyRead()
    {
        buffer += socket.readAll();
        for (;;) {
            const qsizetype end = buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const qsizetype at = buffer.indexOf("Content-Length: ");
            const qsizetype lineEnd = buffer.indexOf("\r\n", at);
            const qsizetype length = buffer.mid(at + 16, lineEnd - at - 16).toLongLong();
            if (buffer.size() < end + 4 + length)
                return;
            buffer.remove(0, end + 4 + length);
            latencies->push_back(sent.nsecsElapsed() / 1000);
            ++*done;
            if (*running)
                send();
        }
    }
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() > 1 && args[1] == "--serve") {
        const int workers = args.size() > 2 ? args[2].toInt() : 0;
        sb::HttpServer server(sb::HttpServerLimits(), [](int) { return std::make_unique<CannedHandler>(); }, workers);
        QString error;
        if (!server.listen(QHostAddress::LocalHost, 0, &error)) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return 1;
        }
        std::printf("%u\n", server.serverPort());
        std::fflush(stdout);
        return app.exec();
    }
    const int connections = args.size() > 1 ? args[1].toInt() : 64;
    const int seconds = args.size() > 2 ? args[2].toInt() : 5;
    const int workers = args.size() > 3 ? args[3].toInt() : 0;

    sb::HttpServer server(sb::HttpServerLimits(), [](int) { return std::make_unique<CannedHandler>(); }, workers);
    QString error;
    if (!server.listen(QHostAddress::LocalHost, 0, &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    std::vector<qint64> latencies;
    latencies.reserve(1 << 20);
    bool running = true;
    long long done = 0;
    std::vector<std::unique_ptr<LoadClient>> clients;
    for (int i = 0; i < connections; ++i) {
        auto client = std::make_unique<LoadClient>();
        client->latencies = &latencies;
        client->running = &running;
        client->done = &done;
        LoadClient *c = client.get();
        QObject::connect(&c->socket, &QTcpSocket::readyRead, [c] { c->onReadyRead(); });
        c->socket.connectToHost(QHostAddress::LocalHost, server.serverPort());
        c->socket.waitForConnected(5000);
        clients.push_back(std::move(client));
    }
    QElapsedTimer wall;
    wall.start();
    for (auto &c : clients)
        c->send();
    QTimer::singleShot(seconds * 1000, [&] {
        running = false;
        QTimer::singleShot(500, &app, &QCoreApplication::quit);
    });
    app.exec();
    const double elapsed = double(wall.nsecsElapsed()) / 1e9 - 0.5;

    std::sort(latencies.begin(), latencies.end());
    auto pct = [&](double p) { return latencies.empty() ? 0 : latencies[size_t(p * double(latencies.size() - 1))]; };
    const auto stats = server.stats();
    std::printf("bench_http_server: %d connections, %d workers, %.1f s (client and server share this process)\n",
                connections, server.workerCount(), elapsed);
    std::printf("  requests/s      %.0f\n", double(done) / elapsed);
    std::printf("  latency p50     %lld us\n", static_cast<long long>(pct(0.50)));
    std::printf("  latency p99     %lld us\n", static_cast<long long>(pct(0.99)));
    std::printf("  latency max     %lld us\n", static_cast<long long>(latencies.empty() ? 0 : latencies.back()));
    std::printf("  server: requests %llu, 2xx %llu, bytes in %llu, out %llu\n",
                static_cast<unsigned long long>(stats.requests), static_cast<unsigned long long>(stats.responses2xx),
                static_cast<unsigned long long>(stats.bytesIn), static_cast<unsigned long long>(stats.bytesOut));
    for (auto &c : clients)
        c->socket.abort();
    server.shutdown(std::chrono::milliseconds(1000));
    return 0;
}
