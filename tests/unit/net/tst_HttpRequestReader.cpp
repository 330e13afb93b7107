// A client's requests read by HttpRequestReader, the local server's reader. The usual request (its
// whole head and body in the bytes at hand) is read without llhttp; everything else goes to llhttp
// from the first byte. Each case is read as a connection reads it (all the bytes at hand) and one
// byte at a time (only llhttp can read that), and both must give the same requests and failures.
#include "net/HttpRequestReader.h"
#include "RequestReading.h"

#include <QTest>

using namespace sb;

namespace {

using Read = test::RequestReading;
using test::readRequests;

const QByteArray kBody = R"({"model":"bench","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16})";

QByteArray usualRequest(const QByteArray &extraFields = {}, const QByteArray &body = kBody)
{
    return "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n"
           "Authorization: Bearer sk-test\r\nContent-Length: "
           + QByteArray::number(body.size()) + "\r\n" + extraFields + "\r\n" + body;
}

void compareReads(const Read &whole, const Read &bytewise)
{
    QVERIFY2(whole.broken.isEmpty(), qPrintable(whole.broken.join(QStringLiteral("; "))));
    QVERIFY2(bytewise.broken.isEmpty(), qPrintable(bytewise.broken.join(QStringLiteral("; "))));
    QCOMPARE(whole.requests.size(), bytewise.requests.size());
    for (qsizetype i = 0; i < whole.requests.size(); ++i) {
        QVERIFY2(test::sameRequest(whole.requests[i], bytewise.requests[i]), qPrintable(QStringLiteral("request %1").arg(i)));
        QCOMPARE(whole.endsAt[i], bytewise.endsAt[i]);
    }
    QCOMPARE(whole.failed, bytewise.failed);
    QCOMPARE(whole.failureStatus, bytewise.failureStatus);
    QCOMPARE(whole.failureCode, bytewise.failureCode);
    QCOMPARE(whole.inMessage, bytewise.inMessage);
    QCOMPARE(whole.wantsContinue, bytewise.wantsContinue);
}

} // namespace

class tst_HttpRequestReader : public QObject {
    Q_OBJECT

private slots:
    void eachInputReadsTheSameWholeAndByteByByte_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("requests");
        QTest::addColumn<int>("failureStatus"); // 0: none
        QTest::addColumn<bool>("onePass");      // the first request was read without llhttp

        const QByteArray usual = usualRequest();
        QTest::newRow("usual") << usual << 1 << 0 << true;
        QTest::newRow("pipelined") << usual + usual + "GET /v1/models?limit=2 HTTP/1.1\r\nHost: a\r\n\r\n" << 3 << 0 << true;
        QTest::newRow("body still arriving") << usual.chopped(5) << 0 << 0 << false;
        QTest::newRow("kept alive by name") << usualRequest("Connection: Keep-Alive\r\n") << 1 << 0 << true;
        // After a last request llhttp takes what follows without reading a request in it; so must
        // the one-pass path.
        QTest::newRow("closed, then more") << usualRequest("Connection: close\r\n") + usual << 1 << 0 << false;
        QTest::newRow("whitespace around values") << QByteArray("GET /a HTTP/1.1\r\nHost:  a  \r\nX-A:\tb c\t\r\nX-E:\r\n\r\n") << 1 << 0 << true;
        QTest::newRow("two lengths") << usualRequest("Content-Length: 9\r\n") << 0 << 400 << false;
        QTest::newRow("chunked") << QByteArray("POST /a HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n") << 1 << 0 << false;
        QTest::newRow("length and chunked") << usualRequest("Transfer-Encoding: chunked\r\n") << 0 << 400 << false;
        QTest::newRow("no host") << QByteArray("GET / HTTP/1.1\r\n\r\n") << 0 << 400 << false;
        QTest::newRow("two hosts") << usualRequest("Host: b\r\n") << 0 << 400 << false;
        QTest::newRow("a path in the host") << usualRequest().replace("Host: 127.0.0.1:8080", "Host: a/b") << 0 << 400 << false;
        QTest::newRow("HTTP/1.0") << QByteArray("GET / HTTP/1.0\r\n\r\n") << 1 << 0 << false;
        QTest::newRow("method not served") << QByteArray("TRACE / HTTP/1.1\r\nHost: a\r\n\r\n") << 0 << 501 << false;
        QTest::newRow("a space in a field name") << usualRequest("X Y: z\r\n") << 0 << 400 << false;
        QTest::newRow("obs-text in a value") << usualRequest("X-Y: caf\xc3\xa9\r\n") << 1 << 0 << false;
        QTest::newRow("absolute target") << QByteArray("GET http://a/b HTTP/1.1\r\nHost: a\r\n\r\n") << 1 << 0 << false;
        QTest::newRow("expect with the body here") << usualRequest("Expect: 100-continue\r\n") << 1 << 0 << true;
        QTest::newRow("expect, body to come") << usualRequest("Expect: 100-continue\r\n", kBody).chopped(kBody.size()) << 0 << 0 << false;
        QTest::newRow("an expectation not served") << usualRequest("Expect: magic\r\n") << 0 << 417 << false;
        QTest::newRow("leading blank lines") << "\r\n\r\n" + usual << 1 << 0 << false;
    }

    void eachInputReadsTheSameWholeAndByteByByte()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, requests);
        QFETCH(int, failureStatus);
        QFETCH(bool, onePass);
        const Read whole = readRequests(bytes, 0);
        const Read bytewise = readRequests(bytes, 1);
        compareReads(whole, bytewise);
        QCOMPARE(int(whole.requests.size()), requests);
        QCOMPARE(whole.failureStatus, failureStatus);
        if (requests > 0)
            QCOMPARE(whole.heads == 0, onePass);
        QVERIFY(bytewise.heads >= requests); // one byte is never a whole request
    }

    void theUsualRequestIsReadWhole()
    {
        const QByteArray bytes = usualRequest();
        const Read read = readRequests(bytes, 0);
        QVERIFY(read.broken.isEmpty());
        QCOMPARE(read.requests.size(), 1);
        const HttpRequest &request = read.requests.front();
        QCOMPARE(request.method, QByteArray("POST"));
        QCOMPARE(request.target, QByteArray("/v1/chat/completions"));
        QCOMPARE(request.path, QByteArray("/v1/chat/completions"));
        QVERIFY(request.query.isEmpty());
        QCOMPARE(request.headers.value("Authorization"), QByteArray("Bearer sk-test"));
        QCOMPARE(request.headers.size(), std::size_t(4));
        QCOMPARE(request.body, kBody);
        QVERIFY(request.keepAlive);
        QCOMPARE(read.endsAt.front(), bytes.size());
        QCOMPARE(read.heads, 0);
    }

    void limitsHoldOnBothPaths_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("failureStatus");
        const QByteArray head = "GET /a HTTP/1.1\r\nHost: a\r\n";
        // maxHeaderBytes 64 counts the target (2), and each name and value with 4 bytes for ": " and
        // CRLF: Host is 9, so a field of 53 more is exactly the limit.
        QTest::newRow("at the size limit") << head + "X-Long: " + QByteArray(43, 'v') + "\r\n\r\n" << 0;
        QTest::newRow("one byte past it") << head + "X-Long: " + QByteArray(44, 'v') + "\r\n\r\n" << 431;
        QTest::newRow("at the count limit") << head + "A: 1\r\nB: 2\r\n\r\n" << 0;
        QTest::newRow("one field past it") << head + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n" << 431;
        QTest::newRow("a body at the limit") << "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 16\r\n\r\n" + QByteArray(16, 'b') << 0;
        QTest::newRow("a body past it") << "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 17\r\n\r\n" + QByteArray(17, 'b') << 413;
    }

    void limitsHoldOnBothPaths()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, failureStatus);
        HttpServerLimits limits;
        limits.maxHeaderBytes = 64;
        limits.maxHeaderCount = 3;
        limits.maxBodyBytes = 16;
        const Read whole = readRequests(bytes, 0, limits);
        const Read bytewise = readRequests(bytes, 1, limits);
        compareReads(whole, bytewise);
        QCOMPARE(whole.failureStatus, failureStatus);
        QCOMPARE(int(whole.requests.size()), failureStatus == 0 ? 1 : 0);
        if (failureStatus == 0)
            QCOMPARE(whole.heads, 0); // the one-pass path took what is within the limits
    }
};

QTEST_GUILESS_MAIN(tst_HttpRequestReader)
#include "tst_HttpRequestReader.moc"
