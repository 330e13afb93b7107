// Backpressure end to end: a client that does not read must not make the proxy buffer the
// upstream's answer. A fast fake upstream (sb::HttpServer on loopback) streams 48 MB of OpenAI chunks
// as fast as the proxy takes them; the client (a plain socket with a small receive buffer) first
// reads nothing, then reads everything.
//
// Without backpressure the proxy would keep reading upstream while the client stalls: its response
// buffer would pass HttpServerLimits::maxBufferedResponseBytes (8 MiB) and the connection would be
// cut. With it (ProxyCall pauses the transfer above 256 KiB buffered and resumes on drain) the
// upstream stalls while the client stalls, and the client then receives the whole answer intact.
#include "ProxyConfigs.h"
#include "ProxyUnderTest.h"
#include "RawHttp.h"
#include "StreamText.h"
#include "net/HttpServer.h"
#include "net/ResponseWriter.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

using namespace sb;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

constexpr int kContentBytes = 4000;          // text per chunk
constexpr int kChunks = 12'000;              // ≈ 48 MB of SSE: far beyond every buffer on the way
std::atomic<qint64> upstreamWritten{0};      // bytes the upstream handed to its socket
std::atomic<int> upstreamPauses{0};          // times the upstream had to wait for the proxy to read

QByteArray chunkEvent(int index, bool last)
{
    const QByteArray content(kContentBytes, static_cast<char>('a' + index % 26));
    return "data: {\"id\":\"chatcmpl-bp\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\","
           "\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
           + content + "\"},\"finish_reason\":" + (last ? "\"stop\"" : "null") + "}]}\n\n";
}

// Streams kChunks events, writing only while its own buffer is small: the upstream itself respects
// backpressure, so what it has written is what the proxy has taken (plus at most one batch).
class FastUpstream : public HttpHandler {
public:
    void handle(const HttpRequest &, std::shared_ptr<ResponseWriter> response) override
    {
        HttpHeaders headers;
        headers.set("Content-Type", "text/event-stream");
        response->startStream(200, headers);
        auto next = std::make_shared<int>(0);
        auto pump = std::make_shared<std::function<void()>>();
        std::weak_ptr<std::function<void()>> weakPump = pump;
        *pump = [response, next, weakPump] {
            while (*next < kChunks && response->isOpen()) {
                if (response->bufferedBytes() > 256 * 1024) {
                    ++upstreamPauses;
                    auto again = weakPump.lock();
                    response->onDrained(64 * 1024, [again] { (*again)(); });
                    return;
                }
                const QByteArray event = chunkEvent(*next, *next == kChunks - 1);
                ++*next;
                response->write(event);
                upstreamWritten += event.size();
            }
            if (*next == kChunks) {
                response->write("data: [DONE]\n\n");
                response->finish();
            }
        };
        m_pumps.push_back(pump); // kept alive while the stream runs
        (*pump)();
    }

private:
    std::vector<std::shared_ptr<std::function<void()>>> m_pumps;
};

int connectSlowClient(quint16 port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    // A small receive window: the kernel holds little for the client, so the proxy sees it is slow.
    const int small = 64 * 1024;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// Removes HTTP/1.1 chunked framing from a complete body.
QByteArray dechunk(const QByteArray &framed, bool *complete)
{
    QByteArray out;
    qsizetype at = 0;
    *complete = false;
    for (;;) {
        const qsizetype lineEnd = framed.indexOf("\r\n", at);
        if (lineEnd < 0)
            return out;
        bool ok = false;
        const qint64 size = framed.mid(at, lineEnd - at).toLongLong(&ok, 16);
        if (!ok)
            return out;
        if (size == 0) {
            *complete = true;
            return out;
        }
        out += framed.mid(lineEnd + 2, size);
        at = lineEnd + 2 + size + 2;
    }
}

} // namespace

class tst_ProxyBackpressure : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{5};
    std::unique_ptr<HttpServer> m_upstream;
    ProxyUnderTest m_proxy{m_clock, m_random}; // the Gateway alone: the upstream is the test's own

private slots:
    void initTestCase()
    {
        m_upstream = std::make_unique<HttpServer>(HttpServerLimits(), [](int) { return std::make_unique<FastUpstream>(); }, 1);
        QString error;
        QVERIFY2(m_upstream->listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
        auto config = oneChannelConfig(QStringLiteral("fast"), QStringLiteral("http://127.0.0.1:%1/v1").arg(m_upstream->serverPort()));
        QVERIFY2(m_proxy.startGateway(config, &error), qPrintable(error));
    }

    void cleanupTestCase()
    {
        m_proxy.stop();
        m_upstream->shutdown(500ms);
        m_upstream.reset();
    }

    void aStalledClientStallsTheUpstreamAndStillGetsEverything()
    {
        const int fd = connectSlowClient(m_proxy.gateway->port());
        QVERIFY(fd >= 0);
        const QByteArray body = R"({"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"long"}]})";
        const QByteArray request = rawRequest("POST", "/v1/chat/completions", body);
        QCOMPARE(::send(fd, request.constData(), static_cast<size_t>(request.size()), MSG_NOSIGNAL), ssize_t(request.size()));

        // Phase 1: the client reads nothing. Wait until the upstream cannot write any more (its
        // count stops moving); the guard of 60 s only ends a broken run.
        qint64 last = -1;
        int stillFor = 0;
        for (int i = 0; i < 600 && stillFor < 10; ++i) {
            std::this_thread::sleep_for(100ms);
            const qint64 now = upstreamWritten.load();
            stillFor = (now == last && now > 0) ? stillFor + 1 : 0;
            last = now;
        }
        const qint64 total = qint64(kChunks) * chunkEvent(0, false).size();
        const qint64 stalledAt = upstreamWritten.load();
        qInfo("upstream stalled after %.1f MB of %.1f MB while the client read nothing (upstream waited %d times)",
              stalledAt / 1e6, total / 1e6, upstreamPauses.load());
        QVERIFY2(stalledAt > 0, "the upstream never started");
        // Everything in between (socket buffers on both legs, curl, the proxy's 256 KiB pause mark) is
        // far less than the answer: the proxy did not read the upstream dry into memory.
        QVERIFY2(stalledAt < total / 2, qPrintable(QStringLiteral("upstream wrote %1 of %2 bytes").arg(stalledAt).arg(total)));
        QVERIFY(upstreamPauses.load() > 0);

        // Phase 2: the client reads everything; the answer arrives whole, so the proxy never cut it
        // (it would have, past 8 MiB buffered).
        QByteArray received;
        char buffer[65536];
        for (;;) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 30000) <= 0)
                break;
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0)
                break;
            received.append(buffer, n);
            if (received.endsWith("\r\n0\r\n\r\n"))
                break;
        }
        ::close(fd);
        const qsizetype headEnd = received.indexOf("\r\n\r\n");
        QVERIFY(headEnd > 0);
        QVERIFY2(received.startsWith("HTTP/1.1 200 "), received.left(200).constData());
        bool complete = false;
        const QByteArray sse = dechunk(received.mid(headEnd + 4), &complete);
        QVERIFY2(complete, "the chunked answer did not end: the proxy cut the connection");
        qint64 contentBytes = 0;
        int events = 0;
        bool done = false;
        for (const QByteArray &data : sseData(sse)) {
            if (data == "[DONE]") {
                done = true;
                continue;
            }
            const QJsonObject chunk = QJsonDocument::fromJson(data).object();
            QVERIFY2(!chunk.contains("error"), data.left(300).constData());
            contentBytes += chunk.value("choices").toArray().first().toObject().value("delta").toObject().value("content").toString().size();
            ++events;
        }
        QVERIFY(done);
        QCOMPARE(events, kChunks);
        QCOMPARE(contentBytes, qint64(kChunks) * kContentBytes);
    }
};

QTEST_GUILESS_MAIN(tst_ProxyBackpressure)
#include "tst_ProxyBackpressure.moc"
