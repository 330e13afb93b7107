// OpenAiCompatAnswerShape: the hot path's look at an answer's bytes and the parsed object's
// verdict must agree. The bytes may say "look closer" (then the object decides) but never call an
// answer well-formed that the object calls malformed; and the usual answers must pass on their
// bytes alone, or every request would pay for a parse.
#include "common/json/JsonObjectScan.h"
#include "providers/common/ProviderText.h"
#include "providers/openai_compat/OpenAiCompatAnswerShape.h"

#include <QtTest>

using namespace sb;

class tst_OpenAiCompatAnswerShape : public QObject {
    Q_OBJECT
private slots:
    void bytesAndObjectAgree_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<bool>("embeddings");
        QTest::addColumn<bool>("onBytes");   // the hot path accepts it without a parse
        QTest::addColumn<bool>("wellFormed"); // the parsed object's verdict
        const auto row = [](const char *name, const QByteArray &body, bool onBytes, bool wellFormed, bool embeddings = false) {
            QTest::newRow(name) << body << embeddings << onBytes << wellFormed;
        };
        row("content and stop", R"({"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]})", true, true);
        row("content, no finish", R"({"choices":[{"message":{"content":"hi"}}]})", true, true);
        row("empty content, length stop", R"({"choices":[{"message":{"content":""},"finish_reason":"length"}]})", true, true);
        row("tool calls, null content",
            R"({"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]})",
            true, true);
        row("reasoning only", R"({"choices":[{"message":{"content":"","reasoning_content":"thinking"}}]})", true, true);
        row("refusal", R"({"choices":[{"message":{"content":null,"refusal":"No"},"finish_reason":"stop"}]})", true, true);
        row("whitespace everywhere", "{ \"choices\" : [ { \"message\" : { \"content\" : \"hi\" } , \"finish_reason\" : \"stop\" } ] }", true, true);
        row("two choices", R"({"choices":[{"message":{"content":"a"},"finish_reason":"stop"},{"message":{"content":"b"},"finish_reason":"stop"}]})",
            true, true);
        // (An escaped string: moc reads a raw string with a backslash-quote in it wrongly.)
        row("three choices, nested objects before the message",
            "{\"choices\":[{\"index\":0,\"logprobs\":{\"content\":[{\"token\":\"a\",\"top_logprobs\":[]}]},"
            "\"message\":{\"role\":\"assistant\",\"content\":\"a\",\"annotations\":[{\"x\":{\"y\":\"}\"}}]},\"finish_reason\":\"stop\"},"
            " {\"index\":1,\"message\":{\"content\":\"b \\\" } ]\"} ,\"finish_reason\":null} ,{\"index\":2,\"message\":{\"audio\":{\"id\":\"x\"}}}]}",
            true, true);
        row("a message that is an empty object, finished", R"({"choices":[{"message":{},"finish_reason":"stop"}]})", true, true);
        row("the message after the finish reason", R"({"choices":[{"finish_reason":"stop","message":{"content":null}}]})", true, true);
        row("content as parts", R"({"choices":[{"message":{"content":[{"type":"text","text":"hi"}]}}]})", false, true);
        row("an escaped message key", "{\"choices\":[{\"mess\\u0061ge\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}", false, true);
        row("no choices", R"({"id":"c","object":"chat.completion"})", false, false);
        row("empty choices", R"({"choices":[]})", false, false);
        row("empty choices with space", R"({"choices":[ ]})", false, false);
        row("choices null", R"({"choices":null})", false, false);
        row("a choice that is not an object", R"({"choices":["hi"]})", false, false);
        row("a choice without a message", R"({"choices":[{"finish_reason":"stop"}]})", false, false);
        row("a message that is a string", R"({"choices":[{"message":"hi","finish_reason":"stop"}]})", false, false);
        row("empty and unfinished", R"({"choices":[{"message":{"role":"assistant","content":""},"finish_reason":null}]})", false, false);
        row("an empty finish reason", R"({"choices":[{"message":{"content":""},"finish_reason":""}]})", false, false);
        row("empty tool calls", R"({"choices":[{"message":{"content":null,"tool_calls":[]}}]})", false, false);
        row("a later choice that is not an object", R"({"choices":[{"message":{"content":"a"}},{"message":{"content":"b"}},7]})", false, false);
        row("the second choice empty", R"({"choices":[{"message":{"content":"a"},"finish_reason":"stop"},{"message":{}}]})", false, false);
        row("embeddings", R"({"object":"list","data":[{"embedding":[0.1]}]})", true, true, true);
        row("embeddings, empty data", R"({"object":"list","data":[]})", false, false, true);
        row("embeddings, no data", R"({"object":"list"})", false, false, true);
    }

    void bytesAndObjectAgree()
    {
        QFETCH(QByteArray, body);
        QFETCH(bool, embeddings);
        QFETCH(bool, onBytes);
        QFETCH(bool, wellFormed);
        JsonObjectScan scan;
        const bool scanned = scan.scan(body);
        QCOMPARE(scanned && OpenAiCompatAnswerShape::isWellFormed(body, scan, embeddings), onBytes);
        QJsonObject object;
        QVERIFY(parseJsonObject(body, &object));
        const std::optional<QString> problem = OpenAiCompatAnswerShape::problem(object, embeddings);
        QCOMPARE(!problem.has_value(), wellFormed);
        if (problem)
            QVERIFY(!problem->isEmpty());
    }
};

QTEST_APPLESS_MAIN(tst_OpenAiCompatAnswerShape)
#include "tst_OpenAiCompatAnswerShape.moc"
