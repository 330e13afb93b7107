// Heads read on one connection take a field's name or value from the previous head when the bytes
// are the same (RepeatedHead, behind HttpResponseParser and the server's HttpConnection). Each head
// must still read exactly as sent, however the fields change from one head to the next and
// however the bytes are cut; what is shared is Qt's implicit sharing, so changing one head never
// changes another.
#include "net/HttpResponseParser.h"

#include <QTest>

#include <vector>

using namespace sb;

namespace {

struct Heads final : HttpResponseParser::Sink {
    std::vector<HttpHeaders> received;
    void responseHead(int, HttpHeaders &&headers) override { received.push_back(std::move(headers)); }
    bool responseBody(QByteArrayView) override { return true; }
};

using Fields = std::vector<HttpHeaders::Field>;

QByteArray responseWith(const Fields &fields)
{
    QByteArray bytes = "HTTP/1.1 200 OK\r\n";
    for (const auto &[name, value] : fields)
        bytes += name + ": " + value + "\r\n";
    return bytes + "Content-Length: 0\r\n\r\n";
}

// Feeds one response to `parser` in pieces of `cut` bytes (0: whole); true when it completed.
bool feed(HttpResponseParser &parser, Heads &sink, const QByteArray &bytes, int cut)
{
    parser.expectResponse(false);
    const qsizetype step = cut > 0 ? cut : bytes.size();
    for (qsizetype at = 0; at < bytes.size(); at += step) {
        const QByteArray piece = bytes.mid(at, step); // its own buffer, gone after the call
        std::size_t consumed = 0;
        const auto result = parser.feed(piece.constData(), std::size_t(piece.size()), sink, &consumed);
        if (result == HttpResponseParser::Result::Complete)
            return at + qsizetype(consumed) == bytes.size();
        if (result == HttpResponseParser::Result::Error)
            return false;
    }
    return false;
}

Fields fieldsOf(const HttpHeaders &headers)
{
    Fields fields = headers.fields();
    fields.pop_back(); // the Content-Length every test response ends with
    return fields;
}

} // namespace

class tst_RepeatedHead : public QObject {
    Q_OBJECT
private slots:
    void eachHeadReadsAsSent_data()
    {
        QTest::addColumn<int>("cut");
        QTest::newRow("whole") << 0;
        QTest::newRow("byte by byte") << 1;
        QTest::newRow("seven-byte pieces") << 7;
    }
    void eachHeadReadsAsSent()
    {
        QFETCH(int, cut);
        const std::vector<Fields> heads = {
            {{"Server", "nginx"}, {"Date", "Sat, 05 Dec 2026 17:00:00 GMT"}, {"Content-Type", "application/json"}},
            {{"Server", "nginx"}, {"Date", "Sat, 05 Dec 2026 17:00:00 GMT"}, {"Content-Type", "application/json"}},
            {{"Server", "nginx"}, {"Date", "Sat, 05 Dec 2026 17:00:01 GMT"}, {"Content-Type", "application/json"}},
            {{"Server", "nginx"}, {"Content-Type", "application/json"}},                       // one fewer
            {{"Server", "nginx"}, {"Content-Type", "application/json"}, {"X-Extra", "1"}, {"X-More", "2"}},
            {{"server", "nginx"}, {"Content-Type", "application/jsonx"}, {"X-Extra", ""}},    // name case, longer, emptied
            {{"server", "nginx"}, {"Content-Type", "application/json"}, {"X-Extra", "1"}},    // shorter again
            {},
            {{"Server", "nginx"}, {"Date", "Sat, 05 Dec 2026 17:00:01 GMT"}},
        };
        HttpResponseParser parser;
        Heads sink;
        for (const Fields &head : heads)
            QVERIFY(feed(parser, sink, responseWith(head), cut));
        QCOMPARE(sink.received.size(), heads.size());
        for (std::size_t i = 0; i < heads.size(); ++i)
            QCOMPARE(fieldsOf(sink.received[i]), heads[i]);
    }

    void trailingWhitespaceIsNotPartOfAValue()
    {
        HttpResponseParser parser;
        Heads sink;
        QVERIFY(feed(parser, sink, "HTTP/1.1 200 OK\r\nX-A: one \t \r\nContent-Length: 0\r\n\r\n", 0));
        QVERIFY(feed(parser, sink, "HTTP/1.1 200 OK\r\nX-A: one\r\nContent-Length: 0\r\n\r\n", 0));
        QVERIFY(feed(parser, sink, "HTTP/1.1 200 OK\r\nX-A:    one  \r\nContent-Length: 0\r\n\r\n", 0));
        for (const HttpHeaders &head : sink.received)
            QCOMPARE(head.value("X-A"), QByteArray("one"));
    }

    void aRepeatedFieldSharesThePreviousArraysAndCopiesOnChange()
    {
        const Fields fields = {{"Server", "nginx"}, {"Content-Type", "application/json"}};
        HttpResponseParser parser;
        Heads sink;
        QVERIFY(feed(parser, sink, responseWith(fields), 0));
        QVERIFY(feed(parser, sink, responseWith(fields), 0));
        const HttpHeaders::Field &first = sink.received[0].fields()[1];
        const HttpHeaders::Field &second = sink.received[1].fields()[1];
        QVERIFY(first.first.isSharedWith(second.first));
        QVERIFY(first.second.isSharedWith(second.second));

        // Changing one head's value leaves the other's as it was read.
        HttpHeaders::Field changed = sink.received[0].fields()[1];
        changed.second[0] = 'X';
        QCOMPARE(sink.received[0].fields()[1].second, QByteArray("application/json"));
        QCOMPARE(sink.received[1].fields()[1].second, QByteArray("application/json"));
        sink.received[0].set("Content-Type", "text/plain");
        QCOMPARE(sink.received[1].value("Content-Type"), QByteArray("application/json"));

        // The next head is compared with the one before it, whatever became of that one.
        sink.received.clear();
        QVERIFY(feed(parser, sink, responseWith(fields), 0));
        QCOMPARE(fieldsOf(sink.received[0]), fields);
    }

    void aLargeHeadIsNotKeptForTheNext()
    {
        const Fields large = {{"Server", "nginx"}, {"X-Large", QByteArray(RepeatedHead::kRememberedBytes, 'x')}};
        HttpResponseParser parser;
        Heads sink;
        QVERIFY(feed(parser, sink, responseWith(large), 0));
        QVERIFY(feed(parser, sink, responseWith(large), 0));
        QCOMPARE(fieldsOf(sink.received[1]), large);
        QVERIFY(!sink.received[0].fields()[1].second.isSharedWith(sink.received[1].fields()[1].second));
        QVERIFY(!sink.received[0].fields()[0].first.isSharedWith(sink.received[1].fields()[0].first));
    }

    void anInterimResponseDoesNotStandForTheFinalHead()
    {
        HttpResponseParser parser;
        Heads sink;
        QVERIFY(feed(parser, sink, responseWith({{"X-A", "1"}}), 0));
        QVERIFY(feed(parser, sink, "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nX-A: 2\r\nContent-Length: 0\r\n\r\n", 0));
        QCOMPARE(sink.received.size(), std::size_t(2));
        QCOMPARE(sink.received[1].value("X-A"), QByteArray("2"));
        QVERIFY(!sink.received[1].contains("Link"));
    }
};

QTEST_GUILESS_MAIN(tst_RepeatedHead)
#include "tst_RepeatedHead.moc"
