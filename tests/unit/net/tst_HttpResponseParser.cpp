// An upstream's response read by HttpResponseParser, the Http1Engine's reader. The usual answer (its
// whole head in the first bytes, a Content-Length) is read without llhttp; everything else goes to
// llhttp from the first byte. Each case here is read whole and one byte at a time, so both readers
// are held to the same outcome: head, body, where the response ended, whether the connection stays.
#include "net/HttpResponseParser.h"
#include "RecordedResponse.h"

#include <QTest>

using namespace sb;

namespace {

using Recorded = test::RecordedResponse;

struct Read {
    HttpResponseParser::Result result = HttpResponseParser::Result::NeedMore;
    qsizetype endsAt = -1; // where a complete response ended in the bytes
    bool keepAlive = false;
    QString error;
    Recorded sink;
};

// Feeds `bytes` in pieces of `step` bytes (0: whole), then tells of the close if it is still open.
Read read(const QByteArray &bytes, int step, qsizetype refuseAfter = -1)
{
    HttpResponseParser parser;
    parser.expectResponse(false);
    Read out;
    out.sink.refuseAfter = refuseAfter;
    const qsizetype size = step > 0 ? step : std::max<qsizetype>(bytes.size(), 1);
    for (qsizetype at = 0; at < bytes.size(); at += size) {
        const QByteArray piece = bytes.mid(at, size);
        std::size_t consumed = 0;
        out.result = parser.feed(piece.constData(), std::size_t(piece.size()), out.sink, &consumed);
        if (out.result == HttpResponseParser::Result::Complete) {
            out.endsAt = at + qsizetype(consumed);
            out.keepAlive = parser.keepAlive();
            return out;
        }
        if (out.result == HttpResponseParser::Result::Error) {
            out.error = parser.errorText();
            return out;
        }
    }
    out.result = parser.finish(out.sink);
    out.error = parser.errorText();
    return out;
}

const QByteArray kAnswer = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\"}";

QByteArray usualResponse(const QByteArray &extraFields = {})
{
    return "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: application/json\r\nContent-Length: "
           + QByteArray::number(kAnswer.size()) + "\r\n" + extraFields + "\r\n" + kAnswer;
}

} // namespace

class tst_HttpResponseParser : public QObject {
    Q_OBJECT

private slots:
    void eachResponseReadsTheSameWholeAndByteByByte_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("endsAt"); // -1: an error
        QTest::addColumn<bool>("keepAlive");

        const QByteArray usual = usualResponse();
        QTest::newRow("usual") << usual << 200 << kAnswer << int(usual.size()) << true;
        QTest::newRow("the next response's bytes after it")
            << usual + "HTTP/1.1 200 OK\r\n" << 200 << kAnswer << int(usual.size()) << true;
        const QByteArray keptAlive = usualResponse("Connection: Keep-Alive\r\n");
        QTest::newRow("connection kept alive by name") << keptAlive << 200 << kAnswer << int(keptAlive.size()) << true;
        const QByteArray closing = usualResponse("Connection: close\r\n");
        QTest::newRow("connection closed after it") << closing << 200 << kAnswer << int(closing.size()) << false;
        const QByteArray spaced = "HTTP/1.1 503 Service Unavailable\r\nRetry-After:   7 \t\r\nContent-Length: 2\r\n\r\nno";
        QTest::newRow("an error status, a value with whitespace around it")
            << spaced << 503 << QByteArray("no") << int(spaced.size()) << true;
        const QByteArray chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n";
        QTest::newRow("chunked") << chunked << 200 << QByteArray("ok") << int(chunked.size()) << true;
        const QByteArray interim = "HTTP/1.1 100 Continue\r\nContent-Length: 5\r\n\r\n" + usual;
        QTest::newRow("an interim response ends at its blank line whatever its length says")
            << interim << 200 << kAnswer << int(interim.size()) << true;
        QTest::newRow("a status below 100 is none")
            << QByteArray("HTTP/1.1 020 K\r\nContent-Length: 2\r\n\r\nok") << 0 << QByteArray() << -1 << false;
        QTest::newRow("whitespace after a length")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2\t\r\n\r\nok") << 0 << QByteArray() << -1 << false;
        QTest::newRow("two different lengths")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok!") << 0 << QByteArray() << -1 << false;
        QTest::newRow("a space before a field's colon")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok") << 0 << QByteArray() << -1 << false;
        QTest::newRow("closed before the body ended")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nok") << 200 << QByteArray("ok") << -1 << false;
    }

    void eachResponseReadsTheSameWholeAndByteByByte()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(int, endsAt);
        QFETCH(bool, keepAlive);
        for (const int step : {0, 1}) {
            const Read r = read(bytes, step);
            const QByteArray how = step == 0 ? "whole" : "byte by byte";
            if (endsAt < 0) {
                QVERIFY2(r.result == HttpResponseParser::Result::Error, how.constData());
                QVERIFY2(!r.error.isEmpty(), how.constData());
            } else {
                QVERIFY2(r.result == HttpResponseParser::Result::Complete, qPrintable(how + ": " + r.error.toUtf8()));
                QCOMPARE(r.endsAt, qsizetype(endsAt));
                QCOMPARE(r.keepAlive, keepAlive);
                QCOMPARE(r.sink.heads, 1);
            }
            QCOMPARE(r.sink.status, status);
            QCOMPARE(r.sink.body, body);
        }
    }

    void fieldsReadWholeAreTheFieldsReadInPieces()
    {
        const QByteArray bytes = usualResponse("X-Empty:\r\nX-Tabbed:\tsome\tvalue\t\r\nConnection: keep-alive\r\n");
        const Read whole = read(bytes, 0);
        const Read pieces = read(bytes, 3);
        QCOMPARE(whole.sink.headers.fields(), pieces.sink.headers.fields());
        QCOMPARE(whole.sink.headers.value("X-Tabbed"), QByteArray("some\tvalue"));
        QVERIFY(whole.sink.headers.contains("X-Empty"));
        QCOMPARE(whole.sink.headers.value("content-type"), QByteArray("application/json"));
    }

    void aBodyArrivingAfterTheHeadIsReadByItsLength()
    {
        const QByteArray bytes = usualResponse();
        const qsizetype head = bytes.indexOf("\r\n\r\n") + 4;
        HttpResponseParser parser;
        parser.expectResponse(false);
        Recorded sink;
        std::size_t consumed = 0;
        QCOMPARE(parser.feed(bytes.constData(), std::size_t(head + 5), sink, &consumed), HttpResponseParser::Result::NeedMore);
        QCOMPARE(sink.heads, 1);
        QCOMPARE(sink.body, kAnswer.first(5));
        const QByteArray rest = bytes.sliced(head + 5) + "trailing";
        QCOMPARE(parser.feed(rest.constData(), std::size_t(rest.size()), sink, &consumed), HttpResponseParser::Result::Complete);
        QCOMPARE(qsizetype(consumed), rest.size() - 8);
        QCOMPARE(sink.body, kAnswer);
        QVERIFY(parser.keepAlive());
    }

    void aRefusedBodyStopsTheResponseWithAnError()
    {
        for (const int step : {0, 1}) {
            const Read r = read(usualResponse(), step, 4);
            QCOMPARE(r.result, HttpResponseParser::Result::Error);
            QVERIFY(r.error.contains("refused"));
            QVERIFY(r.sink.body.size() <= 4);
        }
    }

    void aResponseToHeadHasNoBodyWhateverItsLength()
    {
        HttpResponseParser parser;
        parser.expectResponse(true);
        Recorded sink;
        const QByteArray bytes = usualResponse();
        const qsizetype head = bytes.indexOf("\r\n\r\n") + 4;
        std::size_t consumed = 0;
        QCOMPARE(parser.feed(bytes.constData(), std::size_t(bytes.size()), sink, &consumed), HttpResponseParser::Result::Complete);
        QCOMPARE(qsizetype(consumed), head);
        QVERIFY(sink.body.isEmpty());
    }
};

QTEST_GUILESS_MAIN(tst_HttpResponseParser)
#include "tst_HttpResponseParser.moc"
