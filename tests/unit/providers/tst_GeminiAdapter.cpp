// GeminiAdapter: OpenAI chat.completions → generateContent requests (URL, auth header, body),
// responses and embeddings back to OpenAI shapes.
// (JSON in raw strings below writes quotes as \u0022 and avoids "//": moc 6.4 misreads both inside raw string literals.)
#include "providers/gemini/GeminiAdapter.h"
#include "providers/gemini/GeminiErrorMap.h"

#include "AnswerTable.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

namespace {

const QString Key = QStringLiteral("AIzaSyFAKE-key-for-tests-0123456789");

struct Context {
    ProviderConfig provider;
    ChannelConfig channel;
    AdapterContext ctx;
    explicit Context(QString baseUrl = QString())
    {
        provider.dialect = QStringLiteral("gemini");
        provider.baseUrl = std::move(baseUrl);
        channel.upstreamModel = QStringLiteral("gemini-2.0-flash");
        ctx.provider = &provider;
        ctx.channel = &channel;
        ctx.apiKey = Key;
    }
};

QJsonObject parse(const QByteArray &bytes) { return QJsonDocument::fromJson(bytes).object(); }

QJsonObject conversation()
{
    return parse(R"({
      "model": "logical",
      "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"},
                                      {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]},
        {"role": "assistant", "content": null,
         "tool_calls": [{"id": "call_7", "type": "function", "function": {"name": "get_weather", "arguments": "{\u0022city\u0022:\u0022Paris\u0022}"}},
                        {"id": "call_8", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_7", "content": "{\u0022temp\u0022: 21}"},
        {"role": "tool", "tool_call_id": "call_8", "content": "noon"},
        {"role": "user", "content": "Thanks"}
      ],
      "temperature": 0.3, "top_p": 0.9, "n": 3, "max_tokens": 256, "stop": "END", "seed": 7,
      "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather by city",
                 "parameters": {"$schema": "urn:example:draft-07-schema", "type": "object",
                                "properties": {"city": {"type": "string"}}, "required": ["city"],
                                "additionalProperties": false}}}],
      "tool_choice": "required"
    })");
}

constexpr OutcomeKind Down = OutcomeKind::ProviderDown;
constexpr OutcomeKind Ok = OutcomeKind::Success;

const QByteArray kAnswer = R"({"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP","index":0}],)"
                           R"("usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4},"modelVersion":"g"})";

QByteArray sseEvent(const QByteArray &data)
{
    return "data: " + data + "\r\n\r\n";
}

} // namespace

class tst_GeminiAdapter : public QObject {
    Q_OBJECT
private slots:
    void identity()
    {
        const GeminiAdapter a;
        QCOMPARE(a.dialect(), QStringLiteral("gemini"));
        QVERIFY(a.defaultBaseUrl().startsWith(QLatin1String("https://")));
    }

    void nonStreamUrlAndKeyHeader()
    {
        Context c;
        const UpstreamRequest r = GeminiAdapter().chatRequest(conversation(), c.ctx);
        QCOMPARE(r.method, QByteArray("POST"));
        QVERIFY(!r.stream);
        QCOMPARE(r.url.toString(), QStringLiteral("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent"));
        QCOMPARE(r.headers.value("x-goog-api-key"), Key.toUtf8());
        QCOMPARE(r.headers.value("content-type"), QByteArray("application/json"));
        // The key goes in the header only: never in the URL, where logs and proxies would see it.
        QVERIFY(!r.url.toString().contains(Key));
        QVERIFY(!r.body.contains(Key.toUtf8()));
    }

    void streamUsesAltSse()
    {
        Context c;
        QJsonObject body = conversation();
        body.insert(QStringLiteral("stream"), true);
        const UpstreamRequest r = GeminiAdapter().chatRequest(body, c.ctx);
        QVERIFY(r.stream);
        QCOMPARE(r.url.toString(),
                 QStringLiteral("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"));
    }

    void baseUrlVariants_data()
    {
        QTest::addColumn<QString>("base");
        QTest::addColumn<QString>("expected");
        const QString tail = QStringLiteral("/models/gemini-2.0-flash:generateContent");
        QTest::newRow("with version") << "https://g.example/v1beta" << "https://g.example/v1beta" + tail;
        QTest::newRow("trailing slash") << "https://g.example/v1beta/" << "https://g.example/v1beta" + tail;
        QTest::newRow("bare host") << "http://127.0.0.1:9000" << "http://127.0.0.1:9000/v1beta" + tail;
        QTest::newRow("v1") << "https://g.example/v1" << "https://g.example/v1" + tail;
    }
    void baseUrlVariants()
    {
        QFETCH(QString, base);
        QFETCH(QString, expected);
        Context c(base);
        QCOMPARE(GeminiAdapter().chatRequest(conversation(), c.ctx).url.toString(), expected);
    }

    void bodyTranslation()
    {
        const QJsonObject g = GeminiAdapter::translateBody(conversation());
        // system → systemInstruction, never a turn
        QCOMPARE(g.value("systemInstruction").toObject().value("parts").toArray().first().toObject().value("text").toString(),
                 QStringLiteral("Be brief."));
        const QJsonArray contents = g.value("contents").toArray();
        // Gemini wants alternating turns: both tool results and the next user text form one user turn.
        QCOMPARE(contents.size(), 3);
        QCOMPARE(contents.at(0).toObject().value("role").toString(), QStringLiteral("user"));
        const QJsonArray userParts = contents.at(0).toObject().value("parts").toArray();
        QCOMPARE(userParts.size(), 2);
        QCOMPARE(userParts.at(1).toObject().value("inlineData").toObject().value("mimeType").toString(), QStringLiteral("image/png"));
        QCOMPARE(userParts.at(1).toObject().value("inlineData").toObject().value("data").toString(), QStringLiteral("iVBORw0KGgo="));

        const QJsonObject model = contents.at(1).toObject();
        QCOMPARE(model.value("role").toString(), QStringLiteral("model"));
        const QJsonObject call = model.value("parts").toArray().first().toObject().value("functionCall").toObject();
        QCOMPARE(call.value("name").toString(), QStringLiteral("get_weather"));
        QCOMPARE(call.value("args").toObject().value("city").toString(), QStringLiteral("Paris"));

        // Both tool results land in one user turn, named after the calls they answer.
        const QJsonArray results = contents.at(2).toObject().value("parts").toArray();
        QCOMPARE(contents.at(2).toObject().value("role").toString(), QStringLiteral("user"));
        QCOMPARE(results.size(), 3);
        const QJsonObject r0 = results.at(0).toObject().value("functionResponse").toObject();
        QCOMPARE(r0.value("name").toString(), QStringLiteral("get_weather"));
        QCOMPARE(r0.value("response").toObject().value("temp").toInt(), 21);
        const QJsonObject r1 = results.at(1).toObject().value("functionResponse").toObject();
        QCOMPARE(r1.value("name").toString(), QStringLiteral("get_time"));
        QCOMPARE(r1.value("response").toObject().value("content").toString(), QStringLiteral("noon"));
        QCOMPARE(results.at(2).toObject().value("text").toString(), QStringLiteral("Thanks"));

        const QJsonObject config = g.value("generationConfig").toObject();
        QCOMPARE(config.value("temperature").toDouble(), 0.3);
        QCOMPARE(config.value("topP").toDouble(), 0.9);
        QCOMPARE(config.value("maxOutputTokens").toInt(), 256);
        QCOMPARE(config.value("seed").toInt(), 7);
        QVERIFY(!config.contains("candidateCount")); // only candidate 0 is translated: n > 1 would be paid for and lost
        QCOMPARE(config.value("stopSequences").toArray(), QJsonArray{QStringLiteral("END")});

        const QJsonObject decl = g.value("tools").toArray().first().toObject().value("functionDeclarations").toArray().first().toObject();
        QCOMPARE(decl.value("name").toString(), QStringLiteral("get_weather"));
        const QJsonObject params = decl.value("parameters").toObject();
        QVERIFY(!params.contains("$schema"));
        QVERIFY(!params.contains("additionalProperties"));
        QCOMPARE(params.value("required").toArray(), QJsonArray{QStringLiteral("city")});
        QCOMPARE(g.value("toolConfig").toObject().value("functionCallingConfig").toObject().value("mode").toString(), QStringLiteral("ANY"));
    }

    void toolChoiceByName()
    {
        QJsonObject body = conversation();
        body.insert("tool_choice", parse(R"({"type":"function","function":{"name":"get_weather"}})"));
        const QJsonObject calling = GeminiAdapter::translateBody(body).value("toolConfig").toObject().value("functionCallingConfig").toObject();
        QCOMPARE(calling.value("mode").toString(), QStringLiteral("ANY"));
        QCOMPARE(calling.value("allowedFunctionNames").toArray(), QJsonArray{QStringLiteral("get_weather")});
    }

    void probeIsAnAuthenticatedModelList()
    {
        Context c;
        const UpstreamRequest r = GeminiAdapter().probeRequest(c.ctx);
        QCOMPARE(r.method, QByteArray("GET"));
        QCOMPARE(r.url.path(), QStringLiteral("/v1beta/models"));
        QCOMPARE(r.headers.value("x-goog-api-key"), Key.toUtf8());
        QVERIFY(r.body.isEmpty());
    }

    void embeddingsRoundTrip()
    {
        Context c;
        c.channel.upstreamModel = QStringLiteral("text-embedding-004");
        const auto r = GeminiAdapter().embeddingsRequest(parse(R"({"model":"e","input":["a","b"],"dimensions":64})"), c.ctx);
        QVERIFY(r.has_value());
        QVERIFY(r->url.toString().endsWith(QLatin1String("/v1beta/models/text-embedding-004:batchEmbedContents")));
        const QJsonArray requests = parse(r->body).value("requests").toArray();
        QCOMPARE(requests.size(), 2);
        QCOMPARE(requests.at(1).toObject().value("content").toObject().value("parts").toArray().first().toObject().value("text").toString(),
                 QStringLiteral("b"));
        QCOMPARE(requests.at(0).toObject().value("outputDimensionality").toInt(), 64);

        TokenUsage usage;
        const QJsonObject out = GeminiAdapter().embeddingsResponse(R"({"embeddings":[{"values":[0.1,0.2]},{"values":[0.3,0.4]}]})", &usage);
        QCOMPARE(out.value("object").toString(), QStringLiteral("list"));
        const QJsonArray data = out.value("data").toArray();
        QCOMPARE(data.size(), 2);
        QCOMPARE(data.at(1).toObject().value("index").toInt(), 1);
        QCOMPARE(data.at(1).toObject().value("embedding").toArray().at(1).toDouble(), 0.4);
    }

    void retryDelayParsing()
    {
        using std::chrono::milliseconds;
        QCOMPARE(GeminiErrorMap::parseDuration(QStringLiteral("30s")), std::optional<milliseconds>(milliseconds(30000)));
        QCOMPARE(GeminiErrorMap::parseDuration(QStringLiteral("1.5s")), std::optional<milliseconds>(milliseconds(1500)));
        QVERIFY(!GeminiErrorMap::parseDuration(QStringLiteral("soon")).has_value());
        QVERIFY(!GeminiErrorMap::parseDuration(QStringLiteral("-3s")).has_value());
    }

    // A 2xx that is not a generateContent answer is the provider's failure, never an empty success
    // (nor, without candidates, a blocked prompt that was not).
    void malformed2xxIsProviderDown_data()
    {
        test::addAnswerRows({
            {"{}", "{}", Down},
            {"no candidates, no blocked prompt", R"({"usageMetadata":{"promptTokenCount":3},"modelVersion":"g"})", Down},
            {"empty candidates", R"({"candidates":[],"modelVersion":"g"})", Down},
            {"a candidate with nothing in it", R"({"candidates":[{"index":0}]})", Down},
            {"no parts and an unspecified finish", R"({"candidates":[{"content":{"parts":[]},"finishReason":"FINISH_REASON_UNSPECIFIED"}]})", Down},
            {"an event stream", sseEvent(kAnswer), Down, false, "text/event-stream"},
            {"not JSON", "<html><body>Bad gateway</body></html>", Down, false, "text/html"},
            {"truncated", kAnswer.left(kAnswer.size() / 2), Down},
            {"embeddings without embeddings", R"({"usageMetadata":{}})", Down, true},
            {"an empty embeddings list", R"({"embeddings":[]})", Down, true},
        });
    }
    void malformed2xxIsProviderDown() { test::checkAnswerRow(GeminiAdapter()); }

    void minimalAnswersSucceed_data()
    {
        test::addAnswerRows({
            {"a whole answer", kAnswer, Ok},
            {"only a candidate with a part", R"({"candidates":[{"content":{"parts":[{"text":"hi"}]}}]})", Ok},
            {"a blocked prompt", R"({"promptFeedback":{"blockReason":"SAFETY"}})", Ok},
            {"max tokens, no parts", R"({"candidates":[{"finishReason":"MAX_TOKENS","index":0}]})", Ok},
            {"a function call", R"({"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}}}]},"finishReason":"STOP"}]})", Ok},
            {"in a list", "[" + kAnswer + "]", Ok},
            {"embeddings", R"({"embeddings":[{"values":[0.1,0.2]}]})", Ok, true},
        });
    }
    void minimalAnswersSucceed() { test::checkAnswerRow(GeminiAdapter()); }

    void errorsInA200AreJudgedByAllTheirFields_data()
    {
        test::addAnswerRows({
            {"INVALID_ARGUMENT with code 503, overloaded",
             R"({"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"INVALID_ARGUMENT"}})", Down},
            {"INVALID_ARGUMENT, too many tokens",
             R"({"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}})",
             OutcomeKind::NonRetryableParamError},
            {"INVALID_ARGUMENT, a bad key",
             R"({"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}})",
             OutcomeKind::AuthError},
            {"RESOURCE_EXHAUSTED", R"({"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}})",
             OutcomeKind::RetryableRateLimit},
            {"INTERNAL", R"({"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}})", Down},
            {"no status, no code", R"({"error":{"message":"Something happened."}})", Down},
        });
    }
    void errorsInA200AreJudgedByAllTheirFields() { test::checkAnswerRow(GeminiAdapter()); }

    void streamsThatAreNoAnswerFailBeforeContent_data()
    {
        test::addStreamRows({
            {"a candidate without parts, then a clean close", sseEvent(R"({"candidates":[{"content":{"parts":[],"role":"model"},"index":0}]})"), Down},
            {"usage only", sseEvent(R"({"usageMetadata":{"promptTokenCount":3}})"), Down},
            {"a first event whose fields disagree",
             sseEvent(R"({"error":{"code":503,"message":"The model is overloaded.","status":"INVALID_ARGUMENT"}})"), Down},
            {"a first event that is the caller's",
             sseEvent(R"({"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}})"),
             OutcomeKind::NonRetryableParamError},
            {"a JSON body, not SSE", kAnswer, Down},
            {"max tokens, no text", sseEvent(R"({"candidates":[{"finishReason":"MAX_TOKENS","index":0}]})"), Ok},
        });
    }
    void streamsThatAreNoAnswerFailBeforeContent() { test::checkStreamRow(GeminiAdapter()); }
};

QTEST_APPLESS_MAIN(tst_GeminiAdapter)
#include "tst_GeminiAdapter.moc"
