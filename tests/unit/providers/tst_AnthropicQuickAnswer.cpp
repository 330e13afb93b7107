// (Rows with backslashes are ordinary literals: moc's tokenizer misreads them in raw strings.)
// The usual Anthropic message read on its bytes gives the OpenAI client what the parsing path
// gives it (AnthropicAdapter::chatResponse through the default classifyAnswer): the same answer,
// outcome and usage for every message it takes, and every other message is left to that path.
#include "providers/anthropic/AnthropicAdapter.h"
#include "providers/anthropic/AnthropicQuickAnswer.h"
#include "providers/common/OpenAiAnswer.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace sb;

namespace {

QByteArray message(const QByteArray &content, const QByteArray &rest = R"("stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":7})")
{
    return R"({"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4",)"
           R"("content":)" + content + "," + rest + "}";
}

struct Read {
    Outcome outcome;
    QJsonObject answer; // as the client gets it
    TokenUsage usage;
    bool onBytes = false;
};

Read readThrough(const AnthropicAdapter &adapter, const QByteArray &body, bool parsingPath)
{
    Read read;
    OpenAiAnswer answer;
    read.outcome = parsingPath ? adapter.ProviderAdapter::classifyAnswer(200, HttpHeaders(), body, false, &answer, &read.usage)
                               : adapter.classifyAnswer(200, HttpHeaders(), body, false, &answer, &read.usage);
    read.answer = QJsonDocument::fromJson(answer.toJson(QStringLiteral("claude-route"), 1764460800)).object();
    read.onBytes = answer.isPassThrough();
    return read;
}

} // namespace

class tst_AnthropicQuickAnswer : public QObject {
    Q_OBJECT
private slots:
    void readsAsTheParsingPathDoes_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<bool>("onBytes"); // taken by the quick path
        QTest::newRow("one text block") << message(R"([{"type":"text","text":"Hello!"}])") << true;
        QTest::newRow("escapes and non-ASCII") << message("[{\"type\":\"text\",\"text\":\"line\\nnext \\\"quoted\\\" \\\\ \\u00e9 é 你好 \\ud83d\\ude00\"}]") << true;
        QTest::newRow("two text blocks joined") << message(R"([{"type":"text","text":"Hel"},{"type":"text","text":"lo\n"}])") << true;
        QTest::newRow("citations beside the text")
            << message(R"([{"type":"text","text":"cited","citations":[{"type":"char_location","cited_text":"x"}]}])") << true;
        QTest::newRow("cut at max_tokens") << message(R"([{"type":"text","text":"cut"}])", R"("stop_reason":"max_tokens","usage":{"input_tokens":3,"output_tokens":1})") << true;
        QTest::newRow("refusal") << message(R"([{"type":"text","text":"no"}])", R"("stop_reason":"refusal")") << true;
        QTest::newRow("no stop reason") << message(R"([{"type":"text","text":"x"}])", R"("stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1})") << true;
        QTest::newRow("empty content, a stop reason") << message("[]", R"("stop_reason":"end_turn","usage":{"input_tokens":4,"output_tokens":0})") << true;
        QTest::newRow("prompt cache counts")
            << message(R"([{"type":"text","text":"cached"}])",
                       R"("stop_reason":"end_turn","usage":{"input_tokens":10,"cache_read_input_tokens":2048,"cache_creation_input_tokens":512,"output_tokens":20})")
            << true;
        QTest::newRow("no usage") << message(R"([{"type":"text","text":"hi"}])", R"("stop_reason":"end_turn")") << true;
        // Counts that are not plain integers are read as Qt reads them.
        QTest::newRow("a count written as a decimal")
            << message(R"([{"type":"text","text":"hi"}])", R"("stop_reason":"end_turn","usage":{"input_tokens":9.0,"output_tokens":7})") << true;
        QTest::newRow("a count written as a string")
            << message(R"([{"type":"text","text":"hi"}])", R"("stop_reason":"end_turn","usage":{"input_tokens":"9","output_tokens":7})") << true;
        QTest::newRow("a null cache count")
            << message(R"([{"type":"text","text":"hi"}])",
                       R"("stop_reason":"end_turn","usage":{"input_tokens":9,"cache_read_input_tokens":null,"output_tokens":7})")
            << true;
        QTest::newRow("a negative count and other members")
            << message(R"([{"type":"text","text":"hi"}])",
                       R"("stop_reason":"end_turn","usage":{"input_tokens":-3,"output_tokens":7,"service_tier":"standard","cache_creation":{"ephemeral_5m_input_tokens":0}})")
            << true;
        QTest::newRow("usage that is not an object")
            << message(R"([{"type":"text","text":"hi"}])", R"("stop_reason":"end_turn","usage":[9,7])") << true;
        // What only the parsing path reads.
        QTest::newRow("a tool call") << message(R"([{"type":"text","text":"Let me look."},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}])",
                                                R"("stop_reason":"tool_use","usage":{"input_tokens":9,"output_tokens":7})")
                                     << false;
        QTest::newRow("thinking first") << message(R"([{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"text","text":"42"}])") << false;
        QTest::newRow("empty content, no stop reason") << message("[]", R"("stop_reason":null)") << false;
        QTest::newRow("an escaped key") << message("[{\"type\":\"text\",\"t\\u0065xt\":\"hi\"}]") << false;
        QTest::newRow("a text that is not a string") << message(R"([{"type":"text","text":5}])") << false;
        QTest::newRow("a repeated key") << message(R"([{"type":"text","text":"a","text":"b"}])") << false;
        QTest::newRow("a stop reason with an escape") << message(R"([{"type":"text","text":"a"}])", "\"stop_reason\":\"end\\u005fturn\"") << false;
        QTest::newRow("an error object") << QByteArray(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})") << false;
        QTest::newRow("an error member in a message") << message(R"([{"type":"text","text":"a"}])", R"("error":{"type":"api_error","message":"x"})") << false;
        QTest::newRow("not a message") << QByteArray(R"({"id":"x","type":"completion","content":[]})") << false;
        QTest::newRow("not JSON") << QByteArray("<html>busy</html>") << false;
    }

    void readsAsTheParsingPathDoes()
    {
        QFETCH(QByteArray, body);
        QFETCH(bool, onBytes);
        const AnthropicAdapter adapter;
        const Read quick = readThrough(adapter, body, false);
        const Read parsed = readThrough(adapter, body, true);
        QCOMPARE(quick.onBytes, onBytes);
        QVERIFY(!parsed.onBytes);
        QCOMPARE(quick.outcome.kind, parsed.outcome.kind);
        QCOMPARE(quick.outcome.httpStatus, parsed.outcome.httpStatus);
        if (!parsed.outcome.isSuccess())
            return;
        QCOMPARE(quick.answer, parsed.answer);
        QCOMPARE(quick.usage.promptTokens, parsed.usage.promptTokens);
        QCOMPARE(quick.usage.completionTokens, parsed.usage.completionTokens);
        QCOMPARE(quick.usage.totalTokens, parsed.usage.totalTokens);
        QCOMPARE(quick.usage.cacheReadTokens, parsed.usage.cacheReadTokens);
        QCOMPARE(quick.usage.cacheWriteTokens, parsed.usage.cacheWriteTokens);
    }

    // The usual answer's bytes, as the client gets them: the provider's text literal kept, the
    // model the route's, created stamped.
    void theUsualAnswerIsWrittenWhole()
    {
        TokenUsage usage;
        const std::optional<QByteArray> completion = quickChatCompletion(message(R"([{"type":"text","text":"Hello!"}])"), &usage);
        QVERIFY(completion);
        QCOMPARE(*completion, QByteArray(R"({"choices":[{"finish_reason":"stop","index":0,"message":{"content":"Hello!","role":"assistant"}}],)"
                                         R"("id":"msg_01XFDUDYJgAACzvnptvVoYEL","model":"","object":"chat.completion",)"
                                         R"("usage":{"completion_tokens":7,"prompt_tokens":9,"total_tokens":16}})"));
        QCOMPARE(usage.promptTokens, 9);
        QCOMPARE(usage.completionTokens, 7);
    }

    // A stream's content type on a JSON body is a malformed answer, which the parsing path words.
    void aJsonBodyLabelledAsAStreamIsLeftToTheParsingPath()
    {
        const AnthropicAdapter adapter;
        HttpHeaders headers;
        headers.set("Content-Type", "text/event-stream");
        OpenAiAnswer answer;
        TokenUsage usage;
        const Outcome outcome = adapter.classifyAnswer(200, headers, message(R"([{"type":"text","text":"hi"}])"), false, &answer, &usage);
        QVERIFY(!outcome.isSuccess());
        QVERIFY(!answer.isPassThrough());
    }
};

QTEST_GUILESS_MAIN(tst_AnthropicQuickAnswer)
#include "tst_AnthropicQuickAnswer.moc"
