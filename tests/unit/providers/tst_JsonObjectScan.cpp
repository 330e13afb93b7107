// JsonObjectScan (the validating scan behind answer pass-through) and OpenAiAnswer (what the proxy
// writes to the client). The scan must never accept what Qt's parser refuses, nor report members
// other than the ones Qt finds: both are checked against QJsonDocument, over hand-picked inputs and
// over thousands of mutations of a real answer. (No raw string literals here: moc misreads them.)
#include "common/json/JsonText.h"
#include "common/json/JsonObjectScan.h"
#include "providers/common/OpenAiAnswer.h"

#include "JsonMutation.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QtTest>

using namespace sb;

namespace {

const QByteArray kAnswer =
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1718000000,\"model\":\"gpt-4o-mini-2024-07-18\","
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hi \\\"there\\\" \\u00e9\\ud83d\\ude00 ü 😀\"},"
    "\"logprobs\":null,\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":7,\"total_tokens\":16},"
    "\"system_fingerprint\":\"fp_1\",\"score\":-1.5e-3,\"flags\":[true,false,null,{},[]]}";

QByteArrayView valueOf(const QByteArray &json, const JsonObjectScan::Member &member)
{
    return QByteArrayView(json).sliced(member.valueBegin, member.valueEnd - member.valueBegin);
}

// What Qt makes of one value written on its own.
QJsonValue qtValue(QByteArrayView raw)
{
    const QJsonDocument doc = QJsonDocument::fromJson("[" + raw.toByteArray() + "]");
    return doc.isArray() && doc.array().size() == 1 ? doc.array().first() : QJsonValue(QJsonValue::Undefined);
}

// The scan's verdict agrees with Qt's: when it accepts, Qt parses the same object, member by member.
void agreesWithQt(const QByteArray &json)
{
    JsonObjectScan scan;
    if (!scan.scan(json))
        return; // refusing is always allowed: the caller falls back to Qt
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    QVERIFY2(error.error == QJsonParseError::NoError && doc.isObject(),
             qPrintable("accepted what Qt refuses: " + QString::fromUtf8(json.toPercentEncoding(" {}[]\":,"))));
    const QJsonObject object = doc.object();
    QCOMPARE(scan.members().size(), object.size());
    for (const JsonObjectScan::Member &member : scan.members()) {
        const QString key = QString::fromUtf8(member.key);
        QVERIFY2(object.contains(key), qPrintable(key));
        QCOMPARE(qtValue(valueOf(json, member)), object.value(key));
    }
}

} // namespace

class tst_JsonObjectScan : public QObject {
    Q_OBJECT

private slots:
    void findsTheTopLevelMembersOfAnAnswer()
    {
        JsonObjectScan scan;
        QVERIFY(scan.scan(kAnswer));
        QCOMPARE(scan.openingBrace(), 0);
        QStringList keys;
        for (const auto &member : scan.members())
            keys << QString::fromUtf8(member.key);
        QCOMPARE(keys, (QStringList{"id", "object", "created", "model", "choices", "usage", "system_fingerprint",
                                    "score", "flags"}));
        QCOMPARE(valueOf(kAnswer, *scan.find("model")), QByteArrayView("\"gpt-4o-mini-2024-07-18\""));
        QCOMPARE(valueOf(kAnswer, *scan.find("created")), QByteArrayView("1718000000"));
        QCOMPARE(valueOf(kAnswer, *scan.find("usage")),
                 QByteArrayView("{\"prompt_tokens\":9,\"completion_tokens\":7,\"total_tokens\":16}"));
        QVERIFY(!scan.find("prompt_tokens")); // nested members are not top-level ones
        agreesWithQt(kAnswer);
    }

    void acceptsWhitespaceAndEveryValueKind()
    {
        const QByteArray json = " \r\n\t{ \"a\" : [ 1 , -0.5E+3 , 0e0 ] ,\n\"b\":{\"c\":\"\\/\\b\\f\\n\\r\\t\\\\\"} , \"d\" : true }\n ";
        JsonObjectScan scan;
        QVERIFY(scan.scan(json));
        QCOMPARE(scan.openingBrace(), 4);
        QCOMPARE(valueOf(json, *scan.find("a")), QByteArrayView("[ 1 , -0.5E+3 , 0e0 ]"));
        QCOMPARE(valueOf(json, *scan.find("d")), QByteArrayView("true"));
        agreesWithQt(json);
        QVERIFY(scan.scan("{}"));
        QVERIFY(scan.members().isEmpty());
    }

    void refusesWhatIsNotOneCleanObject_data()
    {
        QTest::addColumn<QByteArray>("json");
        const QList<QPair<const char *, QByteArray>> cases = {
            {"empty", ""},
            {"whitespace only", "  \n"},
            {"array at the top", "[1,2]"},
            {"string at the top", "\"x\""},
            {"trailing comma in object", "{\"a\":1,}"},
            {"trailing comma in array", "{\"a\":[1,]}"},
            {"missing value", "{\"a\":}"},
            {"missing colon", "{\"a\" 1}"},
            {"single quotes", "{'a':1}"},
            {"bare key", "{a:1}"},
            {"leading zero", "{\"a\":01}"},
            {"lone minus", "{\"a\":-}"},
            {"dot without digits", "{\"a\":1.}"},
            {"leading dot", "{\"a\":.5}"},
            {"exponent without digits", "{\"a\":1e+}"},
            {"plus sign", "{\"a\":+1}"},
            {"number too large for a double", "{\"a\":1e400}"},
            {"integer too large for a double", "{\"a\":" + QByteArray(400, '9') + "}"},
            {"number too small to be anything but zero", "{\"a\":1e-400}"},
            {"NaN", "{\"a\":NaN}"},
            {"Infinity", "{\"a\":Infinity}"},
            {"truncated literal", "{\"a\":tru}"},
            {"capitalised literal", "{\"a\":True}"},
            {"unknown escape", "{\"a\":\"\\x41\"}"},
            {"short unicode escape", "{\"a\":\"\\u12\"}"},
            {"lone high surrogate", "{\"a\":\"\\ud83d\"}"},
            {"lone low surrogate", "{\"a\":\"\\ude00\"}"},
            {"high surrogate then a letter", "{\"a\":\"\\ud83dx\"}"},
            {"raw newline in a string", "{\"a\":\"x\ny\"}"},
            {"raw NUL in a string", QByteArray("{\"a\":\"x\0y\"}", 11)},
            {"unterminated string", "{\"a\":\"x"},
            {"unterminated object", "{\"a\":1"},
            {"garbage after the object", "{\"a\":1} x"},
            {"two objects", "{\"a\":1}{\"b\":2}"},
            {"overlong UTF-8", "{\"a\":\"\xC0\x80\"}"},
            {"UTF-8 surrogate", "{\"a\":\"\xED\xA0\x80\"}"},
            {"beyond U+10FFFF", "{\"a\":\"\xF4\x90\x80\x80\"}"},
            {"truncated UTF-8", "{\"a\":\"\xE2\x82\"}"},
            {"stray continuation byte", "{\"a\":\"\x80\"}"},
            {"invalid lead byte", "{\"a\":\"\xFF\"}"},
            {"byte order mark", "\xEF\xBB\xBF{\"a\":1}"},
            {"escaped top-level key", "{\"mod\\u0065l\":\"x\"}"},
            {"repeated top-level key", "{\"model\":\"a\",\"model\":\"b\"}"},
            {"form feed as whitespace", "{\f\"a\":1}"},
        };
        for (const auto &[name, json] : cases)
            QTest::newRow(name) << json;
        QTest::newRow("nesting past the limit")
            << "{\"a\":" + QByteArray(JsonObjectScan::kMaxDepth, '[') + QByteArray(JsonObjectScan::kMaxDepth, ']') + "}";
        QByteArray many = "{";
        for (int i = 0; i <= JsonObjectScan::kMaxMembers; ++i)
            many += (i ? "," : "") + QByteArray("\"k") + QByteArray::number(i) + "\":0";
        QTest::newRow("more top-level members than the limit") << many + "}";
    }

    void refusesWhatIsNotOneCleanObject()
    {
        QFETCH(QByteArray, json);
        JsonObjectScan scan;
        QVERIFY(!scan.scan(json));
        QVERIFY(scan.members().isEmpty());
    }

    // Strings are read eight bytes at a time: a byte that needs a look, valid or not, is found at
    // every place in a word and in the tail shorter than a word, in strings of every length around
    // a word's.
    void everyStringByteIsSeenWhereverItFalls_data()
    {
        QTest::addColumn<QByteArray>("inside");
        QTest::addColumn<bool>("valid");
        QTest::newRow("plain") << QByteArray("a") << true;
        QTest::newRow("tilde, the last plain byte") << QByteArray("~") << true;
        QTest::newRow("space, the first plain byte") << QByteArray(" ") << true;
        QTest::newRow("escaped quote") << QByteArray("\\\"") << true;
        QTest::newRow("escaped backslash") << QByteArray("\\\\") << true;
        QTest::newRow("escape \\u") << QByteArray("\\u00e9") << true;
        QTest::newRow("two-byte UTF-8") << QByteArray("\xc3\xa9") << true;
        QTest::newRow("four-byte UTF-8") << QByteArray("\xf0\x9f\x98\x80") << true;
        QTest::newRow("DEL") << QByteArray("\x7f") << true;
        QTest::newRow("raw quote") << QByteArray("\"") << false;
        QTest::newRow("lone backslash") << QByteArray("\\x") << false;
        QTest::newRow("raw tab") << QByteArray("\t") << false;
        QTest::newRow("raw unit separator") << QByteArray("\x1f") << false;
        QTest::newRow("raw NUL") << QByteArray(1, '\0') << false;
        QTest::newRow("lone continuation byte") << QByteArray("\x80") << false;
        QTest::newRow("overlong") << QByteArray("\xc0\xaf") << false;
        QTest::newRow("byte 0xff") << QByteArray("\xff") << false;
    }

    void everyStringByteIsSeenWhereverItFalls()
    {
        QFETCH(QByteArray, inside);
        QFETCH(bool, valid);
        for (int before = 0; before <= 17; ++before) {
            for (int after = 0; after <= 17; ++after) {
                const QByteArray text = QByteArray(before, 'x') + inside + QByteArray(after, 'y');
                const QByteArray json = "{\"k\":\"" + text + "\"}";
                JsonObjectScan scan;
                QVERIFY2(scan.scan(json) == valid, qPrintable(QStringLiteral("%1 before, %2 after").arg(before).arg(after)));
                if (valid)
                    QCOMPARE(valueOf(json, scan.members().first()), QByteArrayView("\"" + text + "\""));
            }
        }
    }

    void acceptsNestingUpToTheLimitAndEscapedNestedKeys()
    {
        const QByteArray deepest = "{\"a\":" + QByteArray(JsonObjectScan::kMaxDepth - 1, '[')
            + QByteArray(JsonObjectScan::kMaxDepth - 1, ']') + "}";
        JsonObjectScan scan;
        QVERIFY(scan.scan(deepest));
        agreesWithQt(deepest);
        const QByteArray nested = "{\"a\":{\"k\\u0065y\":1,\"key\":2},\"b\":\"\\ud83d\\ude00 \\u0000\"}";
        QVERIFY(scan.scan(nested));
        agreesWithQt(nested);
    }

    // Thousands of small corruptions of a real answer: whatever the scan accepts, Qt reads the same.
    void agreesWithQtOnMutatedAnswers()
    {
        QRandomGenerator random(20261201);
        int accepted = 0;
        for (int round = 0; round < 20000; ++round) {
            const QByteArray json = test::mutatedJson(kAnswer, random);
            JsonObjectScan scan;
            if (scan.scan(json))
                ++accepted;
            agreesWithQt(json);
            if (QTest::currentTestFailed())
                return;
        }
        QVERIFY2(accepted > 100, "some mutants are valid JSON and must be accepted");
    }

    void passThroughRewritesOnlyTheModel()
    {
        JsonObjectScan scan;
        QVERIFY(scan.scan(kAnswer));
        const std::optional<OpenAiAnswer> answer = OpenAiAnswer::passThrough(kAnswer, scan);
        QVERIFY(answer && answer->isPassThrough());
        const QByteArray out = answer->toJson(QStringLiteral("my-model"), 42);
        QByteArray expected = kAnswer;
        expected.replace("\"gpt-4o-mini-2024-07-18\"", "\"my-model\"");
        QCOMPARE(out, expected); // byte for byte: member order, spacing and numbers as the provider wrote them
    }

    void passThroughInsertsWhatIsMissing_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("written");
        QTest::newRow("no model, no created") << QByteArray("{\"object\":\"list\",\"data\":[]}")
                                              << QByteArray("{\"model\":\"m \\\"q\\\" \\\\ \\n é\",\"created\":42,\"object\":\"list\",\"data\":[]}");
        QTest::newRow("empty object") << QByteArray("{}") << QByteArray("{\"model\":\"m \\\"q\\\" \\\\ \\n é\",\"created\":42}");
        QTest::newRow("empty object with spaces") << QByteArray(" { } ")
                                                  << QByteArray(" {\"model\":\"m \\\"q\\\" \\\\ \\n é\",\"created\":42 } ");
        QTest::newRow("model present, created missing") << QByteArray("{\"model\":\"x\",\"id\":\"1\"}")
                                                        << QByteArray("{\"created\":42,\"model\":\"m \\\"q\\\" \\\\ \\n é\",\"id\":\"1\"}");
    }

    void passThroughInsertsWhatIsMissing()
    {
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, written);
        JsonObjectScan scan;
        QVERIFY(scan.scan(body));
        const std::optional<OpenAiAnswer> answer = OpenAiAnswer::passThrough(body, scan);
        QVERIFY(answer);
        const QByteArray out = answer->toJson(QStringLiteral("m \"q\" \\ \n é"), 42);
        QCOMPARE(out, written);
        QVERIFY(QJsonDocument::fromJson(out).isObject());
    }

    void createdThatIsNotAPlainPositiveIntegerIsLeftToTheObjectPath_data()
    {
        QTest::addColumn<QByteArray>("created");
        for (const char *value : {"0", "-5", "1.7e9", "1718000000.0", "\"1718000000\"", "null", "true", "{}", "[]",
                                  "12345678901234567890"})
            QTest::newRow(value) << QByteArray(value);
    }

    void createdThatIsNotAPlainPositiveIntegerIsLeftToTheObjectPath()
    {
        QFETCH(QByteArray, created);
        const QByteArray body = "{\"created\":" + created + ",\"model\":\"x\"}";
        JsonObjectScan scan;
        QVERIFY(scan.scan(body));
        QVERIFY(!OpenAiAnswer::passThrough(body, scan));
    }

    void theObjectPathWritesModelAndCreatedAsBefore()
    {
        const OpenAiAnswer answer = OpenAiAnswer::fromObject(QJsonObject{{"created", 0}, {"model", "x"}, {"id", "1"}});
        QVERIFY(!answer.isPassThrough());
        QCOMPARE(answer.toJson(QStringLiteral("m"), 42), QByteArray("{\"created\":42,\"id\":\"1\",\"model\":\"m\"}"));
        QCOMPARE(OpenAiAnswer::fromObject(QJsonObject{{"created", 7}}).toJson(QStringLiteral("m"), 42),
                 QByteArray("{\"created\":7,\"model\":\"m\"}"));
        QVERIFY(OpenAiAnswer().isEmpty());
    }

    void jsonStringsAreWrittenAsQtWritesThem()
    {
        for (const QString &text : {QStringLiteral("plain"), QStringLiteral("quote \" backslash \\ slash /"),
                                    QStringLiteral("controls \b\f\n\r\t \x01\x1f"), QStringLiteral("é ü 😀 中文"),
                                    QString()}) {
            QByteArray mine;
            appendJsonString(&mine, text);
            QByteArray qt = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
            qt = qt.mid(1, qt.size() - 2);
            QCOMPARE(mine, qt);
        }
    }

    // Every worker writes the shared configuration's names without a lock, so writing one must
    // only read it. A literal's text and raw data are where a const call could swap in a copy.
    void writingAStringLeavesItsTextWhereItWas()
    {
        static const char16_t raw[] = u"gpt-4o-raw";
        for (const QString &text : {QStringLiteral("gpt-4o"), QStringLiteral("é literal"),
                                    QString::fromRawData(reinterpret_cast<const QChar *>(raw), 10)}) {
            const QChar *before = text.constData();
            QByteArray bytes;
            appendJsonString(&bytes, text);
            std::string standard;
            appendJsonString(&standard, text);
            QCOMPARE(text.constData(), before);
            QCOMPARE(bytes, QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact).chopped(1).mid(1));
            QCOMPARE(QByteArray::fromStdString(standard), bytes);
        }
    }

    void jsonValuesAreWrittenAsQtWritesThem()
    {
        const QJsonArray values{QJsonValue(QJsonValue::Null), true, false, 0, -7, 16, 1.0, 0.25, 1e-7, 3.0e20, 9007199254740993LL,
                                QStringLiteral("é \" x"), QJsonArray{1, "a", QJsonObject{{"k", QJsonArray()}}},
                                QJsonObject{{"b", 1}, {"a", QJsonObject{{"format", QJsonObject{{"type", "text"}}}}}}};
        for (const QJsonValue &value : values) {
            QByteArray mine;
            appendJsonValue(&mine, value);
            QByteArray qt = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
            qt = qt.mid(1, qt.size() - 2);
            // The same value; an integral double may be written as an integer (1 for 1.0, as Qt does too).
            QCOMPARE(QJsonDocument::fromJson("[" + mine + "]").array().at(0), value);
            if (value.type() != QJsonValue::Double || value.toInteger(-1) == -1)
                QCOMPARE(mine, qt);
        }
        QByteArray undefined;
        appendJsonValue(&undefined, QJsonValue(QJsonValue::Undefined));
        QCOMPARE(undefined, QByteArray("null"));
    }
};

QTEST_GUILESS_MAIN(tst_JsonObjectScan)
#include "tst_JsonObjectScan.moc"
