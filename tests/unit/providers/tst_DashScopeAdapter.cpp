// DashScopeAdapter: OpenAI chat.completions → DashScope native generation requests (URL, auth,
// SSE header, input/parameters body), embeddings, probe.
#include "providers/dashscope/DashScopeAdapter.h"

#include "AnswerTable.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

namespace {

const QString Key = QStringLiteral("sk-0123456789abcdef0123456789abcdef");

struct Context {
    ProviderConfig provider;
    ChannelConfig channel;
    AdapterContext ctx;
    explicit Context(QString baseUrl = QString())
    {
        provider.dialect = QStringLiteral("dashscope");
        provider.baseUrl = std::move(baseUrl);
        channel.upstreamModel = QStringLiteral("qwen-plus");
        ctx.provider = &provider;
        ctx.channel = &channel;
        ctx.apiKey = Key;
    }
};

QJsonObject parse(const QByteArray &bytes) { return QJsonDocument::fromJson(bytes).object(); }

QJsonObject conversation(bool stream)
{
    QJsonObject o = parse(R"({
      "model": "logical",
      "messages": [
        {"role": "developer", "content": "Answer in English."},
        {"role": "user", "content": [{"type": "text", "text": "Weather in"}, {"type": "text", "text": "Hangzhou?"}]},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "get_current_weather", "arguments": "{\u0022location\u0022:\u0022Hangzhou\u0022}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "name": "get_current_weather", "content": "24 C"}
      ],
      "temperature": 0.7, "top_p": 0.8, "max_tokens": 100, "stop": ["###"], "seed": 42, "n": 2,
      "tools": [{"type": "function", "function": {"name": "get_current_weather", "parameters": {"type": "object"}}}],
      "tool_choice": "auto",
      "stream_options": {"include_usage": true}
    })");
    o.insert("stream", stream);
    return o;
}

constexpr OutcomeKind Down = OutcomeKind::ProviderDown;
constexpr OutcomeKind Ok = OutcomeKind::Success;

const QByteArray kAnswer = R"({"output":{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]},)"
                           R"("usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4},"request_id":"r1"})";

QByteArray resultEvent(const QByteArray &data)
{
    return "id:1\nevent:result\n:HTTP_STATUS/200\ndata:" + data + "\n\n";
}

QByteArray errorEvent(const QByteArray &data)
{
    return "id:1\nevent:error\n:HTTP_STATUS/400\ndata:" + data + "\n\n";
}

} // namespace

class tst_DashScopeAdapter : public QObject {
    Q_OBJECT
private slots:
    void identity()
    {
        const DashScopeAdapter a;
        QCOMPARE(a.dialect(), QStringLiteral("dashscope"));
        QVERIFY(a.defaultBaseUrl().startsWith(QLatin1String("https://")));
    }

    void nonStreamRequest()
    {
        Context c;
        const UpstreamRequest r = DashScopeAdapter().chatRequest(conversation(false), c.ctx);
        QVERIFY(!r.stream);
        QCOMPARE(r.url.toString(), QStringLiteral("https://dashscope.aliyuncs.com/api/v1/services/aigc/text-generation/generation"));
        QCOMPARE(r.headers.value("Authorization"), "Bearer " + Key.toUtf8());
        QVERIFY(!r.headers.contains("X-DashScope-SSE"));
        QVERIFY(!r.url.toString().contains(Key));
        QVERIFY(!r.body.contains(Key.toUtf8()));

        const QJsonObject body = parse(r.body);
        QCOMPARE(body.value("model").toString(), QStringLiteral("qwen-plus")); // the channel's model, not the caller's
        const QJsonArray messages = body.value("input").toObject().value("messages").toArray();
        QCOMPARE(messages.size(), 4);
        QCOMPARE(messages.at(0).toObject().value("role").toString(), QStringLiteral("system"));
        QCOMPARE(messages.at(1).toObject().value("content").toString(), QStringLiteral("Weather in\nHangzhou?"));
        QCOMPARE(messages.at(2).toObject().value("tool_calls").toArray().first().toObject().value("id").toString(), QStringLiteral("call_1"));
        QCOMPARE(messages.at(3).toObject().value("role").toString(), QStringLiteral("tool"));
        QCOMPARE(messages.at(3).toObject().value("tool_call_id").toString(), QStringLiteral("call_1"));

        const QJsonObject p = body.value("parameters").toObject();
        QCOMPARE(p.value("result_format").toString(), QStringLiteral("message"));
        QVERIFY(!p.contains("incremental_output"));
        QCOMPARE(p.value("temperature").toDouble(), 0.7);
        QCOMPARE(p.value("top_p").toDouble(), 0.8);
        QCOMPARE(p.value("max_tokens").toInt(), 100);
        QCOMPARE(p.value("seed").toInt(), 42);
        QVERIFY(!p.contains("n")); // only choice 0 is translated
        QCOMPARE(p.value("stop").toArray(), QJsonArray{QStringLiteral("###")});
        QCOMPARE(p.value("tools").toArray().size(), 1);
        QCOMPARE(p.value("tool_choice").toString(), QStringLiteral("auto"));
        QVERIFY(!p.contains("stream_options")); // an OpenAI-only field stays behind
    }

    void streamRequestAsksForIncrementalSse()
    {
        Context c;
        const UpstreamRequest r = DashScopeAdapter().chatRequest(conversation(true), c.ctx);
        QVERIFY(r.stream);
        QCOMPARE(r.headers.value("x-dashscope-sse"), QByteArray("enable"));
        // Without incremental_output every event repeats the whole text so far.
        QVERIFY(parse(r.body).value("parameters").toObject().value("incremental_output").toBool());
    }

    void baseUrlVariants_data()
    {
        QTest::addColumn<QString>("base");
        QTest::addColumn<QString>("expected");
        const QString tail = QStringLiteral("/api/v1/services/aigc/text-generation/generation");
        QTest::newRow("default") << "" << "https://dashscope.aliyuncs.com" + tail;
        QTest::newRow("api/v1") << "https://dashscope-intl.aliyuncs.com/api/v1" << "https://dashscope-intl.aliyuncs.com" + tail;
        QTest::newRow("trailing slash") << "https://dashscope-intl.aliyuncs.com/api/v1/" << "https://dashscope-intl.aliyuncs.com" + tail;
        QTest::newRow("local sim") << "http://127.0.0.1:9100" << "http://127.0.0.1:9100" + tail;
    }
    void baseUrlVariants()
    {
        QFETCH(QString, base);
        QFETCH(QString, expected);
        Context c(base);
        QCOMPARE(DashScopeAdapter().chatRequest(conversation(false), c.ctx).url.toString(), expected);
    }

    void probe()
    {
        Context c;
        const UpstreamRequest r = DashScopeAdapter().probeRequest(c.ctx);
        QCOMPARE(r.method, QByteArray("GET"));
        QCOMPARE(r.url.toString(), QStringLiteral("https://dashscope.aliyuncs.com/compatible-mode/v1/models"));
        QCOMPARE(r.headers.value("authorization"), "Bearer " + Key.toUtf8());
    }

    void embeddings()
    {
        Context c;
        c.channel.upstreamModel = QStringLiteral("text-embedding-v3");
        const auto r = DashScopeAdapter().embeddingsRequest(parse(R"({"model":"e","input":"hello","dimensions":512})"), c.ctx);
        QVERIFY(r.has_value());
        QVERIFY(r->url.toString().endsWith(QLatin1String("/api/v1/services/embeddings/text-embedding/text-embedding")));
        const QJsonObject body = parse(r->body);
        QCOMPARE(body.value("model").toString(), QStringLiteral("text-embedding-v3"));
        QCOMPARE(body.value("input").toObject().value("texts").toArray(), QJsonArray{QStringLiteral("hello")});
        QCOMPARE(body.value("parameters").toObject().value("dimension").toInt(), 512);

        TokenUsage usage;
        const QJsonObject out = DashScopeAdapter().embeddingsResponse(
            R"({"output":{"embeddings":[{"text_index":1,"embedding":[0.5]},{"text_index":0,"embedding":[0.25]}]},"usage":{"total_tokens":4}})",
            &usage);
        const QJsonArray data = out.value("data").toArray();
        QCOMPARE(data.size(), 2);
        QCOMPARE(data.at(0).toObject().value("index").toInt(), 1); // DashScope's own index is kept
        QCOMPARE(usage.totalTokens, 4);
        QCOMPARE(out.value("usage").toObject().value("prompt_tokens").toInt(), 4);
    }

    // A 2xx that is not a generation is the provider's failure, never an empty success.
    void malformed2xxIsProviderDown_data()
    {
        test::addAnswerRows({
            {"{}", "{}", Down},
            {"no output", R"({"usage":{"input_tokens":3},"request_id":"r1"})", Down},
            {"an empty output", R"({"output":{},"request_id":"r1"})", Down},
            {"empty choices", R"({"output":{"choices":[]}})", Down},
            {"a choice without a message", R"({"output":{"choices":[{"finish_reason":"stop"}]}})", Down},
            {"neither content nor a finish reason",
             R"({"output":{"choices":[{"message":{"role":"assistant","content":""},"finish_reason":"null"}]}})", Down},
            {"text format, empty and unfinished", R"({"output":{"text":"","finish_reason":"null"}})", Down},
            {"an event stream", resultEvent(kAnswer), Down, false, "text/event-stream"},
            {"not JSON", "<html><body>Bad gateway</body></html>", Down, false, "text/html"},
            {"truncated", kAnswer.left(kAnswer.size() / 2), Down},
            {"embeddings without embeddings", R"({"output":{"text":"hi"}})", Down, true},
        });
    }
    void malformed2xxIsProviderDown() { test::checkAnswerRow(DashScopeAdapter()); }

    void minimalAnswersSucceed_data()
    {
        test::addAnswerRows({
            {"a whole answer", kAnswer, Ok},
            {"only a message with content", R"({"output":{"choices":[{"message":{"content":"hi"}}]}})", Ok},
            {"text format", R"({"output":{"text":"hi","finish_reason":"stop"}})", Ok},
            {"a length stop with empty content", R"({"output":{"choices":[{"message":{"role":"assistant","content":""},"finish_reason":"length"}]}})", Ok},
            {"tool calls", R"({"output":{"choices":[{"message":{"content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}})",
             Ok},
            {"embeddings", R"({"output":{"embeddings":[{"text_index":0,"embedding":[0.1,0.2]}]},"usage":{"total_tokens":2}})", Ok, true},
        });
    }
    void minimalAnswersSucceed() { test::checkAnswerRow(DashScopeAdapter()); }

    void errorsInA200AreJudgedByAllTheirFields_data()
    {
        test::addAnswerRows({
            {"InvalidParameter saying it is overloaded", R"({"code":"InvalidParameter","message":"Model service is overloaded, please try again later."})",
             Down},
            {"InvalidParameter, the input too long", R"({"code":"InvalidParameter","message":"Range of input length should be [1, 30720]"})",
             OutcomeKind::NonRetryableParamError},
            {"Throttling.RateQuota", R"({"code":"Throttling.RateQuota","message":"Requests rate limit exceeded, please try again later."})",
             OutcomeKind::RetryableRateLimit},
            {"InvalidApiKey", R"({"code":"InvalidApiKey","message":"Invalid API-key provided."})", OutcomeKind::AuthError},
            {"Arrearage", R"({"code":"Arrearage","message":"Access denied, please make sure your account is in good standing."})",
             OutcomeKind::AuthError},
            {"DataInspectionFailed", R"({"code":"DataInspectionFailed","message":"Input data may contain inappropriate content."})",
             OutcomeKind::NonRetryableParamError},
            {"a code nobody knows", R"({"code":"SomethingNew","message":"?"})", Down},
        });
    }
    void errorsInA200AreJudgedByAllTheirFields() { test::checkAnswerRow(DashScopeAdapter()); }

    void streamsThatAreNoAnswerFailBeforeContent_data()
    {
        test::addStreamRows({
            {"an empty, unfinished result, then a clean close",
             resultEvent(R"({"output":{"choices":[{"message":{"role":"assistant","content":""},"finish_reason":"null"}]}})"), Down},
            {"an error event whose fields disagree", errorEvent(R"({"code":"InvalidParameter","message":"Model service is overloaded."})"), Down},
            {"an error event that is the caller's", errorEvent(R"({"code":"InvalidParameter","message":"Range of input length should be [1, 30720]"})"),
             OutcomeKind::NonRetryableParamError},
            {"a JSON body, not SSE", kAnswer, Down},
            {"a length stop with no text",
             resultEvent(R"({"output":{"choices":[{"message":{"role":"assistant","content":""},"finish_reason":"length"}]}})"), Ok},
        });
    }
    void streamsThatAreNoAnswerFailBeforeContent() { test::checkStreamRow(DashScopeAdapter()); }
};

QTEST_APPLESS_MAIN(tst_DashScopeAdapter)
#include "tst_DashScopeAdapter.moc"
