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
        RequestRecord refused = servedByItsFirstAttempt();
        refused.attempts.clear();
        QCOMPARE(HistoryCodec::storedAttempts(refused), QByteArray("[]"));
        QCOMPARE(HistoryCodec::lastKeyId(refused), 0);
        QVERIFY(HistoryCodec::attemptsFromStored(QStringLiteral("[]"), refused, 0).empty());
    }

    // A request served by its one attempt stores no array: the row and its key_id say it all, and
    // it reads back the same.
    void anAttemptTheRowSaysIsNotStoredTwice()
    {
        const RequestRecord row = servedByItsFirstAttempt();
        QCOMPARE(HistoryCodec::storedAttempts(row), QByteArray(""));
        QCOMPARE(HistoryCodec::lastKeyId(row), 7);
        const std::vector<AttemptRecord> back = HistoryCodec::attemptsFromStored(QString(), withoutAttempts(row), 7);
        QCOMPARE(back.size(), std::size_t(1));
        QVERIFY(back[0] == row.attempts[0]);
    }

    // Anything the row does not say keeps the whole array, and that reads back as it was.
    void anAttemptTheRowDoesNotSayIsStoredWhole_data()
    {
        QTest::addColumn<int>("field");
        const char *names[] = {"channel", "channel name", "outcome", "phase", "HTTP status", "start", "latency", "TTFT", "message",
                               "a second attempt"};
        for (int i = 0; i < int(std::size(names)); ++i)
            QTest::newRow(names[i]) << i;
    }

    void anAttemptTheRowDoesNotSayIsStoredWhole()
    {
        QFETCH(int, field);
        RequestRecord row = servedByItsFirstAttempt();
        AttemptRecord &a = row.attempts[0];
        switch (field) {
        case 0: a.channelId += 1; break;
        case 1: a.channelName += QLatin1Char('x'); break;
        case 2: a.outcome = OutcomeKind::ProviderDown; break;
        case 3: a.phase = OutcomePhase::MidStream; break;
        case 4: a.httpStatus = 201; break;
        case 5: a.startedMs += 1; break;
        case 6: a.latencyMs += 1; break;
        case 7: a.ttftMs += 1; break;
        case 8: a.message = QStringLiteral("continued the answer"); break;
        case 9: row.attempts.insert(row.attempts.begin(), AttemptRecord{3, QStringLiteral("c"), 2, OutcomeKind::RetryableRateLimit,
                                                                         OutcomePhase::BeforeFirstByte, 429, row.timeMs, 5, -1, {}}); break;
        }
        const QByteArray stored = HistoryCodec::storedAttempts(row);
        QCOMPARE(stored, HistoryCodec::encodeAttempts(row.attempts));
        const std::vector<AttemptRecord> back =
            HistoryCodec::attemptsFromStored(QString::fromUtf8(stored), withoutAttempts(row), HistoryCodec::lastKeyId(row));
        QCOMPARE(back.size(), row.attempts.size());
        for (std::size_t i = 0; i < back.size(); ++i)
            QVERIFY(back[i] == row.attempts[i]);
    }

private:
    static RequestRecord servedByItsFirstAttempt()
    {
        RequestRecord r;
        r.timeMs = 1764460800123;
        r.channelId = 4;
        r.channelName = QStringLiteral("gpt-4o/A");
        r.outcome = OutcomeKind::Success;
        r.httpStatus = 200;
        r.latencyMs = 812;
        r.ttftMs = 240;
        r.attempts = {AttemptRecord{4, r.channelName, 7, OutcomeKind::Success, OutcomePhase::BeforeFirstByte, 200, r.timeMs, 812, 240, {}}};
        return r;
    }

    static RequestRecord withoutAttempts(RequestRecord r) // as the reader has it before the column is decoded
    {
        r.attempts.clear();
        return r;
    }
};

QTEST_GUILESS_MAIN(tst_HistoryCodec)
#include "tst_HistoryCodec.moc"
