#include "store/HistoryCodec.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QtTest>

using namespace sb;

// The attempts column is written by a hand-made JSON encoder (it was a third of the history
// thread's allocations through QJsonObject) and read back with QJsonDocument: the two must agree
// on every string a channel name or an upstream error message can carry.
class tst_HistoryCodec : public QObject {
    Q_OBJECT
private slots:
    void attemptsRoundTripWithHostileText_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("plain") << QStringLiteral("gpt-4o/A");
        QTest::newRow("quotes and backslashes") << QStringLiteral(R"(say "hi" \ C:\path\ "\u0041")");
        QTest::newRow("control characters") << QString::fromUtf16(u"line\nbreak\r\ttab\x01\x1f\x7f end");
        QTest::newRow("NUL inside") << QString::fromUtf16(u"before\0after", 12);
        QTest::newRow("non-ASCII") << QStringLiteral("通义千问 · ÄÖÜ · 🚀");
        QTest::newRow("JSON-looking") << QStringLiteral(R"({"error":{"message":"x"}},])");
        QTest::newRow("empty") << QString();
    }

    void attemptsRoundTripWithHostileText()
    {
        QFETCH(QString, text);
        AttemptRecord first{11, text, 7, OutcomeKind::RetryableRateLimit, OutcomePhase::BeforeFirstByte, 429, 1764460800123, 31, -1, text};
        AttemptRecord second{12, QStringLiteral("b"), 0, OutcomeKind::Success, OutcomePhase::MidStream, 200, 1764460800200, 900, 120, {}};
        const QByteArray json = HistoryCodec::encodeAttempts({first, second});

        QJsonParseError error;
        QJsonDocument::fromJson(json, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);

        const auto back = HistoryCodec::decodeAttempts(QString::fromUtf8(json));
        QCOMPARE(back.size(), std::size_t(2));
        QCOMPARE(back[0].channelId, 11);
        QCOMPARE(back[0].channelName, text);
        QCOMPARE(back[0].keyId, 7);
        QCOMPARE(back[0].outcome, OutcomeKind::RetryableRateLimit);
        QCOMPARE(back[0].phase, OutcomePhase::BeforeFirstByte);
        QCOMPARE(back[0].httpStatus, 429);
        QCOMPARE(back[0].startedMs, qint64(1764460800123));
        QCOMPARE(back[0].latencyMs, 31);
        QCOMPARE(back[0].ttftMs, -1);
        QCOMPARE(back[0].message, text);
        QCOMPARE(back[1].keyId, 0);
        QCOMPARE(back[1].phase, OutcomePhase::MidStream);
        QCOMPARE(back[1].ttftMs, 120);
        QVERIFY(back[1].message.isEmpty());
    }

    void noAttemptsIsAnEmptyArray()
    {
        QCOMPARE(HistoryCodec::encodeAttempts({}), QByteArray("[]"));
        QVERIFY(HistoryCodec::decodeAttempts(QStringLiteral("[]")).empty());
    }
};

QTEST_GUILESS_MAIN(tst_HistoryCodec)
#include "tst_HistoryCodec.moc"
