#include "stream/SseParser.h"
#include "stream/Utf8Reassembler.h"

#include <QtTest>

using namespace sb;

namespace {

// Chinese (3-byte), Vietnamese (2- and 3-byte, with combining-free precomposed letters), an emoji
// (4-byte) and ASCII, so every sequence length meets every boundary.
const QByteArray Chinese = QByteArray("流式响应：一个汉字可能被拆成两个分块。");
const QByteArray Vietnamese = QByteArray("Tiếng Việt có dấu: Đường phố Hà Nội rất đông đúc.");
const QByteArray Mixed = QByteArray("ok 😀 中文 tiếng Việt ∑ é");

const QByteArray Fffd = "\xEF\xBF\xBD";

} // namespace

class tst_Utf8Reassembler : public QObject {
    Q_OBJECT
private slots:
    void neverForwardsAPartialCharacter_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("chinese") << Chinese;
        QTest::newRow("vietnamese") << Vietnamese;
        QTest::newRow("mixed with emoji") << Mixed;
    }
    void neverForwardsAPartialCharacter()
    {
        QFETCH(QByteArray, text);
        QVERIFY(Utf8Reassembler::isValid(text));
        for (qsizetype cut = 0; cut <= text.size(); ++cut) {
            Utf8Reassembler re;
            const QByteArray first = re.feed(text.left(cut));
            const QByteArray second = re.feed(text.mid(cut));
            // Each piece on its own must be valid: that is what the client decodes as it arrives.
            if (!Utf8Reassembler::isValid(first) || !Utf8Reassembler::isValid(second))
                QFAIL(qPrintable(QStringLiteral("split at byte %1 forwarded half a character").arg(cut)));
            QCOMPARE(first + second + re.flush(), text);
            QCOMPARE(re.stats().invalidSequences, 0u);
            QCOMPARE(re.stats().truncatedTails, 0u);
        }
    }

    void byteByByteAndThreeWaySplits()
    {
        const QByteArray text = Chinese + Vietnamese + Mixed;
        Utf8Reassembler re;
        QByteArray out;
        for (char c : text) {
            const QByteArray piece = re.feed(QByteArrayView(&c, 1));
            QVERIFY(Utf8Reassembler::isValid(piece));
            QVERIFY(re.pendingBytes() <= 3);
            out += piece;
        }
        QCOMPARE(out, text);
        QVERIFY(re.stats().carriedSplits > 0);

        const qsizetype n = Mixed.size();
        for (qsizetype a = 0; a <= n; ++a) {
            for (qsizetype b = a; b <= n; ++b) {
                Utf8Reassembler r;
                const QByteArray p1 = r.feed(Mixed.left(a)), p2 = r.feed(Mixed.mid(a, b - a)), p3 = r.feed(Mixed.mid(b));
                QVERIFY(Utf8Reassembler::isValid(p1) && Utf8Reassembler::isValid(p2) && Utf8Reassembler::isValid(p3));
                QCOMPARE(p1 + p2 + p3, Mixed);
            }
        }
    }

    void invalidSequencesBecomeReplacementCharacters_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QByteArray>("expected");
        QTest::addColumn<int>("replaced");
        QTest::newRow("stray continuation") << QByteArray("a\x80z") << QByteArray("a" + Fffd + "z") << 1;
        QTest::newRow("overlong 2-byte") << QByteArray("\xC0\xAF") << QByteArray(Fffd + Fffd) << 2;
        QTest::newRow("overlong 3-byte") << QByteArray("\xE0\x80\x80") << QByteArray(Fffd + Fffd + Fffd) << 3;
        QTest::newRow("surrogate") << QByteArray("\xED\xA0\x80") << QByteArray(Fffd + Fffd + Fffd) << 3;
        QTest::newRow("above U+10FFFF") << QByteArray("\xF4\x90\x80\x80") << QByteArray(Fffd + Fffd + Fffd + Fffd) << 4;
        QTest::newRow("F5 lead") << QByteArray("\xF5x") << QByteArray(Fffd + "x") << 1;
        // A valid lead and continuation cut short by ASCII is one maximal subpart: one U+FFFD.
        QTest::newRow("truncated then ascii") << QByteArray("\xE4\xB8" "A") << QByteArray(Fffd + "A") << 1;
        QTest::newRow("truncated then new lead") << QByteArray("\xE4\xB8\xE4\xB8\xAD") << QByteArray(Fffd + "中") << 1;
    }
    void invalidSequencesBecomeReplacementCharacters()
    {
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, expected);
        QFETCH(int, replaced);
        Utf8Reassembler re;
        QCOMPARE(re.feed(input) + re.flush(), expected);
        QCOMPARE(re.stats().invalidSequences, std::uint64_t(replaced));
        // The same bytes fed one at a time are replaced the same way.
        Utf8Reassembler slow;
        QByteArray out;
        for (char c : input)
            out += slow.feed(QByteArrayView(&c, 1));
        QCOMPARE(out + slow.flush(), expected);
    }

    void truncatedTailIsReportedNotDropped()
    {
        Utf8Reassembler re;
        QCOMPARE(re.feed("ab\xE4\xB8"), QByteArray("ab"));
        QCOMPARE(re.pendingBytes(), 2);
        QCOMPARE(re.flush(), Fffd);
        QCOMPARE(re.stats().truncatedTails, 1u);
        QCOMPARE(re.pendingBytes(), 0);
        QCOMPARE(re.flush(), QByteArray()); // nothing left after a flush
    }

    void byteStreamThroughReassemblerThenSseParser()
    {
        // The pass-through path: raw upstream bytes → reassembler → SSE parser. Whatever the split,
        // each event's data is the original text, and nothing the parser sees ends mid-character.
        QByteArray stream;
        const QByteArrayList texts = {Chinese, Vietnamese, Mixed};
        for (const QByteArray &t : texts)
            stream += "data: {\"delta\":\"" + t + "\"}\r\n\r\n";
        for (qsizetype cut = 0; cut <= stream.size(); ++cut) {
            Utf8Reassembler re;
            SseParser parser;
            std::vector<SseEvent> events;
            for (const QByteArray &piece : {stream.left(cut), stream.mid(cut)}) {
                const QByteArray whole = re.feed(piece);
                QVERIFY(Utf8Reassembler::isValid(whole));
                auto got = parser.feed(whole);
                std::move(got.begin(), got.end(), std::back_inserter(events));
            }
            QCOMPARE(int(events.size()), 3);
            for (int i = 0; i < 3; ++i)
                QCOMPARE(events[i].data, "{\"delta\":\"" + texts[i] + "\"}");
        }
    }

    void sseParserAloneKeepsCharactersWholeInEvents()
    {
        // Line ends are ASCII, so the parser never cuts a character even without the reassembler.
        const QByteArray stream = "data: " + Chinese + "\n\ndata: " + Vietnamese + "\n\n";
        for (qsizetype cut = 0; cut <= stream.size(); ++cut) {
            SseParser parser;
            auto events = parser.feed(stream.left(cut));
            auto more = parser.feed(stream.mid(cut));
            std::move(more.begin(), more.end(), std::back_inserter(events));
            QCOMPARE(int(events.size()), 2);
            QCOMPARE(events[0].data, Chinese);
            QCOMPARE(events[1].data, Vietnamese);
        }
    }
};

QTEST_APPLESS_MAIN(tst_Utf8Reassembler)
#include "tst_Utf8Reassembler.moc"
