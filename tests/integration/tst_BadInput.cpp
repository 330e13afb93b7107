// Hostile and malformed requests against a real Gateway, as raw bytes over a loopback socket: each
// gets its documented status (tests/integration/BAD_INPUT.md) with an OpenAI error body where there is
// a body, nothing reaches the provider, and the server still answers /healthz afterwards. The asan
// build runs this file too, so "no crash, no leak" is checked by the sanitizers on every case.
#include "FakeProviderSpecs.h"
#include "ProxyUnderTest.h"
#include "RawHttp.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTcpSocket>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

// The body limit of the test gateway: small, so the 413 cases need not send 32 MiB.
constexpr qint64 kMaxBody = 1024 * 1024;

struct RawReply {
    int status = 0;          // 0: no status line arrived before the connection closed
    QByteArray head;
    QByteArray body;
    bool closed = false;     // the server closed the connection
    QJsonObject error() const { return QJsonDocument::fromJson(body).object().value("error").toObject(); }
};

// Parses as much of one HTTP/1.1 response as `data` holds; true once it is complete.
bool parseResponse(const QByteArray &data, bool headRequest, RawReply *out)
{
    qsizetype start = 0;
    // Interim 100 Continue answers come before the real one.
    while (data.mid(start).startsWith("HTTP/1.1 100")) {
        const qsizetype end = data.indexOf("\r\n\r\n", start);
        if (end < 0)
            return false;
        start = end + 4;
    }
    const qsizetype headEnd = data.indexOf("\r\n\r\n", start);
    if (headEnd < 0)
        return false;
    out->head = data.mid(start, headEnd - start);
    out->status = out->head.mid(9, 3).toInt();
    const QByteArray rest = data.mid(headEnd + 4);
    qint64 length = -1;
    bool chunked = false;
    for (const QByteArray &line : out->head.split('\n')) {
        const QByteArray lower = line.trimmed().toLower();
        if (lower.startsWith("content-length:"))
            length = lower.mid(15).trimmed().toLongLong();
        if (lower.startsWith("transfer-encoding:") && lower.contains("chunked"))
            chunked = true;
    }
    if (headRequest || out->status == 204 || out->status == 304) {
        out->body.clear();
        return true;
    }
    if (chunked) {
        out->body = rest;
        return rest.endsWith("0\r\n\r\n");
    }
    if (length >= 0) {
        out->body = rest.left(length);
        return rest.size() >= length;
    }
    out->body = rest;
    return false; // close-delimited: complete when the server closes
}

// Sends `bytes` on a fresh connection and reads one response (or the close).
RawReply exchange(quint16 port, const QByteArray &bytes, std::chrono::milliseconds wait = 15s)
{
    RawReply out;
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(5000))
        return out;
    socket.write(bytes);
    const bool head = bytes.startsWith("HEAD ");
    QByteArray data;
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < wait.count()) {
        // waitForReadyRead also sends what is still buffered for writing.
        socket.waitForReadyRead(50);
        data += socket.readAll();
        if (parseResponse(data, head, &out))
            return out;
        if (socket.state() == QAbstractSocket::UnconnectedState) {
            data += socket.readAll();
            parseResponse(data, head, &out);
            out.closed = true;
            return out;
        }
    }
    return out;
}

QByteArray chat(const QByteArray &json)
{
    return rawRequest("POST", "/v1/chat/completions", json);
}

const QByteArray kNul(1, '\0');
const QByteArray kMessages = R"("messages":[{"role":"user","content":"hi"}])";

QByteArray chatWith(const QByteArray &extra)
{
    return chat(R"({"model":"gpt-4o",)" + kMessages + extra + "}");
}

} // namespace

class tst_BadInput : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{77};
    ProxyUnderTest m_proxy{m_clock, m_random}; // its gateway has no local token
    std::unique_ptr<Gateway> m_tokenGateway;   // the same configuration with the local token "local-secret"

    void checkStillUp(quint16 port, const QByteArray &auth = {})
    {
        const RawReply health = exchange(port, rawRequest("GET", "/healthz", {}, auth));
        QCOMPARE(health.status, 200);
        QCOMPARE(health.body, QByteArray("{\"status\":\"ok\"}"));
    }

    void checkAnswer(const RawReply &reply, int status, const QString &code, const QByteArray &sent)
    {
        QVERIFY2(reply.status == status,
                 qPrintable(QStringLiteral("expected %1, got %2: %3").arg(status).arg(reply.status)
                                .arg(QString::fromLatin1(reply.head + "\n" + reply.body.left(300)))));
        const bool hasBody = status != 204 && !sent.startsWith("HEAD ");
        if (status >= 400 && hasBody) {
            // The OpenAI error envelope: an SDK shows the message instead of a parse failure.
            QVERIFY2(reply.head.toLower().contains("content-type: application/json"), reply.head.constData());
            const QJsonObject error = reply.error();
            QVERIFY2(!error.value("message").toString().isEmpty(), reply.body.constData());
            QVERIFY2(error.value("type").isString(), reply.body.constData());
            if (!code.isEmpty())
                QCOMPARE(error.value("code").toString(), code);
        }
    }

private slots:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_proxy.start(fakeProviderSpec(QStringLiteral("provider")),
                               [](EngineConfig &config) { config.proxy.maxBodyBytes = kMaxBody; }, &error),
                 qPrintable(error));
        auto withToken = std::make_shared<EngineConfig>(*m_proxy.gateway->config());
        withToken->proxy.localToken = QStringLiteral("local-secret");
        m_tokenGateway = std::make_unique<Gateway>(m_clock, m_random, withToken);
        QVERIFY2(m_tokenGateway->start(&error), qPrintable(error));
        // The control case: a well-formed request through the same client code is answered 200.
        const RawReply fine = exchange(m_proxy.gateway->port(), chatWith({}));
        QCOMPARE(fine.status, 200);
        QCOMPARE(m_proxy.primary->stats().chat, 1u);
    }

    void cleanupTestCase()
    {
        // None of the hostile requests reached the provider: only the control request did.
        QCOMPARE(m_proxy.primary->stats().chat, 1u);
        if (m_tokenGateway)
            m_tokenGateway->stop(500ms);
        m_tokenGateway.reset();
        m_proxy.stop();
    }

    void hostileRequest_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code"); // the error code to expect; empty: any

        const QByteArray get = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
        // --- request line --------------------------------------------------------------------
        QTest::newRow("01 TLS ClientHello on the plain port")
            << QByteArray::fromHex("16030100a5010000a10303") + QByteArray(64, 'A') << 400 << "invalid_method";
        QTest::newRow("02 unknown method") << QByteArray("FOO / HTTP/1.1\r\nHost: x\r\n\r\n") << 400 << "invalid_method";
        QTest::newRow("03 lower-case method") << QByteArray("get /healthz HTTP/1.1\r\nHost: x\r\n\r\n") << 400 << "invalid_method";
        QTest::newRow("04 method of 1000 letters") << QByteArray(1000, 'A') + " / HTTP/1.1\r\n\r\n" << 400 << "invalid_method";
        QTest::newRow("05 CONNECT tunnel") << QByteArray("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
                                           << 501 << "method_not_supported";
        QTest::newRow("06 TRACE") << QByteArray("TRACE / HTTP/1.1\r\nHost: x\r\n\r\n") << 501 << "method_not_supported";
        QTest::newRow("07 WebDAV PROPFIND") << QByteArray("PROPFIND / HTTP/1.1\r\nHost: x\r\n\r\n") << 501 << "method_not_supported";
        QTest::newRow("08 HTTP/2 preface") << QByteArray("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") << 505 << "http_version_not_supported";
        QTest::newRow("09 HTTP/2.0 request line") << QByteArray("GET / HTTP/2.0\r\nHost: x\r\n\r\n") << 505 << "http_version_not_supported";
        QTest::newRow("10 HTTP/9.9") << QByteArray("GET / HTTP/9.9\r\nHost: x\r\n\r\n") << 400 << "bad_request";
        QTest::newRow("11 HTTP/0.9 simple request") << QByteArray("GET /\r\n\r\n") << 505 << "http_version_not_supported";
        // llhttp skips repeated spaces in the request line; the request means the same either way.
        QTest::newRow("12 two spaces in the request line (tolerated)") << QByteArray("GET  /healthz HTTP/1.1\r\nHost: x\r\n\r\n") << 200 << QString();
        QTest::newRow("13 NUL in the URL") << "GET /heal" + kNul + "thz HTTP/1.1\r\nHost: x\r\n\r\n" << 400 << "bad_request";
        // llhttp takes a tab as part of the URL: an unknown path, never a different request.
        QTest::newRow("14 tab in the URL") << QByteArray("GET /a\tb HTTP/1.1\r\nHost: x\r\n\r\n") << 404 << "unknown_url";
        QTest::newRow("15 URL over 64 KiB") << "GET /" + QByteArray(70 * 1024, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n" << 414 << "uri_too_long";
        QTest::newRow("16 absolute URL (open proxy probe)")
            << QByteArray("GET http://example.com/v1/models HTTP/1.1\r\nHost: example.com\r\n\r\n") << 404 << "unknown_url";
        QTest::newRow("17 asterisk target on GET") << QByteArray("GET * HTTP/1.1\r\nHost: x\r\n\r\n") << 404 << "unknown_url";
        // --- headers: injection, malformed fields, sizes ---------------------------------------
        QTest::newRow("18 bare CR inside a header value (injection)")
            << get + "X-Note: a\rInjected: yes\r\n\r\n" << 400 << "bad_request";
        QTest::newRow("19 bare LF-separated injected header line in the value")
            << QByteArray("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\nInjected : yes\r\n\r\n") << 400 << QString();
        QTest::newRow("20 NUL in a header value") << get + "X-Note: a" + kNul + "b\r\n\r\n" << 400 << "bad_request";
        QTest::newRow("21 NUL in a header name") << get + "X-No" + kNul + "te: a\r\n\r\n" << 400 << QString();
        QTest::newRow("22 space inside a header name") << get + "Bad Name: x\r\n\r\n" << 400 << "invalid_header";
        QTest::newRow("23 space before the colon") << get + "Host : x\r\n\r\n" << 400 << QString();
        QTest::newRow("24 header line without a colon") << get + "NoColonHere\r\n\r\n" << 400 << QString();
        // llhttp 8.1 accepts obs-fold (RFC 9112 5.2 allows it read as a space); no line break reaches a value.
        QTest::newRow("25 obsolete line folding (tolerated)") << get + "X-Note: a\r\n  folded\r\n\r\n" << 200 << QString();
        QTest::newRow("26 empty header name") << get + ": value\r\n\r\n" << 400 << QString();
        QByteArray many;
        for (int i = 0; i < 101; ++i)
            many += "X-H" + QByteArray::number(i) + ": v\r\n";
        QTest::newRow("27 101 header fields") << get + many + "\r\n" << 431 << "request_header_fields_too_large";
        QByteArray huge;
        for (int i = 0; i < 5000; ++i)
            huge += "X-H" + QByteArray::number(i) + ": v\r\n";
        QTest::newRow("28 5000 header fields") << get + huge + "\r\n" << 431 << "request_header_fields_too_large";
        QTest::newRow("29 one 70 KiB header value")
            << get + "X-Big: " + QByteArray(70 * 1024, 'b') + "\r\n\r\n" << 431 << "request_header_fields_too_large";
        QTest::newRow("30 header name over 64 KiB")
            << get + QByteArray(70 * 1024, 'N') + ": v\r\n\r\n" << 431 << "request_header_fields_too_large";
        QTest::newRow("31 Expect other than 100-continue") << get + "Expect: 200-ok\r\n\r\n" << 417 << "expectation_failed";
        // --- framing and smuggling ----------------------------------------------------------------
        const QByteArray post = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
        QTest::newRow("32 Content-Length and chunked together (CL.TE smuggling)")
            << post + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" << 400 << "bad_request";
        QTest::newRow("33 two different Content-Lengths")
            << post + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}" << 400 << "bad_request";
        QTest::newRow("34 negative Content-Length") << post + "Content-Length: -1\r\n\r\n" << 400 << "bad_request";
        QTest::newRow("35 non-numeric Content-Length") << post + "Content-Length: abc\r\n\r\n" << 400 << "bad_request";
        QTest::newRow("36 Content-Length with a plus sign") << post + "Content-Length: +2\r\n\r\n{}" << 400 << "bad_request";
        QTest::newRow("37 Content-Length overflowing 64 bits")
            << post + "Content-Length: 99999999999999999999999\r\n\r\n" << 400 << "bad_request";
        QTest::newRow("38 Content-Length over the body limit")
            << post + "Content-Length: " + QByteArray::number(kMaxBody + 1) + "\r\n\r\n" << 413 << "request_too_large";
        QTest::newRow("39 Content-Length of a terabyte") << post + "Content-Length: 1000000000000\r\n\r\n" << 413 << "request_too_large";
        QByteArray bigChunks = post + "Transfer-Encoding: chunked\r\n\r\n";
        for (int i = 0; i < 20; ++i)
            bigChunks += "10000\r\n" + QByteArray(0x10000, ' ') + "\r\n"; // 20 × 64 KiB > 1 MiB
        bigChunks += "0\r\n\r\n";
        QTest::newRow("40 chunked body over the body limit") << bigChunks << 413 << "request_too_large";
        QTest::newRow("41 chunk size not hexadecimal") << post + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n" << 400 << "bad_request";
        QTest::newRow("42 chunk size overflowing 64 bits")
            << post + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n{}\r\n0\r\n\r\n" << 400 << "bad_request";
        QTest::newRow("43 Transfer-Encoding not ending in chunked")
            << post + "Transfer-Encoding: chunked, gzip\r\n\r\n{}" << 400 << "bad_request";
        QTest::newRow("44 Transfer-Encoding with a space before the colon (TE.TE smuggling)")
            << post + "Content-Length: 2\r\nTransfer-Encoding : chunked\r\n\r\n{}" << 400 << QString();
        // --- paths: traversal and unknown admin paths -------------------------------------------
        QTest::newRow("45 dot-dot out of /v1 into /admin") << rawRequest("GET", "/v1/../admin/config") << 404 << "unknown_url";
        QTest::newRow("46 dot-dot under /admin to /etc/passwd") << rawRequest("GET", "/admin/../../etc/passwd") << 404 << "not_found";
        QTest::newRow("47 percent-encoded dot-dot") << rawRequest("GET", "/admin/%2e%2e/%2e%2e/etc/passwd") << 404 << "not_found";
        QTest::newRow("48 encoded slashes") << rawRequest("GET", "/admin/..%2f..%2fetc%2fpasswd") << 404 << "not_found";
        QTest::newRow("49 double slash root") << rawRequest("GET", "//etc/passwd") << 404 << "unknown_url";
        QTest::newRow("50 unknown admin path") << rawRequest("GET", "/admin/no-such-thing") << 404 << "not_found";
        QTest::newRow("51 POST to chat via dot-dot") << rawRequest("POST", "/v1/chat/completions/../../admin/config", "{}") << 404 << "unknown_url";
        QTest::newRow("52 backslash traversal") << rawRequest("GET", "/admin\\..\\..\\etc\\passwd") << 404 << "unknown_url";
        // --- bodies: JSON the chat endpoint refuses ----------------------------------------------
        QTest::newRow("53 empty body") << chat(QByteArray("")) << 400 << "invalid_json";
        QTest::newRow("54 NUL byte between JSON tokens") << chat("{\"model\":" + kNul + "\"gpt-4o\"}") << 400 << "invalid_json";
        QTest::newRow("55 raw NUL inside a JSON string")
            << chat(R"({"model":"gpt)" + kNul + R"(-4o",)" + kMessages + "}") << 400 << QString();
        QTest::newRow("56 deep nesting inside a valid request")
            << chatWith(",\"x\":" + QByteArray(100000, '[') + QByteArray(100000, ']')) << 400 << "invalid_json";
        QTest::newRow("57 deep object nesting")
            << chat(QByteArray(50000, '{').replace("{", "{\"a\":") + "1" + QByteArray(50000, '}')) << 400 << "invalid_json";
        QTest::newRow("58 trailing garbage after the object") << chat(R"({"model":"gpt-4o",)" + kMessages + "} trailing") << 400 << "invalid_json";
        QTest::newRow("59 model null") << chat(R"({"model":null,)" + kMessages + "}") << 400 << "invalid_type";
        QTest::newRow("60 model a number") << chat(R"({"model":4,)" + kMessages + "}") << 400 << "invalid_type";
        QTest::newRow("61 model blank") << chat(R"({"model":"   ",)" + kMessages + "}") << 400 << "invalid_type";
        QTest::newRow("62 messages empty") << chat(R"({"model":"gpt-4o","messages":[]})") << 400 << "invalid_type";
        QTest::newRow("63 message not an object") << chat(R"({"model":"gpt-4o","messages":["hi"]})") << 400 << "invalid_type";
        QTest::newRow("64 unknown role") << chat(R"({"model":"gpt-4o","messages":[{"role":"root","content":"hi"}]})") << 400 << "invalid_value";
        QTest::newRow("65 content a number") << chat(R"({"model":"gpt-4o","messages":[{"role":"user","content":5}]})") << 400 << "invalid_type";
        QTest::newRow("66 temperature a string") << chatWith(R"(,"temperature":"hot")") << 400 << "invalid_type";
        QTest::newRow("67 max_tokens a string") << chatWith(R"(,"max_tokens":"10")") << 400 << "invalid_type";
        QTest::newRow("68 tools an object") << chatWith(R"(,"tools":{"type":"function"})") << 400 << "invalid_type";
        QTest::newRow("69 stop a number") << chatWith(R"(,"stop":7)") << 400 << "invalid_type";
        QTest::newRow("70 stream_options a string") << chatWith(R"(,"stream_options":"yes")") << 400 << "invalid_type";
        QTest::newRow("71 embeddings without input")
            << rawRequest("POST", "/v1/embeddings", R"({"model":"gpt-4o"})") << 400 << QString();
        QTest::newRow("72 embeddings input a number")
            << rawRequest("POST", "/v1/embeddings", R"({"model":"gpt-4o","input":3})") << 400 << QString();
        QTest::newRow("73 unknown model with a huge name")
            << chat("{\"model\":\"" + QByteArray(100000, 'm') + "\"," + kMessages + "}") << 404 << QString();
        QTest::newRow("74 HEAD on chat completions") << rawRequest("HEAD", "/v1/chat/completions") << 405 << QString();
        QTest::newRow("75 DELETE on models") << rawRequest("DELETE", "/v1/models") << 405 << "method_not_allowed";
        // --- Host (RFC 9112 3.2) --------------------------------------------------------------------
        QTest::newRow("76 HTTP/1.1 without Host") << QByteArray("GET /healthz HTTP/1.1\r\n\r\n") << 400 << "missing_host";
        QTest::newRow("77 POST without Host")
            << QByteArray("POST /v1/chat/completions HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
            << 400 << "missing_host";
        QTest::newRow("78 two Host fields") << QByteArray("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") << 400 << "invalid_host";
        QTest::newRow("79 Host with a path") << QByteArray("GET /healthz HTTP/1.1\r\nHost: a/b\r\n\r\n") << 400 << "invalid_host";
        QTest::newRow("80 Host listing two hosts") << QByteArray("GET /healthz HTTP/1.1\r\nHost: a, b\r\n\r\n") << 400 << "invalid_host";
        QTest::newRow("81 HTTP/1.0 without Host (allowed)") << QByteArray("GET /healthz HTTP/1.0\r\n\r\n") << 200 << QString();
    }

    void hostileRequest()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, status);
        QFETCH(QString, code);
        const RawReply reply = exchange(m_proxy.gateway->port(), bytes);
        checkAnswer(reply, status, code, bytes);
        checkStillUp(m_proxy.gateway->port());
    }

    void adminPathsNeedTheTokenWhenOneIsSet_data()
    {
        QTest::addColumn<QByteArray>("target");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        // The admin API checks the token before it looks at the path (core/control/AdminApi.md), so
        // traversal under /admin/ learns nothing without it; outside /admin/ the path is unknown.
        QTest::newRow("admin root") << QByteArray("/admin/") << 401 << "invalid_api_key";
        QTest::newRow("admin traversal") << QByteArray("/admin/../v1/models") << 401 << "invalid_api_key";
        QTest::newRow("admin encoded traversal") << QByteArray("/admin/%2e%2e/%2e%2e/etc/passwd") << 401 << "invalid_api_key";
        QTest::newRow("admin unknown resource") << QByteArray("/admin/no-such-thing") << 401 << "invalid_api_key";
        QTest::newRow("metrics traversal") << QByteArray("/metrics/../admin/config") << 404 << "unknown_url";
    }

    void adminPathsNeedTheTokenWhenOneIsSet()
    {
        QFETCH(QByteArray, target);
        QFETCH(int, status);
        QFETCH(QString, code);
        checkAnswer(exchange(m_tokenGateway->port(), rawRequest("GET", target)), status, code, "GET");
        checkAnswer(exchange(m_tokenGateway->port(), rawRequest("GET", target, {}, "Authorization: Bearer nope\r\n")), status, code, "GET");
        checkStillUp(m_tokenGateway->port());
    }

    void tokenAttacksGet401_data()
    {
        QTest::addColumn<QByteArray>("authorization");
        QTest::newRow("no header") << QByteArray();
        QTest::newRow("wrong token") << QByteArray("Authorization: Bearer nope\r\n");
        QTest::newRow("token prefix only") << QByteArray("Authorization: Bearer local\r\n");
        QTest::newRow("token with a suffix") << QByteArray("Authorization: Bearer local-secretX\r\n");
        QTest::newRow("Basic scheme") << QByteArray("Authorization: Basic bG9jYWwtc2VjcmV0\r\n");
        QTest::newRow("empty bearer") << QByteArray("Authorization: Bearer \r\n");
    }

    void tokenAttacksGet401()
    {
        QFETCH(QByteArray, authorization);
        const RawReply reply = exchange(m_tokenGateway->port(), rawRequest("POST", "/v1/chat/completions",
                                                                         R"({"model":"gpt-4o",)" + kMessages + "}", authorization));
        checkAnswer(reply, 401, QStringLiteral("invalid_api_key"), "POST");
        QVERIFY(!reply.body.contains("local-secret")); // the token is never echoed
        checkStillUp(m_tokenGateway->port());
    }

    void aBadRequestAfterAGoodOneOnTheSameConnection()
    {
        // Pipelined: the good request is answered, then the bad one gets its 400 and the connection closes.
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, m_proxy.gateway->port());
        QVERIFY(socket.waitForConnected(5000));
        socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nBAD\x01 / HTTP/1.1\r\n\r\n");
        QByteArray data;
        while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(5000))
            data += socket.readAll();
        data += socket.readAll();
        QVERIFY2(data.startsWith("HTTP/1.1 200 OK\r\n"), data.constData());
        const qsizetype second = data.indexOf("HTTP/1.1 400 ");
        QVERIFY2(second > 0, data.constData());
        QVERIFY(data.mid(second).contains("Connection: close"));
        checkStillUp(m_proxy.gateway->port());
    }

    void slowlorisGets408()
    {
        // Headers that never finish: the header timeout (10 s) answers 408 and closes.
        const RawReply reply = exchange(m_proxy.gateway->port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ", 30s);
        checkAnswer(reply, 408, QStringLiteral("request_timeout"), "GET");
        checkStillUp(m_proxy.gateway->port());
    }
};

QTEST_GUILESS_MAIN(tst_BadInput)
#include "tst_BadInput.moc"
