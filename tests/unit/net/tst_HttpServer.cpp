#include "net/ErrorBody.h"
#include "net/HttpHandler.h"
#include "net/HttpServer.h"
#include "net/ListenAddress.h"
#include "net/ResponseWriter.h"

#include "FakeRandom.h"

#include <llhttp.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>
#include <QUrlQuery>
#include <QtTest>

#include <atomic>
#include <memory>
#include <set>

using namespace std::chrono_literals;
using sb::HttpHeaders;
using sb::HttpRequest;
using sb::HttpServer;
using sb::HttpServerLimits;
using sb::ResponseWriter;

namespace {

// What the test handlers saw, shared with the test thread.
struct Observed {
    QMutex mutex;
    QStringList log;
    std::atomic<int> closedCalls{0};
    std::atomic<int> secondPieceWritten{0};
    std::atomic<bool> release{false};
    std::atomic<int> piecesWritten{0};
    std::atomic<int> pauses{0};
    std::atomic<qint64> maxBuffered{0};

    void add(const QString &line)
    {
        QMutexLocker lock(&mutex);
        log << line;
    }
    QStringList lines()
    {
        QMutexLocker lock(&mutex);
        return log;
    }
    void reset()
    {
        QMutexLocker lock(&mutex);
        log.clear();
        closedCalls = 0;
        secondPieceWritten = 0;
        release = false;
        piecesWritten = 0;
        pauses = 0;
        maxBuffered = 0;
    }
};
Observed observed;

int queryInt(const HttpRequest &request, const QString &key, int fallback)
{
    const QUrlQuery query(QString::fromLatin1(request.query));
    return query.hasQueryItem(key) ? query.queryItemValue(key).toInt() : fallback;
}

// Streams `pieces` pieces (-1: until the client goes away), one every `interval` ms, on the worker thread.
// The timer belongs to the handler's context, so a server stopped mid-stream deletes it.
void streamPieces(QObject *context, std::shared_ptr<ResponseWriter> response, int pieces, int interval, int pieceBytes)
{
    auto *timer = new QTimer(context);
    auto written = std::make_shared<int>(0);
    response->onClosed([] { ++observed.closedCalls; });
    QObject::connect(timer, &QTimer::timeout, timer, [timer, response, pieces, written, pieceBytes] {
        if (!response->isOpen()) {
            timer->deleteLater();
            return;
        }
        if (pieces >= 0 && *written == pieces) {
            response->finish();
            timer->deleteLater();
            return;
        }
        const QByteArray piece = pieceBytes > 0 ? QByteArray(pieceBytes, 'x')
                                                : "data: piece " + QByteArray::number(*written) + "\n\n";
        response->write(piece);
        ++*written;
        ++observed.piecesWritten;
    });
    timer->start(interval);
}

// Writes `total` bytes in 64 KiB pieces, but only while less than `high` bytes wait in the
// connection's buffer; onDrained resumes it. This is how the proxy paces an upstream to a slow client.
struct PacedWriter : std::enable_shared_from_this<PacedWriter> {
    static constexpr qint64 kPiece = 64 * 1024;
    static constexpr qint64 kHigh = 256 * 1024;
    std::shared_ptr<ResponseWriter> response;
    qint64 left = 0;
    bool paused = false;

    void start()
    {
        auto self = shared_from_this();
        response->onDrained(kHigh / 2, [self] {
            if (self->paused) {
                self->paused = false;
                self->pump();
            }
        });
        pump();
    }
    void pump()
    {
        while (left > 0 && response->isOpen()) {
            if (response->bufferedBytes() >= kHigh) {
                paused = true;
                ++observed.pauses;
                return;
            }
            const qint64 n = std::min(left, kPiece);
            response->write(QByteArray(int(n), 'p'));
            left -= n;
            observed.maxBuffered = std::max(observed.maxBuffered.load(), response->bufferedBytes());
        }
        if (left == 0 && response->isOpen()) {
            auto keep = shared_from_this();
            response->onDrained(0, nullptr); // drop the cycle writer -> callback -> this
            response->finish();
        }
    }
};

class TestHandler : public sb::HttpHandler {
public:
    explicit TestHandler(int worker) : m_worker(worker) {}

    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override
    {
        HttpHeaders text;
        text.add("Content-Type", "text/plain");
        const QByteArray path = request.path;
        if (path == "/echo") {
            QJsonObject o;
            o.insert("method", QString::fromLatin1(request.method));
            o.insert("target", QString::fromLatin1(request.target));
            o.insert("body", QString::fromUtf8(request.body));
            o.insert("bodySize", request.body.size());
            o.insert("worker", request.workerIndex);
            o.insert("connection", QString::number(request.connectionId));
            o.insert("transferEncoding", QString::fromLatin1(request.headers.value("Transfer-Encoding")));
            QJsonArray fields;
            for (const auto &[name, value] : request.headers.fields())
                fields.append(QString::fromLatin1(name + ": " + value));
            o.insert("headers", fields);
            HttpHeaders json;
            json.add("Content-Type", "application/json");
            response->send(200, json, QJsonDocument(o).toJson(QJsonDocument::Compact));
        } else if (path == "/delay") {
            const int ms = queryInt(request, "ms", 10);
            observed.add(QStringLiteral("start %1").arg(ms));
            QTimer::singleShot(ms, &m_context, [response, ms, text] {
                observed.add(QStringLiteral("end %1").arg(ms));
                response->send(200, text, "delay " + QByteArray::number(ms));
            });
        } else if (path == "/worker") {
            response->send(200, text, QByteArray::number(m_worker));
        } else if (path == "/stream") {
            HttpHeaders sse;
            sse.add("Content-Type", "text/event-stream");
            response->startStream(200, sse);
            streamPieces(&m_context, response, queryInt(request, "pieces", 3), queryInt(request, "interval", 20),
                         queryInt(request, "bytes", 0));
        } else if (path == "/gated") {
            // First piece at once; the second only after the test saw the first and says so.
            HttpHeaders sse;
            sse.add("Content-Type", "text/event-stream");
            response->startStream(200, sse);
            response->write("data: first\n\n");
            auto *poll = new QTimer(&m_context);
            QObject::connect(poll, &QTimer::timeout, poll, [poll, response] {
                if (!observed.release)
                    return;
                ++observed.secondPieceWritten;
                response->write("data: second\n\n");
                response->finish();
                poll->deleteLater();
            });
            poll->start(5);
        } else if (path == "/paced") {
            response->startStream(200, text);
            response->onClosed([] { ++observed.closedCalls; });
            auto paced = std::make_shared<PacedWriter>();
            paced->response = response;
            paced->left = qint64(queryInt(request, "mib", 1)) * 1024 * 1024;
            paced->start();
        } else if (path == "/drop") {
            // Forgets to answer: the server must answer 500 for it.
        } else {
            response->send(404, text, "no such path");
        }
    }

private:
    int m_worker;
    QObject m_context; // lives on the worker thread, like the handler: parent of its timers
};

// Parses the server's responses with llhttp (response mode), fed from the socket's readyRead.
class Client : public QObject {
public:
    struct Response {
        int status = 0;
        HttpHeaders headers;
        QByteArray body;
        bool complete = false;
    };

    Client()
    {
        llhttp_settings_init(&m_settings);
        m_settings.on_message_begin = [](llhttp_t *p) {
            self(p)->m_responses.push_back(Response());
            return 0;
        };
        m_settings.on_header_field = [](llhttp_t *p, const char *at, size_t n) {
            Client *c = self(p);
            if (c->m_valueSeen) {
                c->current().headers.add(c->m_field, c->m_value);
                c->m_field.clear();
                c->m_value.clear();
                c->m_valueSeen = false;
            }
            c->m_field.append(at, qsizetype(n));
            return 0;
        };
        m_settings.on_header_value = [](llhttp_t *p, const char *at, size_t n) {
            self(p)->m_value.append(at, qsizetype(n));
            self(p)->m_valueSeen = true;
            return 0;
        };
        m_settings.on_headers_complete = [](llhttp_t *p) {
            Client *c = self(p);
            if (c->m_valueSeen)
                c->current().headers.add(c->m_field, c->m_value);
            c->m_field.clear();
            c->m_value.clear();
            c->m_valueSeen = false;
            c->current().status = llhttp_get_status_code(p);
            if (c->current().status >= 200 && c->m_headPending > 0) {
                --c->m_headPending;
                return 1; // a response to HEAD has no body
            }
            return 0;
        };
        m_settings.on_body = [](llhttp_t *p, const char *at, size_t n) {
            self(p)->current().body.append(at, qsizetype(n));
            return 0;
        };
        m_settings.on_message_complete = [](llhttp_t *p) {
            self(p)->current().complete = true;
            return 0;
        };
        llhttp_init(&m_parser, HTTP_RESPONSE, &m_settings);
        m_parser.data = this;
        connect(&socket, &QTcpSocket::readyRead, this, [this] {
            const QByteArray bytes = socket.readAll();
            raw += bytes;
            llhttp_execute(&m_parser, bytes.constData(), size_t(bytes.size()));
        });
        connect(&socket, &QTcpSocket::disconnected, this, [this] {
            disconnected = true;
            llhttp_finish(&m_parser); // completes a close-delimited body
        });
    }

    bool connectTo(quint16 port)
    {
        socket.connectToHost(QHostAddress::LocalHost, port);
        return socket.waitForConnected(10000);
    }
    void send(const QByteArray &bytes) { socket.write(bytes); socket.flush(); }
    void expectHead() { ++m_headPending; }

    int completeCount() const
    {
        int n = 0;
        for (const auto &r : m_responses)
            n += r.complete ? 1 : 0;
        return n;
    }
    // Final responses only (1xx are listed separately).
    std::vector<Response> finals() const
    {
        std::vector<Response> out;
        for (const auto &r : m_responses)
            if (r.status >= 200)
                out.push_back(r);
        return out;
    }
    const std::vector<Response> &all() const { return m_responses; }
    bool hasFinal(int n) const
    {
        int count = 0;
        for (const auto &r : m_responses)
            count += (r.complete && r.status >= 200) ? 1 : 0;
        return count >= n;
    }
    int parseError() const { return llhttp_get_errno(&m_parser); }

    QTcpSocket socket;
    QByteArray raw;
    bool disconnected = false;

private:
    static Client *self(llhttp_t *p) { return static_cast<Client *>(p->data); }
    Response &current() { return m_responses.back(); }

    llhttp_settings_t m_settings;
    llhttp_t m_parser;
    std::vector<Response> m_responses;
    QByteArray m_field;
    QByteArray m_value;
    bool m_valueSeen = false;
    int m_headPending = 0;
};

QByteArray get(const QByteArray &target, const QByteArray &extra = QByteArray())
{
    return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + "\r\n";
}

QJsonObject errorOf(const Client::Response &response)
{
    return QJsonDocument::fromJson(response.body).object().value("error").toObject();
}

constexpr int kWait = 15000;

} // namespace

class tst_HttpServer : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<HttpServer> m_server;

    quint16 start(HttpServerLimits limits = HttpServerLimits(), int workers = 2)
    {
        m_server = std::make_unique<HttpServer>(
            limits, [](int worker) { return std::make_unique<TestHandler>(worker); }, workers);
        QString error;
        if (!m_server->listen(QHostAddress::LocalHost, 0, &error))
            qFatal("listen failed: %s", qPrintable(error));
        return m_server->serverPort();
    }

private slots:
    void init() { observed.reset(); }
    void cleanup() { m_server.reset(); }

    void keepAliveServesSeveralRequests()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        for (int i = 0; i < 5; ++i) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
            QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(i + 1), kWait);
        }
        const auto responses = client.finals();
        QCOMPARE(int(responses.size()), 5);
        QSet<QString> connections;
        for (const auto &r : responses) {
            QCOMPARE(r.status, 200);
            const QJsonObject o = QJsonDocument::fromJson(r.body).object();
            QCOMPARE(o.value("body").toString(), QStringLiteral("hello"));
            connections.insert(o.value("connection").toString());
            QVERIFY(r.headers.value("Connection").isEmpty());
        }
        QCOMPARE(connections.size(), 1);
        QVERIFY(!client.disconnected);
        QCOMPARE(m_server->stats().connectionsAccepted, 1u);
        QCOMPARE(m_server->stats().requests, 5u);
        QCOMPARE(m_server->stats().responses2xx, 5u);
    }

    // A connection's heads share the fields they repeat (RepeatedHead): each must still read as
    // sent, and a name checked on one request is checked again when it differs on the next.
    void keptConnectionReadsEachHeadAsSent()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        const QList<QByteArrayList> heads = {
            {"Host: x", "Accept: */*", "X-Token: abc"},
            {"Host: x", "Accept: */*", "X-Token: abc"},
            {"Host: x", "Accept: */*", "X-Token: abd"},
            {"Host: x", "accept: */*"},
            {"Host: x", "Accept: */*", "X-Token: abc", "X-Later: 1"},
            {"Host: y"},
        };
        for (int i = 0; i < heads.size(); ++i) {
            const QByteArray target = i % 2 ? "/echo?n=1" : "/echo";
            const QByteArray request = "GET " + target + " HTTP/1.1\r\n" + heads[i].join("\r\n") + "\r\n\r\n";
            for (qsizetype at = 0; at < request.size(); at += 5) // in pieces, as a slow client sends
                client.send(request.mid(at, 5));
            QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(i + 1), kWait);
            const QJsonObject echo = QJsonDocument::fromJson(client.finals()[i].body).object();
            QCOMPARE(echo.value("target").toString(), QString::fromLatin1(target));
            QStringList read;
            for (const QJsonValue &field : echo.value("headers").toArray())
                read << field.toString();
            QStringList sent;
            for (const QByteArray &field : heads[i])
                sent << QString::fromLatin1(field);
            QCOMPARE(read, sent);
        }
        // "X Token" is no token: refused, though the same place held a valid name before.
        client.send("GET /echo HTTP/1.1\r\nX Token: abc\r\nHost: x\r\n\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(heads.size() + 1), kWait);
        QCOMPARE(client.finals().back().status, 400);
        QCOMPARE(errorOf(client.finals().back()).value("code").toString(), QStringLiteral("invalid_header"));
    }

    void pipelinedRequestsAreAnsweredInOrder()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        // The first answers last if the three were handled at once; in order, the second may only
        // start after the first ended.
        client.send(get("/delay?ms=300") + get("/delay?ms=5") + get("/echo"));
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(3), kWait);
        const auto responses = client.finals();
        QCOMPARE(responses[0].body, QByteArray("delay 300"));
        QCOMPARE(responses[1].body, QByteArray("delay 5"));
        QCOMPARE(QJsonDocument::fromJson(responses[2].body).object().value("method").toString(), QStringLiteral("GET"));
        QCOMPARE(observed.lines(), QStringList({"start 300", "end 300", "start 5", "end 5"}));
    }

    void chunkedRequestBodyIsDechunked()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        QTest::qWait(50); // the rest arrives in later reads
        client.send("6\r\n world\r\n");
        QTest::qWait(50);
        client.send("1;ext=1\r\n!\r\n0\r\n\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
        const QJsonObject o = QJsonDocument::fromJson(client.finals()[0].body).object();
        QCOMPARE(client.finals()[0].status, 200);
        QCOMPARE(o.value("body").toString(), QStringLiteral("hello world!"));
        QCOMPARE(o.value("bodySize").toInt(), 12);
    }

    void hugeDeclaredBodyGets413WithoutBeingRead()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 104857600\r\n\r\n");
        client.send(QByteArray(256 * 1024, 'a'));
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
        const auto response = client.finals()[0];
        QCOMPARE(response.status, 413);
        QCOMPARE(errorOf(response).value("code").toString(), QStringLiteral("request_too_large"));
        QCOMPARE(response.headers.value("Connection"), QByteArray("close"));
        QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, kWait);
        QVERIFY2(m_server->stats().bytesIn < 2 * 1024 * 1024, QByteArray::number(m_server->stats().bytesIn));
        QCOMPARE(m_server->stats().requests, 0u);
    }

    void expectContinueIsAnsweredOr413()
    {
        const quint16 port = start();
        {
            Client client;
            QVERIFY(client.connectTo(port));
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
            QTRY_VERIFY_WITH_TIMEOUT(!client.all().empty() && client.all()[0].complete, kWait);
            QCOMPARE(client.all()[0].status, 100);
            client.send("abc");
            QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
            QCOMPARE(client.finals()[0].status, 200);
        }
        {
            Client client;
            QVERIFY(client.connectTo(port));
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 999999999\r\n\r\n");
            QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
            QCOMPARE(client.all()[0].status, 413); // no 100 Continue before it
        }
    }

    void chunkedBodyOverTheLimitGets413()
    {
        HttpServerLimits limits;
        limits.maxBodyBytes = 1000;
        const quint16 port = start(limits);
        Client client;
        QVERIFY(client.connectTo(port));
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
        for (int i = 0; i < 3; ++i)
            client.send("258\r\n" + QByteArray(600, 'b') + "\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
        QCOMPARE(client.finals()[0].status, 413);
        QCOMPARE(m_server->stats().requests, 0u);
    }

    void oversizedHeadersGet431()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        client.send(get("/echo", "X-Big: " + QByteArray(70 * 1024, 'h') + "\r\n"));
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
        QCOMPARE(client.finals()[0].status, 431);
        const QJsonObject error = errorOf(client.finals()[0]);
        QCOMPARE(error.value("type").toString(), QStringLiteral("invalid_request_error"));
        QCOMPARE(error.value("code").toString(), QStringLiteral("request_header_fields_too_large"));
        QVERIFY(!error.value("message").toString().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, kWait);
    }

    void tooManyHeadersGet431()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        QByteArray headers;
        for (int i = 0; i < 150; ++i)
            headers += "X-H" + QByteArray::number(i) + ": v\r\n";
        client.send(get("/echo", headers));
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
        QCOMPARE(client.finals()[0].status, 431);
    }

    void contentLengthWithTransferEncodingIs400()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        // Request smuggling: the two framings disagree on where this request ends.
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "0\r\n\r\nGET /worker HTTP/1.1\r\nHost: x\r\n\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, kWait);
        const auto responses = client.finals();
        QCOMPARE(int(responses.size()), 1);
        QCOMPARE(responses[0].status, 400);
        QCOMPARE(m_server->stats().requests, 0u);
    }

    void slowlorisIsCutAtTheHeaderTimeout()
    {
        HttpServerLimits limits;
        limits.headerTimeout = 300ms;
        const quint16 port = start(limits);
        Client client;
        QVERIFY(client.connectTo(port));
        client.send("GET /echo HTTP/1.1\r\nHost: x\r\n");
        int trickled = 0;
        QTimer trickle;
        QObject::connect(&trickle, &QTimer::timeout, &trickle, [&] {
            if (client.socket.state() == QAbstractSocket::ConnectedState && !client.disconnected) {
                client.send("X-Slow-" + QByteArray::number(trickled++) + ": a\r\n");
            }
        });
        trickle.start(50);
        QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, kWait);
        trickle.stop();
        // A header line every 50 ms would go on for ever; the server ended it long before 200 lines.
        QVERIFY2(trickled < 200, QByteArray::number(trickled));
        QCOMPARE(client.finals().size(), std::size_t(1));
        QCOMPARE(client.finals()[0].status, 408);
        QCOMPARE(m_server->stats().timeouts, 1u);
        QCOMPARE(m_server->stats().requests, 0u);
    }

    void slowBodyIsCutAtTheBodyTimeout()
    {
        HttpServerLimits limits;
        limits.bodyTimeout = 300ms;
        const quint16 port = start(limits);
        Client client;
        QVERIFY(client.connectTo(port));
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
        QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, kWait);
        QCOMPARE(client.finals().size(), std::size_t(1));
        QCOMPARE(client.finals()[0].status, 408);
        QCOMPARE(errorOf(client.finals()[0]).value("code").toString(), QStringLiteral("request_timeout"));
        QCOMPARE(m_server->stats().timeouts, 1u);
        QCOMPARE(m_server->stats().requests, 0u);
    }

    void manyPipelinedRequestsAreAllAnsweredInOrder()
    {
        // More than maxPipelinedRequests in one write: reading pauses and resumes, nothing is lost.
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        QByteArray batch;
        for (int i = 0; i < 50; ++i)
            batch += (i % 2 ? get("/echo?i=" + QByteArray::number(i))
                            : "POST /echo?i=" + QByteArray::number(i) + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok");
        client.send(batch);
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(50), kWait);
        const auto responses = client.finals();
        for (int i = 0; i < 50; ++i) {
            const QJsonObject o = QJsonDocument::fromJson(responses[size_t(i)].body).object();
            QCOMPARE(o.value("target").toString(), QStringLiteral("/echo?i=%1").arg(i));
            QCOMPARE(o.value("body").toString(), i % 2 ? QString() : QStringLiteral("ok"));
        }
        QCOMPARE(m_server->stats().requests, 50u);
    }

    void invalidMethodsAndGarbageGetErrorsAndServerStaysUp()
    {
        const quint16 port = start();
        const QList<QPair<QByteArray, int>> cases = {
            {"FOO /echo HTTP/1.1\r\nHost: x\r\n\r\n", 400},
            {"\x01\x02\x03garbage\r\n\r\n", 400},
            {"GET /echo HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n", 400},
            {"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 501},
            {"TRACE /echo HTTP/1.1\r\nHost: x\r\n\r\n", 501},
            {"GET /echo HTTP/2.0\r\nHost: x\r\n\r\n", 505},
            {"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400},
            {"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505},
        };
        for (const auto &[request, status] : cases) {
            Client client;
            QVERIFY(client.connectTo(port));
            client.send(request);
            QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
            QVERIFY2(client.finals()[0].status == status, request.constData());
            QVERIFY(!errorOf(client.finals()[0]).value("message").toString().isEmpty());
            QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, kWait);
        }
        Client healthy;
        QVERIFY(healthy.connectTo(port));
        healthy.send(get("/echo"));
        QTRY_VERIFY_WITH_TIMEOUT(healthy.hasFinal(1), kWait);
        QCOMPARE(healthy.finals()[0].status, 200);
        QCOMPARE(m_server->stats().parseErrors, quint64(cases.size()));
    }

    // RFC 9112 3.2: "A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1
    // request message that lacks a Host header field", or has more than one, or an invalid one.
    void http11RequestWithoutHostIs400()
    {
        const quint16 port = start();
        const QList<QPair<QByteArray, QString>> refused = {
            {"GET /echo HTTP/1.1\r\n\r\n", QStringLiteral("missing_host")},
            {"POST /echo HTTP/1.1\r\nContent-Length: 2\r\n\r\nok", QStringLiteral("missing_host")},
            {"GET /echo HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", QStringLiteral("invalid_host")},
            {"GET /echo HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", QStringLiteral("invalid_host")},
            {"GET /echo HTTP/1.1\r\nHost: user@a\r\n\r\n", QStringLiteral("invalid_host")},
            {"GET /echo HTTP/1.1\r\nHost: a b\r\n\r\n", QStringLiteral("invalid_host")},
        };
        for (const auto &[request, code] : refused) {
            Client client;
            QVERIFY(client.connectTo(port));
            client.send(request);
            QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
            QVERIFY2(client.finals()[0].status == 400, request.constData());
            QCOMPARE(errorOf(client.finals()[0]).value("code").toString(), code);
            QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, kWait);
        }
        QCOMPARE(m_server->stats().parseErrors, quint64(refused.size())); // refused before any handler

        // What the RFC allows: HTTP/1.0 has no Host to require, an empty one (a target without an
        // authority), a port, an IPv6 literal.
        const QList<QByteArray> accepted = {
            "GET /echo HTTP/1.0\r\n\r\n",
            "GET /echo HTTP/1.1\r\nHost:\r\n\r\n",
            "GET /echo HTTP/1.1\r\nhost: 127.0.0.1:8400\r\n\r\n",
            "GET /echo HTTP/1.1\r\nHost: [::1]:8400\r\n\r\n",
        };
        for (const QByteArray &request : accepted) {
            Client client;
            QVERIFY(client.connectTo(port));
            client.send(request);
            QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
            QVERIFY2(client.finals()[0].status == 200, request.constData());
        }
    }

    void mangledRequestsNeverTakeTheServerDown()
    {
        HttpServerLimits limits;
        limits.headerTimeout = 500ms; // so that truncated requests end too
        limits.bodyTimeout = 500ms;
        const quint16 port = start(limits);
        sb::test::FakeRandom random(7);
        const QByteArray valid = "POST /echo?x=1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                 "Content-Length: 11\r\n\r\n{\"a\":\"bcd\"}";
        std::vector<std::unique_ptr<Client>> clients;
        for (int i = 0; i < 100; ++i) {
            QByteArray bytes = valid;
            const int edits = 1 + int(random.nextU64() % 4);
            for (int e = 0; e < edits && !bytes.isEmpty(); ++e) {
                const qsizetype at = qsizetype(random.nextU64() % quint64(bytes.size()));
                switch (random.nextU64() % 3) {
                case 0: bytes[at] = char(random.nextU64() & 0xff); break;
                case 1: bytes.remove(at, 1 + qsizetype(random.nextU64() % 8)); break;
                default: bytes.insert(at, QByteArray(1 + int(random.nextU64() % 8), char(random.nextU64() & 0xff))); break;
                }
            }
            clients.push_back(std::make_unique<Client>());
            QVERIFY(clients.back()->connectTo(port));
            clients.back()->send(bytes + bytes); // and again on the same connection, if it survived the first
        }
        // Each ends in an answer or a close (timeouts included); whatever the server wrote is valid HTTP.
        for (auto &client : clients) {
            QTRY_VERIFY_WITH_TIMEOUT(client->hasFinal(1) || client->disconnected, kWait);
            QCOMPARE(client->parseError(), int(HPE_OK));
        }
        Client healthy;
        QVERIFY(healthy.connectTo(port));
        healthy.send(get("/worker"));
        QTRY_VERIFY_WITH_TIMEOUT(healthy.hasFinal(1), kWait);
        for (auto &client : clients)
            client->socket.abort();
        healthy.socket.abort();
        QTRY_COMPARE_WITH_TIMEOUT(m_server->stats().connectionsOpen, 0, kWait);
        QVERIFY(m_server->stats().parseErrors > 0);
    }

    void streamingResponseArrivesPieceByPiece()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        client.send(get("/gated"));
        QTRY_VERIFY_WITH_TIMEOUT(!client.all().empty() && client.all()[0].body.contains("data: first"), kWait);
        // The first piece reached the client while the handler had not written the second.
        QCOMPARE(observed.secondPieceWritten.load(), 0);
        QVERIFY(!client.all()[0].complete);
        QCOMPARE(client.all()[0].headers.value("Transfer-Encoding"), QByteArray("chunked"));
        QCOMPARE(client.all()[0].headers.value("Content-Type"), QByteArray("text/event-stream"));
        observed.release = true;
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
        QCOMPARE(client.finals()[0].body, QByteArray("data: first\n\ndata: second\n\n"));
        // The connection stays usable after a stream.
        client.send(get("/worker"));
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(2), kWait);
    }

    void clientDisconnectMidStreamRunsOnClosed()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        client.send(get("/stream?pieces=-1&interval=10"));
        QTRY_VERIFY_WITH_TIMEOUT(!client.all().empty() && client.all()[0].body.contains("piece 1"), kWait);
        QCOMPARE(observed.closedCalls.load(), 0);
        client.socket.abort();
        QTRY_COMPARE_WITH_TIMEOUT(observed.closedCalls.load(), 1, kWait);
        QTRY_COMPARE_WITH_TIMEOUT(m_server->stats().connectionsOpen, 0, kWait);
        QCOMPARE(m_server->stats().clientAborts, 1u);
    }

    void gracefulShutdownLetsAStreamFinish()
    {
        const quint16 port = start();
        Client streaming;
        QVERIFY(streaming.connectTo(port));
        streaming.send(get("/stream?pieces=5&interval=40"));
        Client idle;
        QVERIFY(idle.connectTo(port));
        idle.send(get("/worker"));
        QTRY_VERIFY_WITH_TIMEOUT(idle.hasFinal(1), kWait);
        QTRY_VERIFY_WITH_TIMEOUT(!streaming.all().empty() && streaming.all()[0].body.contains("piece 0"), kWait);

        m_server->shutdown(5000ms);
        QTRY_VERIFY_WITH_TIMEOUT(streaming.hasFinal(1), kWait);
        QCOMPARE(streaming.finals()[0].body.count("data: piece"), 5);
        QTRY_VERIFY_WITH_TIMEOUT(streaming.disconnected, kWait);
        QTRY_VERIFY_WITH_TIMEOUT(idle.disconnected, kWait);
        QCOMPARE(observed.closedCalls.load(), 0);
        QCOMPARE(m_server->stats().connectionsOpen, 0);
        // Nothing listens any more.
        QTcpSocket late;
        late.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(!late.waitForConnected(2000) || late.waitForDisconnected(2000));
    }

    void shutdownCutsAStreamAtTheDeadline()
    {
        const quint16 port = start();
        Client streaming;
        QVERIFY(streaming.connectTo(port));
        streaming.send(get("/stream?pieces=-1&interval=20"));
        QTRY_VERIFY_WITH_TIMEOUT(!streaming.all().empty() && streaming.all()[0].body.contains("piece 0"), kWait);
        m_server->shutdown(300ms);
        QCOMPARE(observed.closedCalls.load(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(streaming.disconnected, kWait);
        QVERIFY(!streaming.hasFinal(1)); // cut: no terminating chunk
        QVERIFY(observed.piecesWritten.load() >= 2); // it did stream until the deadline
    }

    void requestsAreSpreadOverTheWorkers()
    {
        const quint16 port = start(HttpServerLimits(), 3);
        QCOMPARE(m_server->workerCount(), 3);
        std::vector<std::unique_ptr<Client>> clients;
        for (int i = 0; i < 6; ++i) {
            clients.push_back(std::make_unique<Client>());
            QVERIFY(clients.back()->connectTo(port));
            clients.back()->send(get("/worker"));
        }
        std::set<QByteArray> workers;
        for (auto &client : clients) {
            QTRY_VERIFY_WITH_TIMEOUT(client->hasFinal(1), kWait);
            workers.insert(client->finals()[0].body);
        }
        QCOMPARE(workers, (std::set<QByteArray>{"0", "1", "2"}));
    }

    void twoHundredConcurrentConnectionsAreAllAnswered()
    {
        const quint16 port = start();
        std::vector<std::unique_ptr<Client>> clients;
        for (int i = 0; i < 200; ++i) {
            clients.push_back(std::make_unique<Client>());
            QVERIFY(clients.back()->connectTo(port));
        }
        // All in flight at once: each answer waits 200 ms on its worker's timers.
        for (auto &client : clients)
            client->send(get("/delay?ms=200"));
        for (auto &client : clients)
            QTRY_VERIFY_WITH_TIMEOUT(client->hasFinal(1), kWait);
        for (auto &client : clients)
            QCOMPARE(client->finals()[0].body, QByteArray("delay 200"));
        QCOMPARE(m_server->stats().connectionsAccepted, 200u);
        QCOMPARE(m_server->stats().responses2xx, 200u);
        QCOMPARE(m_server->stats().connectionsOpen, 200);
    }

    void headAndOptionsAreSensible()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        client.expectHead();
        client.send("HEAD /echo HTTP/1.1\r\nHost: x\r\n\r\n" + get("/worker") + "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(3), kWait);
        const auto responses = client.finals();
        QCOMPARE(responses[0].status, 200);
        QVERIFY(responses[0].headers.value("Content-Length").toInt() > 0); // the GET's length, no body
        QVERIFY(responses[0].body.isEmpty());
        QCOMPARE(responses[1].status, 200); // parsed right after: the HEAD leaked no body bytes
        QVERIFY(responses[1].body == "0" || responses[1].body == "1");
        QCOMPARE(responses[2].status, 204);
        QVERIFY(responses[2].headers.value("Allow").contains("POST"));
        QCOMPARE(client.parseError(), int(HPE_OK));
    }

    void connectionCloseIsHonoured()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        client.send(get("/worker", "Connection: close\r\n"));
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
        QCOMPARE(client.finals()[0].headers.value("Connection"), QByteArray("close"));
        QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, kWait);
    }

    void http10ClientGetsKeepAliveOnlyWhenAsked()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        client.send("GET /worker HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
        QCOMPARE(client.finals()[0].headers.value("Connection"), QByteArray("keep-alive"));
        // A stream to an HTTP/1.0 client has no chunked encoding: it ends with the connection.
        client.send("GET /stream?pieces=2&interval=5 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, kWait);
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(2), kWait);
        QVERIFY(client.finals()[1].headers.value("Transfer-Encoding").isEmpty());
        QCOMPARE(client.finals()[1].body.count("data: piece"), 2);
    }

    void unansweredRequestGets500()
    {
        const quint16 port = start();
        Client client;
        QVERIFY(client.connectTo(port));
        client.expectHead();
        client.send("HEAD /drop HTTP/1.1\r\nHost: x\r\n\r\n" + get("/drop") + get("/worker"));
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(3), kWait);
        QCOMPARE(client.finals()[0].status, 500);
        QVERIFY(client.finals()[0].body.isEmpty());
        QCOMPARE(client.finals()[1].status, 500);
        QCOMPARE(errorOf(client.finals()[1]).value("type").toString(), QStringLiteral("server_error"));
        QCOMPARE(client.finals()[2].status, 200); // the HEAD's 500 leaked no body into the stream
        QCOMPARE(client.parseError(), int(HPE_OK));
    }

    void idleConnectionIsClosed()
    {
        HttpServerLimits limits;
        limits.idleTimeout = 200ms;
        const quint16 port = start(limits);
        Client client;
        QVERIFY(client.connectTo(port));
        client.send(get("/worker"));
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), kWait);
        QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, kWait);
        QCOMPARE(m_server->stats().idleCloses, 1u);
        QCOMPARE(m_server->stats().timeouts, 0u);
    }

    void slowReaderIsCutNotBufferedWithoutBound()
    {
        HttpServerLimits limits;
        limits.maxBufferedResponseBytes = 256 * 1024;
        const quint16 port = start(limits);
        Client client;
        client.socket.setReadBufferSize(1024); // stops taking bytes from the kernel: the client "reads slowly"
        QVERIFY(client.connectTo(port));
        client.send(get("/stream?pieces=-1&interval=1&bytes=65536"));
        QTRY_COMPARE_WITH_TIMEOUT(observed.closedCalls.load(), 1, 60000);
        QCOMPARE(m_server->stats().slowClientCloses, 1u);
    }

    void pacedHandlerKeepsTheBufferBoundedForASlowReader()
    {
        HttpServerLimits limits;
        limits.maxBufferedResponseBytes = 1024 * 1024; // a handler that ignored bufferedBytes() would be cut
        const quint16 port = start(limits);
        Client client;
        client.socket.setReadBufferSize(1024); // reads slowly at first: the kernel buffers fill up
        QVERIFY(client.connectTo(port));
        client.send(get("/paced?mib=24"));
        QTRY_VERIFY_WITH_TIMEOUT(observed.pauses.load() >= 1, 60000);
        client.socket.setReadBufferSize(0); // now it reads: onDrained resumes the handler
        QTRY_VERIFY_WITH_TIMEOUT(client.hasFinal(1), 60000);
        QCOMPARE(client.finals()[0].body.size(), qsizetype(24) * 1024 * 1024);
        QCOMPARE(m_server->stats().slowClientCloses, 0u);
        QCOMPARE(observed.closedCalls.load(), 0);
        QVERIFY2(observed.maxBuffered.load() <= PacedWriter::kHigh + PacedWriter::kPiece,
                 QByteArray::number(observed.maxBuffered.load()));
    }

    void listenReportsAPortInUse()
    {
        const quint16 port = start();
        HttpServer second(HttpServerLimits(), [](int worker) { return std::make_unique<TestHandler>(worker); }, 2);
        QString error;
        QVERIFY(!second.listen(QHostAddress::LocalHost, port, &error));
        QVERIFY2(error.contains(QString::number(port)), qPrintable(error));
    }

    void listenAddressParses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<QString>("normalised");
        QTest::newRow("ipv4") << "127.0.0.1:8400" << true << "127.0.0.1:8400";
        QTest::newRow("bare port") << "9000" << true << "127.0.0.1:9000";
        QTest::newRow("localhost") << "localhost:1234" << true << "127.0.0.1:1234";
        QTest::newRow("any port") << "127.0.0.1:0" << true << "127.0.0.1:0";
        QTest::newRow("ipv6") << "[::1]:8400" << true << "[::1]:8400";
        QTest::newRow("all interfaces") << "0.0.0.0:8400" << true << "0.0.0.0:8400";
        QTest::newRow("unbracketed ipv6") << "::1:8400" << false << "";
        QTest::newRow("port too big") << "127.0.0.1:70000" << false << "";
        QTest::newRow("no port") << "127.0.0.1:" << false << "";
        QTest::newRow("host name") << "example.com:80" << false << "";
        QTest::newRow("garbage") << "hello" << false << "";
    }

    void listenAddressParses()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(QString, normalised);
        QString error;
        const auto address = sb::ListenAddress::parse(text, &error);
        QCOMPARE(address.has_value(), valid);
        if (valid)
            QCOMPARE(address->toString(), normalised);
        else
            QVERIFY(!error.isEmpty());
        QVERIFY(sb::ListenAddress().isLoopback());
        QCOMPARE(sb::ListenAddress().port, quint16(8400));
    }

    void errorBodyHasTheOpenAiShape()
    {
        const QJsonObject error = QJsonDocument::fromJson(sb::openAiErrorBody("Too big", "invalid_request_error", "too_big"))
                                      .object()
                                      .value("error")
                                      .toObject();
        QCOMPARE(error.value("message").toString(), QStringLiteral("Too big"));
        QCOMPARE(error.value("type").toString(), QStringLiteral("invalid_request_error"));
        QCOMPARE(error.value("code").toString(), QStringLiteral("too_big"));
        QVERIFY(QJsonDocument::fromJson(sb::openAiErrorBody("x")).object().value("error").toObject().value("code").isNull());
    }
};

QTEST_GUILESS_MAIN(tst_HttpServer)
#include "tst_HttpServer.moc"
