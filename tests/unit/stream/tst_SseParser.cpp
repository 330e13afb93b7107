#include "stream/SseParser.h"

#include <QtTest>

using namespace sb;

namespace {

// What a test compares: the fields of one event, in order.
QByteArrayList describe(const std::vector<SseEvent> &events)
{
    QByteArrayList out;
    for (const SseEvent &e : events)
        out << (e.event + '|' + e.data + '|' + e.id + '|'
                + (e.retryMillis ? QByteArray::number(*e.retryMillis) : QByteArray("-")));
    return out;
}

std::vector<SseEvent> feedAll(SseParser &parser, const QList<QByteArray> &pieces, bool finish = true)
{
    std::vector<SseEvent> all;
    for (const QByteArray &piece : pieces) {
        auto events = parser.feed(piece);
        std::move(events.begin(), events.end(), std::back_inserter(all));
    }
    if (finish) {
        auto tail = parser.finish();
        std::move(tail.begin(), tail.end(), std::back_inserter(all));
    }
    return all;
}

// A stream with every feature the parser must handle: LF, CRLF and lone CR line ends, comments
// (keep-alives), multi-line data, an empty data event, id/retry, a field without a colon, a field
// without the optional space, and multi-byte text.
const QByteArray MixedStream =
    ": keep-alive\n"
    "event: message_start\n"
    "data: {\"a\":1}\n"
    "\n"
    "data:no-space\r\n"
    "data:  two spaces\r\n"
    "\r\n"
    "id: 7\r"
    "retry: 1500\r"
    "data: 你好，世界 — Xin chào thế giới\r"
    "\r"
    ": ping\r\n"
    "data\n"
    "\n"
    "event: done\n"
    "unknown: ignored\n"
    "data: [DONE]\n"
    "\n";

const QByteArrayList MixedExpected = {
    "message_start|{\"a\":1}||-",
    "|no-space\n two spaces||-",
    QByteArray("|你好，世界 — Xin chào thế giới|7|1500"),
    "||7|-",
    "done|[DONE]|7|-",
};

} // namespace

class tst_SseParser : public QObject {
    Q_OBJECT
private slots:
    void parsesEveryFeatureInOneFeed()
    {
        SseParser parser;
        QCOMPARE(describe(feedAll(parser, {MixedStream})), MixedExpected);
        QCOMPARE(parser.stats().comments, 2u);
        QCOMPARE(parser.stats().events, 5u);
        QCOMPARE(parser.retryMillis(), std::optional<int>(1500));
        QCOMPARE(parser.lastEventId(), QByteArray("7"));
    }

    void splitAtEveryByteOffsetGivesTheSameEvents()
    {
        for (qsizetype cut = 0; cut <= MixedStream.size(); ++cut) {
            SseParser parser;
            const auto events = feedAll(parser, {MixedStream.left(cut), MixedStream.mid(cut)});
            if (describe(events) != MixedExpected)
                QFAIL(qPrintable(QStringLiteral("split at byte %1 changed the events").arg(cut)));
        }
    }

    void splitAtEveryPairOfOffsets()
    {
        // Three pieces catch state that survives one boundary but not two (CR at one end, LF later).
        const qsizetype n = MixedStream.size();
        for (qsizetype a = 0; a <= n; a += 3) {
            for (qsizetype b = a; b <= n; ++b) {
                SseParser parser;
                const auto events = feedAll(parser, {MixedStream.left(a), MixedStream.mid(a, b - a), MixedStream.mid(b)});
                if (describe(events) != MixedExpected)
                    QFAIL(qPrintable(QStringLiteral("split at %1/%2 changed the events").arg(a).arg(b)));
            }
        }
    }

    void byteByByteEmitsEachEventAsSoonAsItsBlankLineArrives()
    {
        SseParser parser;
        const QByteArray stream = "data: one\n\ndata: two\n\n";
        int emittedAt = -1;
        for (qsizetype i = 0; i < stream.size(); ++i) {
            const auto events = parser.feed(stream.mid(i, 1));
            if (!events.empty() && emittedAt < 0)
                emittedAt = int(i);
        }
        // The first event must come out with its blank line (offset 10), not at the end of the stream.
        QCOMPARE(emittedAt, 10);
    }

    void crAtEndOfFeedThenLfIsOneLineEnd()
    {
        // If the LF after a CR in the next feed counted as its own line end, "a" would be
        // dispatched alone and "b" as a second event.
        SseParser parser;
        auto events = feedAll(parser, {"data: a\r", "\ndata: b\r\n\r\n"}, false);
        QCOMPARE(describe(events), QByteArrayList{"|a\nb||-"});
    }

    void loneCrEndsLines()
    {
        SseParser parser;
        QCOMPARE(describe(feedAll(parser, {"data: x\r\rdata: y\r\r"}, false)),
                 (QByteArrayList{"|x||-", "|y||-"}));
    }

    void emptyDataIsAnEventButNoDataIsNot()
    {
        SseParser parser;
        auto events = feedAll(parser, {"event: lonely\n\ndata:\n\ndata\n\n"}, false);
        QCOMPARE(describe(events), (QByteArrayList{"|||-", "|||-"}));
    }

    void idWithNulAndNonNumericRetryAreIgnored()
    {
        SseParser parser;
        static const char raw[] = "id: 1\ndata: a\n\nid: x\0y\nretry: 12ms\ndata: b\n\n";
        auto events = feedAll(parser, {QByteArray(raw, sizeof raw - 1)}, false);
        QCOMPARE(describe(events), (QByteArrayList{"|a|1|-", "|b|1|-"}));
        QVERIFY(!parser.retryMillis().has_value());
    }

    void byteOrderMarkIsStrippedEvenWhenSplit()
    {
        const QByteArray stream = "\xEF\xBB\xBF" "data: ok\n\n";
        for (qsizetype cut = 0; cut <= 4; ++cut) {
            SseParser parser;
            QCOMPARE(describe(feedAll(parser, {stream.left(cut), stream.mid(cut)})), QByteArrayList{"|ok||-"});
        }
        // A stream that only starts like a BOM keeps its bytes.
        SseParser parser;
        QCOMPARE(describe(feedAll(parser, {"\xEF", "data: z\n\n"})).size(), 0);
        QCOMPARE(parser.stats().events, 0u); // "\xEFdata" is an unknown field, not data
    }

    void finishDispatchesAnEventMissingItsBlankLine()
    {
        SseParser parser;
        auto events = feedAll(parser, {"data: [DONE]"});
        QCOMPARE(describe(events), QByteArrayList{"|[DONE]||-"});
        SseParser other;
        QVERIFY(feedAll(other, {"event: x\n"}).empty());
    }

    void oversizedEventIsDroppedAndTheStreamRecovers_data()
    {
        QTest::addColumn<int>("pieceSize");
        QTest::newRow("whole") << 0;
        QTest::newRow("byte by byte") << 1;
        QTest::newRow("7-byte pieces") << 7;
    }
    void oversizedEventIsDroppedAndTheStreamRecovers()
    {
        QFETCH(int, pieceSize);
        const QByteArray big(3000, 'x');
        const QByteArray stream = "data: before\n\ndata: " + big + "\ndata: more\n\ndata: after\n\n";
        QList<QByteArray> pieces;
        if (pieceSize == 0)
            pieces << stream;
        else
            for (qsizetype i = 0; i < stream.size(); i += pieceSize)
                pieces << stream.mid(i, pieceSize);
        SseParser parser(1024);
        const auto events = feedAll(parser, pieces);
        QCOMPARE(describe(events), (QByteArrayList{"|before||-", "|after||-"}));
        QVERIFY(parser.overflowed());
        QCOMPARE(parser.stats().oversizedEvents, 1u);
    }

    void manyDataLinesCannotGrowPastTheLimit()
    {
        // Small lines, each harmless, adding up: the limit is per event, not per line.
        SseParser parser(1024);
        QByteArray stream;
        for (int i = 0; i < 500; ++i)
            stream += "data: 0123456789\n";
        stream += "\ndata: next\n\n";
        QCOMPARE(describe(feedAll(parser, {stream})), QByteArrayList{"|next||-"});
        QVERIFY(parser.overflowed());
    }

    void resetForgetsEverything()
    {
        SseParser parser;
        parser.feed("id: 3\ndata: half");
        parser.reset();
        QCOMPARE(describe(feedAll(parser, {"data: new\n\n"})), QByteArrayList{"|new||-"});
        QCOMPARE(parser.stats().bytes, 11u);
    }
};

QTEST_APPLESS_MAIN(tst_SseParser)
#include "tst_SseParser.moc"
