#include "common/Logging.h"
#include "net/CurlGlobal.h"
#include "net/UpstreamClient.h"
#include "TlsTestServer.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <memory>

using namespace std::chrono_literals;
using sb::HttpHeaders;
using sb::TransferCallbacks;
using sb::TransferError;
using sb::TransferOptions;
using sb::UpstreamClient;
using sb::UpstreamRequest;

namespace {

// The suite runs twice (see main): plain-HTTP loopback requests through the client's own
// Http1Engine, then every request through libcurl. Both must behave the same.
bool g_http1Engine = true;

class TestClient : public UpstreamClient {
public:
    TestClient() { setHttp1EngineEnabled(g_http1Engine); }
};

// A loopback HTTP/1.1 server with canned answers: it parses each request (head + Content-Length
// body, several per keep-alive connection) and hands it to the test's handler, which writes
// whatever bytes the case needs, now or later.
class CannedServer : public QObject {
public:
    struct Request {
        QByteArray method;
        QByteArray target;
        HttpHeaders headers;
        QByteArray body;
    };
    using Handler = std::function<void(QTcpSocket *socket, const Request &request)>;

    explicit CannedServer(Handler handler = {}) : m_handler(std::move(handler))
    {
        m_server.setListenBacklogSize(1024); // 200 simultaneous connects must not overflow the queue
        listening = m_server.listen(QHostAddress::LocalHost, 0);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                ++accepts;
                sockets.append(socket);
                connect(socket, &QTcpSocket::disconnected, this, [this] { ++closes; });
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
            }
        });
    }

    void setHandler(Handler handler) { m_handler = std::move(handler); }
    QUrl url(const QString &path) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(path));
    }
    quint16 port() const { return m_server.serverPort(); }

    bool listening = false;
    int accepts = 0;
    int closes = 0;
    QList<Request> requests;
    QList<QPointer<QTcpSocket>> sockets;

private:
    void onReadyRead(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
            if (headEnd < 0)
                return;
            const QList<QByteArray> lines = buffer.left(headEnd).split('\n');
            Request request;
            const QList<QByteArray> requestLine = lines.first().trimmed().split(' ');
            request.method = requestLine.value(0);
            request.target = requestLine.value(1);
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const qsizetype colon = lines[i].indexOf(':');
                if (colon > 0)
                    request.headers.add(lines[i].left(colon).trimmed(), lines[i].mid(colon + 1).trimmed());
            }
            const qsizetype length = request.headers.value("Content-Length").toLongLong();
            if (buffer.size() < headEnd + 4 + length)
                return;
            request.body = buffer.mid(headEnd + 4, length);
            buffer.remove(0, headEnd + 4 + length);
            requests.append(request);
            if (m_handler)
                m_handler(socket, request);
        }
    }

    QTcpServer m_server;
    Handler m_handler;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

QByteArray response(int status, const QByteArray &body, const QByteArray &extraHeaders = {})
{
    return "HTTP/1.1 " + QByteArray::number(status) + " Canned\r\nContent-Length: " + QByteArray::number(body.size()) +
           "\r\n" + extraHeaders + "\r\n" + body;
}

const QByteArray kStreamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

QByteArray chunk(const QByteArray &data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

// Sends RST instead of FIN when the socket closes.
void resetConnection(QTcpSocket *socket)
{
    const linger hardClose{1, 0};
    ::setsockopt(static_cast<int>(socket->socketDescriptor()), SOL_SOCKET, SO_LINGER, &hardClose, sizeof hardClose);
    socket->abort();
}

// Everything the client reported for one transfer.
struct Recorder {
    int headerCalls = 0;
    int status = -1;
    HttpHeaders headers;
    int dataCalls = 0;
    QByteArray body;
    int completes = 0;
    TransferError error = TransferError::None;
    QString message;
    std::function<void()> afterData; // runs inside onData

    TransferCallbacks callbacks()
    {
        TransferCallbacks c;
        c.onHeaders = [this](int s, const HttpHeaders &h) {
            ++headerCalls;
            status = s;
            headers = h;
        };
        c.onData = [this](QByteArrayView data) {
            ++dataCalls;
            body += data.toByteArray();
            if (afterData)
                afterData();
        };
        c.onComplete = [this](TransferError e, const QString &m) {
            ++completes;
            error = e;
            message = m;
        };
        return c;
    }
    int calls() const { return headerCalls + dataCalls + completes; }
};

UpstreamRequest post(const QUrl &url, const QByteArray &body = R"({"model":"m"})")
{
    UpstreamRequest request;
    request.method = "POST";
    request.url = url;
    request.body = body;
    request.headers.add("Content-Type", "application/json");
    return request;
}

UpstreamRequest get(const QUrl &url)
{
    UpstreamRequest request;
    request.method = "GET";
    request.url = url;
    return request;
}

quint16 closedPort()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 0;
    const quint16 port = server.serverPort();
    server.close();
    return port;
}


} // namespace

class tst_UpstreamClient : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // The machine's proxy settings must not send loopback test traffic elsewhere.
        for (const char *name : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                                 "no_proxy", "NO_PROXY"})
            qunsetenv(name);
        QVERIFY(sb::CurlGlobal::ensureInitialized());
        qInfo("plain http:// on loopback through %s", g_http1Engine ? "the Http1Engine" : "libcurl");
        qInfo("%s, HTTP/2 %s", qPrintable(sb::CurlGlobal::versionString()),
              sb::CurlGlobal::supportsHttp2() ? "available" : "missing");
    }

    void nonStreamResponseArrivesWhole()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write(response(200, R"({"id":"x","choices":[]})", "Content-Type: application/json\r\n"));
        });
        QVERIFY(server.listening);
        TestClient client;
        Recorder rec;
        UpstreamRequest request = post(server.url("/v1/chat/completions"), R"({"model":"gpt-4o"})");
        request.headers.add("Authorization", "Bearer sk-test-1234567890");
        const quint64 id = client.start(request, {}, rec.callbacks());
        QVERIFY(id != 0);
        QVERIFY(client.isActive(id));
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::None);
        QCOMPARE(rec.headerCalls, 1);
        QCOMPARE(rec.status, 200);
        QCOMPARE(rec.headers.value("content-type"), QByteArray("application/json"));
        QCOMPARE(rec.body, QByteArray(R"({"id":"x","choices":[]})"));
        QVERIFY(!client.isActive(id));

        QCOMPARE(server.requests.size(), 1);
        const auto &seen = server.requests.first();
        QCOMPARE(seen.method, QByteArray("POST"));
        QCOMPARE(seen.target, QByteArray("/v1/chat/completions"));
        QCOMPARE(seen.body, QByteArray(R"({"model":"gpt-4o"})"));
        QCOMPARE(seen.headers.value("Authorization"), QByteArray("Bearer sk-test-1234567890"));
        QCOMPARE(seen.headers.value("Content-Type"), QByteArray("application/json"));
        QVERIFY(!seen.headers.contains("Expect"));
        QVERIFY(!seen.headers.contains("Accept-Encoding")); // bytes pass through undecoded

        const auto stats = client.stats();
        QCOMPARE(stats.started, 1u);
        QCOMPARE(stats.completed, 1u);
        QCOMPARE(stats.failed, 0u);
        QCOMPARE(stats.active, 0u);
        QCOMPARE(stats.bytesReceived, quint64(rec.body.size()));
        QCOMPARE(stats.connectionsOpened, 1u);
        QCOMPARE(stats.http1EngineTransfers, g_http1Engine ? 1u : 0u);
    }

    void streamedPiecesArriveBeforeTheServerFinishes()
    {
        QPointer<QTcpSocket> peer;
        CannedServer server([&](QTcpSocket *socket, const CannedServer::Request &) {
            peer = socket;
            socket->write(kStreamHead + chunk("data: one\n\n"));
        });
        TestClient client;
        Recorder rec;
        UpstreamRequest request = post(server.url("/v1/chat/completions"));
        request.stream = true;
        client.start(request, {}, rec.callbacks());

        QTRY_COMPARE_WITH_TIMEOUT(rec.body, QByteArray("data: one\n\n"), 10000);
        QCOMPARE(rec.headerCalls, 1);
        QCOMPARE(rec.status, 200);
        QCOMPARE(rec.completes, 0); // the server has not finished: this is streaming, not buffering

        QVERIFY(peer);
        peer->write(chunk("data: two\n\n") + chunk("data: [DONE]\n\n") + "0\r\n\r\n");
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::None);
        QCOMPARE(rec.body, QByteArray("data: one\n\ndata: two\n\ndata: [DONE]\n\n"));
        QVERIFY(rec.dataCalls >= 2);
    }

    void rateLimitStatusAndHeadersAreDelivered()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write(response(429, R"({"error":{"code":"rate_limit"}})",
                                   "Retry-After: 7\r\nX-RateLimit-Remaining-Requests: 0\r\n"));
        });
        TestClient client;
        Recorder rec;
        client.start(post(server.url("/v1/chat/completions")), {}, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        // An HTTP error status is a completed exchange; judging it is the ErrorMap's job.
        QCOMPARE(rec.error, TransferError::None);
        QCOMPARE(rec.status, 429);
        QCOMPARE(rec.headers.value("retry-after"), QByteArray("7"));
        QCOMPARE(rec.headers.value("x-ratelimit-remaining-requests"), QByteArray("0"));
        QCOMPARE(rec.body, QByteArray(R"({"error":{"code":"rate_limit"}})"));
    }

    void refusedConnectionIsConnectFailed()
    {
        const quint16 port = closedPort();
        QVERIFY(port != 0);
        TestClient client;
        Recorder rec;
        client.start(post(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(port))), {},
                     rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::ConnectFailed);
        QVERIFY2(!rec.message.isEmpty(), "the message says what went wrong");
        QCOMPARE(rec.headerCalls, 0);
        QCOMPARE(client.stats().failed, 1u);
        QCOMPARE(client.stats().active, 0u);
    }

    // A name that does not resolve and TLS spoken to a plain-HTTP port are the configuration's: they
    // come back as their own errors, so the channel can be set aside as misconfigured.
    void anUnresolvableHostIsNameNotResolved()
    {
        TestClient client;
        Recorder rec;
        client.start(post(QUrl(QStringLiteral("http://nonexistent.invalid:9/v1/chat/completions"))), {}, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 15000);
        QCOMPARE(rec.error, TransferError::NameNotResolved);
        QVERIFY2(rec.message.contains(QLatin1String("nonexistent.invalid")), qPrintable(rec.message));
        QCOMPARE(rec.headerCalls, 0);
    }

    void tlsToAPlainHttpPortIsTlsFailed()
    {
        // A plain-HTTP server answers the ClientHello as the bad request it is, as nginx or llhttp do.
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        connect(&server, &QTcpServer::newConnection, &server, [&server] {
            while (QTcpSocket *socket = server.nextPendingConnection())
                connect(socket, &QTcpSocket::readyRead, socket, [socket] {
                    socket->readAll();
                    socket->write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                    socket->disconnectFromHost();
                });
        });
        TestClient client;
        Recorder rec;
        client.start(post(QUrl(QStringLiteral("https://127.0.0.1:%1/v1/chat/completions").arg(server.serverPort()))), {}, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 15000);
        QCOMPARE(rec.error, TransferError::TlsFailed);
        QVERIFY2(rec.message.startsWith(QLatin1String("TLS with the upstream failed")), qPrintable(rec.message));
        QCOMPARE(rec.headerCalls, 0);
    }

    void connectTimeoutIsConnectFailed()
    {
        // A listener whose accept queue is full drops further SYNs, so a connect hangs until the
        // connect timeout: the loopback stand-in for an unreachable host.
        const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
        QVERIFY(listener >= 0);
        const auto closeListener = qScopeGuard([listener] { ::close(listener); });
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        QCOMPARE(::bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
        QCOMPARE(::listen(listener, 0), 0);
        socklen_t length = sizeof address;
        QCOMPARE(::getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length), 0);
        const quint16 port = ntohs(address.sin_port);
        QTcpSocket fillers[2];
        for (auto &filler : fillers)
            filler.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(fillers[0].waitForConnected(5000));

        TestClient client;
        Recorder rec;
        TransferOptions options;
        options.connectTimeout = 300ms;
        options.totalTimeout = 30s;
        QElapsedTimer elapsed;
        elapsed.start();
        client.start(post(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(port))), options,
                     rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::ConnectFailed); // nothing was sent: safe to retry anywhere
        QVERIFY2(elapsed.elapsed() >= 250, "the connect timeout must not fire early");
        QVERIFY2(rec.message.contains(QLatin1String("timeout"), Qt::CaseInsensitive), qPrintable(rec.message));
    }

    void silentServerTimesOutWithinTotalTimeout()
    {
        CannedServer server; // accepts, reads, never answers
        TestClient client;
        Recorder rec;
        TransferOptions options;
        options.totalTimeout = 300ms;
        QElapsedTimer elapsed;
        elapsed.start();
        client.start(post(server.url("/v1/chat/completions")), options, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::Timeout);
        QVERIFY2(elapsed.elapsed() >= 250, "the timeout must not fire before the budget is spent");
        QCOMPARE(server.requests.size(), 1); // the request did go out: Timeout, not ConnectFailed
        QVERIFY(!rec.message.isEmpty());
    }

    void idleTimeoutEndsAStalledStream()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write(kStreamHead + chunk("data: one\n\n")); // then nothing, connection open
        });
        TestClient client;
        Recorder rec;
        TransferOptions options;
        options.totalTimeout = 60s;
        options.idleTimeout = 300ms;
        client.start(post(server.url("/v1/chat/completions")), options, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::Timeout);
        QVERIFY2(rec.message.contains(QLatin1String("300 ms")), qPrintable(rec.message));
        QCOMPARE(rec.body, QByteArray("data: one\n\n"));
        QTRY_COMPARE_WITH_TIMEOUT(server.closes, 1, 5000); // the stalled connection is dropped, not leaked
        QCOMPARE(client.stats().active, 0u);
    }

    void idleTimeoutIsRearmedByEveryChunk()
    {
        // Six chunks 100 ms apart: 600 ms in all, but never 1 s without a byte.
        QPointer<QTcpSocket> peer;
        QTimer pacer;
        int sent = 0;
        CannedServer server([&](QTcpSocket *socket, const CannedServer::Request &) {
            peer = socket;
            socket->write(kStreamHead);
            pacer.start(100);
        });
        connect(&pacer, &QTimer::timeout, this, [&] {
            if (!peer)
                return;
            ++sent;
            peer->write(chunk("data: " + QByteArray::number(sent) + "\n\n"));
            if (sent == 6) {
                peer->write("0\r\n\r\n");
                pacer.stop();
            }
        });
        TestClient client;
        Recorder rec;
        TransferOptions options;
        options.idleTimeout = 1s;
        client.start(post(server.url("/v1/chat/completions")), options, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 15000);
        QCOMPARE(rec.error, TransferError::None);
        QVERIFY(rec.body.endsWith("data: 6\n\n"));
    }

    void brokenConnectionMidBodyIsReported_data()
    {
        QTest::addColumn<bool>("hardReset");
        QTest::newRow("RST") << true;
        QTest::newRow("early FIN") << false;
    }

    void brokenConnectionMidBodyIsReported()
    {
        QFETCH(bool, hardReset);
        QPointer<QTcpSocket> peer;
        CannedServer server([&](QTcpSocket *socket, const CannedServer::Request &) {
            peer = socket;
            socket->write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789");
            socket->flush();
        });
        TestClient client;
        Recorder rec;
        client.start(post(server.url("/v1/chat/completions")), {}, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.body, QByteArray("0123456789"), 10000);
        QVERIFY(peer);
        if (hardReset)
            resetConnection(peer);
        else
            peer->disconnectFromHost();
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::Reset);
        QVERIFY2(rec.message.contains(QLatin1String("broke")), qPrintable(rec.message));
    }

    void cancelMidStreamClosesTheConnectionAndSilencesCallbacks()
    {
        QPointer<QTcpSocket> peer;
        CannedServer server([&](QTcpSocket *socket, const CannedServer::Request &) {
            peer = socket;
            socket->write(kStreamHead + chunk("data: one\n\n"));
        });
        TestClient client;
        Recorder rec;
        const quint64 id = client.start(post(server.url("/v1/chat/completions")), {}, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.dataCalls, 1, 10000);
        QVERIFY(peer);
        // More data and the end of the stream are on their way when the caller gives up.
        peer->write(chunk("data: two\n\n") + "0\r\n\r\n");
        peer->flush();
        const int callsBefore = rec.calls();
        client.cancel(id);
        QVERIFY(!client.isActive(id));
        QTRY_COMPARE_WITH_TIMEOUT(server.closes, 1, 5000); // the upstream sees the abort
        QCOMPARE(rec.calls(), callsBefore);                  // and the caller hears nothing more
        QCOMPARE(rec.completes, 0);
        client.cancel(id); // twice is harmless
        const auto stats = client.stats();
        QCOMPARE(stats.cancelled, 1u);
        QCOMPARE(stats.active, 0u);
        QCOMPARE(stats.completed + stats.failed, 0u);
    }

    void cancelFromInsideOnDataIsSafe()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write(kStreamHead + chunk("data: one\n\n"));
            socket->flush();
            socket->write(chunk("data: two\n\n") + "0\r\n\r\n");
        });
        TestClient client;
        Recorder rec;
        quint64 id = 0;
        rec.afterData = [&] { client.cancel(id); };
        id = client.start(post(server.url("/v1/chat/completions")), {}, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(server.closes, 1, 10000);
        QCOMPARE(rec.dataCalls, 1);
        QCOMPARE(rec.completes, 0);
        QCOMPARE(client.stats().cancelled, 1u);
        QCOMPARE(client.stats().active, 0u);

        // The client stays usable afterwards.
        Recorder next;
        server.setHandler([](QTcpSocket *socket, const CannedServer::Request &) { socket->write(response(200, "ok")); });
        client.start(get(server.url("/v1/models")), {}, next.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(next.completes, 1, 10000);
        QCOMPARE(next.body, QByteArray("ok"));
    }

    void cancelFromInsideOnHeadersIsSafe()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write(response(200, "body that must not be delivered"));
        });
        TestClient client;
        Recorder rec;
        quint64 id = 0;
        TransferCallbacks callbacks = rec.callbacks();
        const auto recordHeaders = callbacks.onHeaders;
        callbacks.onHeaders = [&](int status, const HttpHeaders &headers) {
            recordHeaders(status, headers);
            client.cancel(id);
        };
        id = client.start(get(server.url("/v1/models")), {}, callbacks);
        QTRY_COMPARE_WITH_TIMEOUT(rec.headerCalls, 1, 10000);
        QCOMPARE(rec.dataCalls, 0);
        QCOMPARE(rec.completes, 0);
        QCOMPARE(client.stats().active, 0u);
    }

    void pausedTransferReceivesNothingUntilResumed()
    {
        // 4 MiB in one go: far more than one read, so a transfer that kept reading while paused
        // would keep calling onData.
        const QByteArray payload(4 * 1024 * 1024, 'p');
        QPointer<QTcpSocket> peer;
        CannedServer server([&](QTcpSocket *socket, const CannedServer::Request &) {
            peer = socket;
            socket->write(response(200, payload));
        });
        TestClient client;
        Recorder rec;
        quint64 id = 0;
        rec.afterData = [&] {
            if (rec.dataCalls == 1)
                client.pause(id);
        };
        TransferOptions options;
        options.idleTimeout = 200ms; // must not run while the caller holds the transfer paused
        id = client.start(get(server.url("/big")), options, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.dataCalls, 1, 10000);
        const qsizetype firstBytes = rec.body.size();
        QVERIFY(firstBytes < payload.size());
        QTest::qWait(500); // real sockets: give a transfer that ignored the pause time to read on
        QCOMPARE(rec.dataCalls, 1);
        QCOMPARE(rec.body.size(), firstBytes);
        QCOMPARE(rec.completes, 0);
        QVERIFY(client.isActive(id));

        rec.afterData = nullptr;
        client.resume(id);
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 20000);
        QCOMPARE(rec.error, TransferError::None);
        QCOMPARE(rec.body.size(), payload.size());
        QVERIFY(rec.body == payload);
    }

    void sequentialRequestsReuseOneConnection()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &request) {
            socket->write(response(200, "answer to " + request.target));
        });
        TestClient client;
        QList<QByteArray> bodies;
        int finished = 0;
        // Each request starts from the previous one's onComplete, as a retry loop would.
        std::function<void()> next = [&] {
            auto body = std::make_shared<QByteArray>();
            TransferCallbacks callbacks;
            callbacks.onData = [body](QByteArrayView data) { *body += data.toByteArray(); };
            callbacks.onComplete = [&, body](TransferError error, const QString &) {
                QCOMPARE(error, TransferError::None);
                bodies.append(*body);
                if (++finished < 20)
                    next();
            };
            client.start(get(server.url(QStringLiteral("/r%1").arg(finished))), {}, callbacks);
        };
        next();
        QTRY_COMPARE_WITH_TIMEOUT(finished, 20, 20000);
        QCOMPARE(bodies.size(), 20);
        QCOMPARE(bodies.at(19), QByteArray("answer to /r19"));
        QCOMPARE(server.accepts, 1);
        QCOMPARE(client.stats().connectionsOpened, 1u);
        QCOMPARE(client.stats().connectionsReused, 19u);
    }

    // Easy handles are reused (EasyHandlePool): nothing of one transfer's options may reach the next.
    void aReusedHandleCarriesNothingOfThePreviousTransfer()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &request) {
            socket->write(response(200, "ok " + request.method));
        });
        TestClient client;
        const auto run = [&](const UpstreamRequest &request) {
            Recorder rec;
            client.start(request, {}, rec.callbacks());
            QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
            QCOMPARE(rec.error, TransferError::None);
            QCOMPARE(rec.body, "ok " + request.method);
        };
        UpstreamRequest first = post(server.url(QStringLiteral("/first")), "{\"first\":1}");
        first.headers.add("X-Leftover", "yes");
        first.headers.add("Authorization", "Bearer sk-first-transfer-secret");
        run(first);
        // libcurl: the same easy handle goes out and comes back; the Http1Engine: the same connection.
        const auto kept = [&] { return g_http1Engine ? client.idleHttp1Connections() : client.idleEasyHandles(); };
        QTRY_COMPARE_WITH_TIMEOUT(kept(), std::size_t(1), 5000);
        run(get(server.url(QStringLiteral("/second"))));
        QCOMPARE(kept(), std::size_t(1));
        run(post(server.url(QStringLiteral("/third")), "{}"));

        QCOMPARE(server.requests.size(), 3);
        const CannedServer::Request &second = server.requests.at(1);
        QCOMPARE(second.method, QByteArray("GET"));
        QCOMPARE(second.target, QByteArray("/second"));
        QVERIFY(!second.headers.contains("X-Leftover"));
        QVERIFY(!second.headers.contains("Authorization"));
        QVERIFY(!second.headers.contains("Content-Type"));
        QVERIFY(second.body.isEmpty());
        const CannedServer::Request &third = server.requests.at(2);
        QCOMPARE(third.method, QByteArray("POST"));
        QCOMPARE(third.body, QByteArray("{}"));
        QVERIFY(!third.headers.contains("X-Leftover"));
        QVERIFY(!third.headers.contains("Authorization"));
        QCOMPARE(server.accepts, 1); // the connection outlives the handles' resets
    }

    void idleConnectionsAreClosedAndTheClientGoesOn()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) { socket->write(response(200, "ok")); });
        TestClient client;
        client.setIdleConnectionLifetime(300ms);
        int finished = 0;
        TransferCallbacks callbacks;
        callbacks.onComplete = [&](TransferError error, const QString &) {
            QCOMPARE(error, TransferError::None);
            ++finished;
        };
        client.start(get(server.url(QStringLiteral("/a"))), {}, callbacks);
        QTRY_COMPARE_WITH_TIMEOUT(finished, 1, 10000);
        QCOMPARE(server.closes, 0); // kept alive for the next request …
        QTRY_COMPARE_WITH_TIMEOUT(server.closes, 1, 10000); // … until the quiet spell ends it
        QCOMPARE(client.stats().idleSweeps, 1u);
        client.start(get(server.url(QStringLiteral("/b"))), {}, callbacks);
        QTRY_COMPARE_WITH_TIMEOUT(finished, 2, 10000);
        QCOMPARE(server.accepts, 2); // a fresh connection, and the client works as before
    }

    void twoHundredConcurrentTransfersToOneServer()
    {
        // The server answers nobody until it holds all 200 requests at once: a client capped at a
        // few connections per host (QNetworkAccessManager: 6) would wait here forever.
        constexpr int kCount = 200;
        QList<QPointer<QTcpSocket>> waiting;
        CannedServer server([&](QTcpSocket *socket, const CannedServer::Request &) {
            waiting.append(socket);
            if (waiting.size() == kCount) {
                for (const auto &peer : waiting) {
                    if (peer)
                        peer->write(response(200, "ok"));
                }
            }
        });
        TestClient client;
        int ok = 0;
        int done = 0;
        QElapsedTimer elapsed;
        elapsed.start();
        for (int i = 0; i < kCount; ++i) {
            TransferCallbacks callbacks;
            auto status = std::make_shared<int>(0);
            callbacks.onHeaders = [status](int s, const HttpHeaders &) { *status = s; };
            callbacks.onComplete = [&, status](TransferError error, const QString &) {
                ++done;
                if (error == TransferError::None && *status == 200)
                    ++ok;
            };
            TransferOptions options;
            options.connectTimeout = 20s;
            options.totalTimeout = 60s;
            client.start(post(server.url(QStringLiteral("/v1/chat/completions"))), options, callbacks);
        }
        QCOMPARE(client.stats().active, quint64(kCount));
        QTRY_COMPARE_WITH_TIMEOUT(done, kCount, 90000);
        qInfo("%d concurrent transfers to one loopback server: %lld ms from first start to last completion",
              kCount, static_cast<long long>(elapsed.elapsed()));
        QCOMPARE(ok, kCount);
        QCOMPARE(server.accepts, kCount);
        QCOMPARE(client.stats().completed, quint64(kCount));
        QCOMPARE(client.stats().active, 0u);
    }

    void http2IsUsedWhenTheServerOffersIt_data()
    {
        QTest::addColumn<bool>("allowHttp2");
        QTest::newRow("h2 allowed") << true;
        QTest::newRow("HTTP/1.1 forced") << false;
    }

    void http2IsUsedWhenTheServerOffersIt()
    {
        QFETCH(bool, allowHttp2);
        if (!sb::CurlGlobal::supportsHttp2())
            QSKIP("this libcurl has no HTTP/2");
        sb::test::TlsTestServer server;
        QString why;
        if (!server.start(&why))
            QSKIP(qPrintable(why));
        TestClient client;
        constexpr int kCount = 10;
        Recorder recs[kCount];
        TransferOptions options;
        options.allowHttp2 = allowHttp2;
        options.caBundlePath = server.caFile();
        // GET, not POST: nginx's `return` answers before a POST body has arrived and then resets the
        // stream, which a slow client (the sanitizer build under load) sees as a broken stream. What is
        // under test here is multiplexing, not nginx's handling of unread bodies.
        for (auto &rec : recs)
            client.start(get(server.url(QStringLiteral("/v1/models"))), options, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(client.stats().active, 0u, 20000);
        for (const auto &rec : recs) {
            QVERIFY2(rec.error == TransferError::None, qPrintable(rec.message)); // say why, should it ever fail
            QCOMPARE(rec.status, 200);
            QCOMPARE(rec.body, QByteArray(R"({"ok":true})"));
        }
        const auto stats = client.stats();
        if (allowHttp2) {
            QCOMPARE(stats.http2Transfers, quint64(kCount));
            QCOMPARE(stats.connectionsOpened, 1u); // ten concurrent streams multiplexed on one connection
        } else {
            QCOMPARE(stats.http2Transfers, 0u);
            QVERIFY(stats.connectionsOpened > 1u);
        }
    }

    // A refused certificate is the configuration's (a CA bundle to set), not the provider being down.
    void untrustedCertificateIsTlsFailed()
    {
        sb::test::TlsTestServer server;
        QString why;
        if (!server.start(&why))
            QSKIP(qPrintable(why));
        TestClient client;
        Recorder rec;
        client.start(get(server.url(QStringLiteral("/v1/models"))), {}, rec.callbacks()); // system CAs only
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 20000);
        QCOMPARE(rec.error, TransferError::TlsFailed);
        QCOMPARE(rec.headerCalls, 0);
    }

    void egressProxyCarriesTheRequest()
    {
        // A forward proxy for plain http receives the absolute URI; the target itself is closed, so
        // an answer can only have come through the proxy.
        const quint16 target = closedPort();
        QVERIFY(target != 0);
        CannedServer proxy([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write(response(200, "via proxy"));
        });
        TestClient client;
        Recorder rec;
        TransferOptions options;
        options.proxyUrl = QStringLiteral("http://127.0.0.1:%1").arg(proxy.port());
        const QUrl url(QStringLiteral("http://127.0.0.1:%1/v1/models").arg(target));
        client.start(get(url), options, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::None);
        QCOMPARE(rec.body, QByteArray("via proxy"));
        QCOMPARE(proxy.requests.size(), 1);
        QCOMPARE(proxy.requests.first().target, url.toEncoded());
        QCOMPARE(proxy.requests.first().headers.value("Host"), QStringLiteral("127.0.0.1:%1").arg(target).toLatin1());
    }

    void environmentProxyIsTheDefault()
    {
        const quint16 target = closedPort();
        QVERIFY(target != 0);
        CannedServer proxy([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write(response(200, "via environment proxy"));
        });
        qputenv("http_proxy", QStringLiteral("http://127.0.0.1:%1").arg(proxy.port()).toLatin1());
        const auto restore = qScopeGuard([] { qunsetenv("http_proxy"); });
        TestClient client;
        Recorder rec;
        const QUrl url(QStringLiteral("http://127.0.0.1:%1/v1/models").arg(target));
        client.start(get(url), {}, rec.callbacks()); // no proxyUrl: the environment decides
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::None);
        QCOMPARE(rec.body, QByteArray("via environment proxy"));
        QCOMPARE(proxy.requests.size(), 1);
        QCOMPARE(proxy.requests.first().target, url.toEncoded());
    }

    void oversizedBodyIsTooLarge()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write(response(200, QByteArray(5000, 'x')));
        });
        TestClient client;
        Recorder rec;
        TransferOptions options;
        options.maxResponseBytes = 1000;
        client.start(get(server.url("/big")), options, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::TooLarge);
        QVERIFY(rec.body.size() <= 1000);
        QVERIFY2(rec.message.contains(QLatin1String("1000")), qPrintable(rec.message));
    }

    void badUrlFailsFromTheEventLoopNotFromStart()
    {
        TestClient client;
        Recorder rec;
        UpstreamRequest request = get(QUrl(QStringLiteral("ftp://127.0.0.1/file")));
        const quint64 id = client.start(request, {}, rec.callbacks());
        QVERIFY(id != 0);
        QCOMPARE(rec.completes, 0); // the caller holds the id before any callback
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 5000);
        QCOMPARE(rec.error, TransferError::Other);
        QVERIFY2(rec.message.contains(QLatin1String("base URL")), qPrintable(rec.message));

        // Cancelled before the failure is delivered: no callback at all.
        Recorder silent;
        const quint64 second = client.start(request, {}, silent.callbacks());
        client.cancel(second);
        Recorder probe; // one more round trip through the event loop
        client.start(request, {}, probe.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(probe.completes, 1, 5000);
        QCOMPARE(silent.calls(), 0);
    }

    void headerWithALineBreakIsRefused()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) { socket->write(response(200, "ok")); });
        TestClient client;
        Recorder rec;
        UpstreamRequest request = post(server.url("/v1/chat/completions"));
        request.headers.add("Authorization", "Bearer sk-pasted-with-newline\nX-Injected: 1");
        client.start(request, {}, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 5000);
        QCOMPARE(rec.error, TransferError::Other);
        QVERIFY2(rec.message.contains(QLatin1String("Authorization")), qPrintable(rec.message));
        QVERIFY2(!rec.message.contains(QLatin1String("sk-pasted")), qPrintable(rec.message));
        QCOMPARE(server.requests.size(), 0); // nothing went out
    }

    // A kept-alive connection the server closed as the next request went out (its keep-alive
    // timeout ran out) answers nothing: the request goes again, once, on a fresh connection.
    void aKeptAliveConnectionThatDiesUnansweredIsRetriedOnAFreshOne()
    {
        QHash<QTcpSocket *, int> served;
        CannedServer server([&](QTcpSocket *socket, const CannedServer::Request &) {
            if (++served[socket] == 1)
                socket->write(response(200, "answered"));
            else
                socket->disconnectFromHost(); // reads the request, closes without a word
        });
        TestClient client;
        Recorder first;
        Recorder second;
        client.start(post(server.url("/a")), {}, first.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(first.completes, 1, 10000);
        client.start(post(server.url("/b")), {}, second.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(second.completes, 1, 10000);
        QCOMPARE(second.error, TransferError::None);
        QCOMPARE(second.body, QByteArray("answered"));
        QCOMPARE(server.accepts, 2);
        QCOMPARE(server.requests.size(), 3); // /a; /b on the old connection, then on the new one
    }

    // On a connection opened for it, a request the server took and never answered may have been
    // acted on: it is not sent again.
    void aFreshConnectionClosedUnansweredIsResetNotRetried()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) { socket->disconnectFromHost(); });
        TestClient client;
        Recorder rec;
        client.start(post(server.url("/a")), {}, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::Reset);
        QCOMPARE(rec.headerCalls, 0);
        QCOMPARE(server.requests.size(), 1);
    }

    void aBodyEndedByTheConnectionsCloseIsComplete()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nall of it");
            socket->disconnectFromHost();
        });
        TestClient client;
        for (int round = 1; round <= 2; ++round) {
            Recorder rec;
            client.start(get(server.url("/a")), {}, rec.callbacks());
            QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
            QCOMPARE(rec.error, TransferError::None);
            QCOMPARE(rec.body, QByteArray("all of it"));
            QCOMPARE(server.accepts, round); // the closed connection is not reused
        }
    }

    void interimResponsesAreSkipped()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n" +
                          response(200, "final", "X-Final: yes\r\n"));
        });
        TestClient client;
        Recorder rec;
        client.start(post(server.url("/a")), {}, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::None);
        QCOMPARE(rec.headerCalls, 1);
        QCOMPARE(rec.status, 200);
        QCOMPARE(rec.headers.value("x-final"), QByteArray("yes"));
        QVERIFY(!rec.headers.contains("Link"));
        QCOMPARE(rec.body, QByteArray("final"));
    }

    void aResponseThatIsNotHttpIsAnError()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write("SSH-2.0-OpenSSH_9.2\r\n");
        });
        TestClient client;
        Recorder rec;
        TransferOptions options;
        options.totalTimeout = 5s;
        client.start(post(server.url("/a")), options, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::Other);
        QCOMPARE(rec.headerCalls, 0);
        QVERIFY(!rec.message.isEmpty());
    }

    void aHeadResponseHasNoBodyWhateverItsLengthSays()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &request) {
            if (request.method == "HEAD")
                socket->write("HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n");
            else
                socket->write(response(200, "after"));
        });
        TestClient client;
        Recorder head;
        UpstreamRequest request = get(server.url("/models"));
        request.method = "HEAD";
        client.start(request, {}, head.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(head.completes, 1, 10000);
        QCOMPARE(head.error, TransferError::None);
        QCOMPARE(head.status, 200);
        QVERIFY(head.body.isEmpty());
        Recorder next;
        client.start(get(server.url("/next")), {}, next.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(next.completes, 1, 10000);
        QCOMPARE(next.body, QByteArray("after"));
        QCOMPARE(server.accepts, 1); // the connection was left at the right byte
    }

    void localhostIsReachedLikeALiteralAddress()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &request) {
            socket->write(response(200, "host " + request.headers.value("Host")));
        });
        TestClient client;
        Recorder rec;
        client.start(get(QUrl(QStringLiteral("http://localhost:%1/v1/models").arg(server.port()))), {}, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(rec.error, TransferError::None);
        QCOMPARE(rec.body, "host localhost:" + QByteArray::number(server.port()));
        QCOMPARE(client.stats().http1EngineTransfers, g_http1Engine ? 1u : 0u);
    }

    // The default, and the operator's way back to libcurl for everything.
    void theEngineIsChosenByTheEnvironment()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) { socket->write(response(200, "ok")); });
        const auto run = [&] {
            UpstreamClient client; // not a TestClient: the constructor's own choice
            Recorder rec;
            client.start(get(server.url("/a")), {}, rec.callbacks());
            [&] { QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000); }();
            return client.stats().http1EngineTransfers;
        };
        QCOMPARE(run(), 1u);
        qputenv("SB_UPSTREAM_ENGINE", "curl");
        const auto restore = qScopeGuard([] { qunsetenv("SB_UPSTREAM_ENGINE"); });
        QCOMPARE(run(), 0u);
    }

    void apiKeysNeverReachTheLog()
    {
        sb::LoggingOptions logging;
        logging.toStderr = false;
        logging.level = QStringLiteral("debug");
        sb::setupLogging(logging);

        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write(response(401, R"({"error":"bad key"})"));
        });
        TestClient client;
        Recorder rec;
        UpstreamRequest request = post(server.url("/v1beta/models/gemini:generateContent?key=AIzaSECRETSECRET9876"));
        request.headers.add("Authorization", "Bearer sk-SECRETSECRETSECRET1234");
        request.headers.add("x-api-key", "sk-ant-SECRETSECRET5678");
        client.start(request, {}, rec.callbacks());
        QTRY_COMPARE_WITH_TIMEOUT(rec.completes, 1, 10000);
        QCOMPARE(server.requests.first().headers.value("x-api-key"), QByteArray("sk-ant-SECRETSECRET5678"));

        const QString log = sb::recentLogLines(50).join(QLatin1Char('\n'));
        QVERIFY2(log.contains(QLatin1String("upstream #")), qPrintable(log)); // the request was logged…
        QVERIFY2(log.contains(QLatin1String("1234")), qPrintable(log));       // …with keys told apart…
        QVERIFY2(!log.contains(QLatin1String("SECRET")), qPrintable(log));    // …but never usable
    }

    void runsOnItsWorkersEventLoop()
    {
        // Production shape: the client is created, used and destroyed on a worker thread; the
        // canned server stays on the test thread.
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write(kStreamHead + chunk("data: one\n\n") + "0\r\n\r\n");
        });
        QThread worker;
        worker.start();
        QObject context;
        context.moveToThread(&worker);
        UpstreamClient *client = nullptr;
        QMetaObject::invokeMethod(&context, [&] { client = new TestClient; }, Qt::BlockingQueuedConnection);

        std::atomic<int> completes{0};
        std::atomic<int> wrongThread{0};
        const auto check = [&] {
            if (QThread::currentThread() != &worker)
                ++wrongThread;
        };
        QMetaObject::invokeMethod(&context, [&] {
            for (int i = 0; i < 5; ++i) {
                TransferCallbacks callbacks;
                callbacks.onHeaders = [&](int, const HttpHeaders &) { check(); };
                callbacks.onData = [&](QByteArrayView) { check(); };
                callbacks.onComplete = [&](TransferError error, const QString &) {
                    check();
                    if (error == TransferError::None)
                        ++completes;
                };
                client->start(post(server.url(QStringLiteral("/v1/chat/completions"))), {}, callbacks);
            }
        });
        QTRY_COMPARE_WITH_TIMEOUT(completes.load(), 5, 10000);
        QMetaObject::invokeMethod(&context, [&] { delete client; }, Qt::BlockingQueuedConnection);
        worker.quit();
        QVERIFY(worker.wait(10000));
        QCOMPARE(wrongThread.load(), 0);
    }

    void destroyingTheClientAbortsEverything()
    {
        CannedServer server([](QTcpSocket *socket, const CannedServer::Request &) {
            socket->write(kStreamHead + chunk("data: one\n\n"));
        });
        auto client = std::make_unique<TestClient>();
        Recorder recs[3];
        for (auto &rec : recs)
            client->start(post(server.url("/v1/chat/completions")), {}, rec.callbacks());
        QTRY_VERIFY_WITH_TIMEOUT(recs[0].dataCalls == 1 && recs[1].dataCalls == 1 && recs[2].dataCalls == 1, 10000);
        client.reset();
        QTRY_COMPARE_WITH_TIMEOUT(server.closes, 3, 5000);
        for (const auto &rec : recs)
            QCOMPARE(rec.completes, 0);
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int failures = 0;
    for (const bool plainHttp : {true, false}) {
        g_http1Engine = plainHttp;
        tst_UpstreamClient suite;
        failures += QTest::qExec(&suite, argc, argv);
    }
    return failures;
}
#include "tst_UpstreamClient.moc"
