#include "common/json/JsonObjectScan.h"
#include "providers/ProviderRegistry.h"
#include "providers/common/ProviderText.h"
#include "providers/common/RetryAfter.h"
#include "providers/openai_compat/OpenAiCompatErrorMap.h"
#include "stream/SseParser.h"

#include "AnswerTable.h"
#include "DialectFixtures.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// Every fixture under tests/fixtures/openai_compat/ through the dialect's ErrorMap and
// StreamTranslator, plus the request translation the adapter owns.

namespace {

const test::DialectFixtures &fixtures()
{
    static const test::DialectFixtures f(QStringLiteral("openai_compat"));
    return f;
}

QByteArray readFixture(const QString &name) { return fixtures().readFixture(name); }
const ProviderAdapter &adapter() { return fixtures().adapter(); }

using test::AnswerRow;
using test::StreamRow;
constexpr OutcomeKind Down = OutcomeKind::ProviderDown;
constexpr OutcomeKind Ok = OutcomeKind::Success;

const QByteArray kGoodAnswer = R"({"id":"c1","object":"chat.completion","created":1,"model":"m",)"
                               R"("choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]})";
const QByteArray kRoleChunk = R"(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",)"
                              R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})"
                              "\n\n";

QByteArray chunk(const QByteArray &delta, const QByteArray &finish = "null")
{
    return R"(data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":)" + delta
           + R"(,"finish_reason":)" + finish + "}]}\n\n";
}

QByteArray choices(const QByteArray &list)
{
    return R"({"id":"c1","object":"chat.completion","created":1,"model":"m","choices":)" + list + "}";
}

} // namespace

namespace {

// `usage` read the way the pass-through path reads it: inside an answer its scan accepted.
TokenUsage scannedUsage(const QByteArray &usage)
{
    const QByteArray answer = "{\"choices\":[],\"usage\":" + usage + "}";
    JsonObjectScan scan;
    if (!scan.scan(answer))
        qFatal("the test's answer is not one the scan accepts: %s", answer.constData());
    return usageFromScannedOpenAiJson(scan.find("usage")->valueIn(answer));
}

} // namespace

class tst_OpenAiCompatAdapter : public QObject {
    Q_OBJECT
private slots:
    void errorFixtures_data() { fixtures().addCaseRows("errors", 20); }
    void errorFixtures()
    {
        QFETCH(QJsonObject, fixture);
        fixtures().errorFixture(fixture);
    }

    void streamFixtures_data() { fixtures().addCaseRows("streams", 8); }
    void streamFixtures()
    {
        QFETCH(QJsonObject, fixture);
        fixtures().streamFixture(fixture);
    }

    void eachChunkLeavesAsSoonAsItsEventIsWhole()
    {
        // Byte by byte: a chunk must come out exactly when the blank line ending its event arrives,
        // not one event later and not at the end of the stream.
        const QByteArray sse = readFixture(QStringLiteral("openai_text_usage.sse"));
        SseParser parser;
        auto translator = adapter().streamTranslator(QJsonObject{{"model", "gpt-4o"}, {"stream", true},
                                                                 {"stream_options", QJsonObject{{"include_usage", true}}}});
        QList<qsizetype> emittedAt, eventEnds;
        for (qsizetype i = 0; i + 1 < sse.size(); ++i)
            if (sse[i] == '\n' && sse[i + 1] == '\n')
                eventEnds << i + 1;
        for (qsizetype i = 0; i < sse.size(); ++i) {
            for (const SseEvent &event : parser.feed(sse.mid(i, 1)))
                if (!translator->onEvent(event).chunks.empty())
                    emittedAt << i;
        }
        QCOMPARE(emittedAt, eventEnds.first(5)); // five chunk events, then [DONE]
    }

    void namedErrorEventIsAnError()
    {
        auto translator = adapter().streamTranslator(QJsonObject{{"model", "m"}, {"stream", true}});
        SseEvent event;
        event.event = "error";
        event.data = R"({"message":"upstream worker crashed"})";
        const StreamStep step = translator->onEvent(event);
        QVERIFY(step.chunks.empty());
        QVERIFY(step.error.has_value());
        QCOMPARE(step.error->kind, OutcomeKind::ProviderDown);
        QCOMPARE(step.error->message, QStringLiteral("upstream worker crashed"));
        QVERIFY(!translator->onEnd().finished); // an errored stream never finishes cleanly
    }

    void oddEventsNeverCrashOrFinish()
    {
        const QByteArrayList payloads = {
            "{}", "[]", "null", "\"text\"", "{\"choices\":\"nope\"}", "{\"choices\":[{\"delta\":null}]}",
            "{\"choices\":[{\"finish_reason\":7}]}", "{\"usage\":[]}", "{\"error\":{}}", "{\"error\":42}",
        };
        for (const QByteArray &payload : payloads) {
            auto translator = adapter().streamTranslator(QJsonObject{{"model", "m"}, {"stream", true}});
            SseEvent event;
            event.data = payload;
            const StreamStep step = translator->onEvent(event);
            QVERIFY2(!step.finished, payload.constData());
            for (const QByteArray &chunk : step.chunks) {
                QJsonObject object;
                QVERIFY(parseJsonObject(chunk, &object));
                QCOMPARE(object.value("model").toString(), QStringLiteral("m"));
            }
            // Without [DONE] or a finish_reason nothing here is a complete answer.
            const StreamStep end = translator->onEnd();
            QVERIFY2(step.error.has_value() || end.error.has_value(), payload.constData());
        }
    }

    void requestUsesUpstreamModelAndAsksForUsage()
    {
        ProviderConfig provider;
        provider.baseUrl = QStringLiteral("https://api.deepseek.com/v1/");
        ChannelConfig channel;
        channel.upstreamModel = QStringLiteral("deepseek-chat");
        const AdapterContext context{&provider, &channel, QStringLiteral("sk-test-1234567890")};
        const QJsonObject tools = QJsonDocument::fromJson(R"({"tools":[{"type":"function","function":{"name":"get_weather",
            "parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],"tool_choice":"auto"})").object();
        QJsonObject body = tools;
        body.insert(QStringLiteral("model"), QStringLiteral("smart"));
        body.insert(QStringLiteral("stream"), true);
        body.insert(QStringLiteral("messages"), QJsonArray{QJsonObject{{"role", "user"}, {"content", "天气？"}}});

        const UpstreamRequest request = adapter().chatRequest(body, context);
        QCOMPARE(request.url.toString(), QStringLiteral("https://api.deepseek.com/v1/chat/completions"));
        QCOMPARE(request.method, QByteArray("POST"));
        QVERIFY(request.stream);
        QCOMPARE(request.headers.value("authorization"), QByteArray("Bearer sk-test-1234567890"));
        QCOMPARE(request.headers.value("content-type"), QByteArray("application/json"));
        QCOMPARE(request.headers.value("accept"), QByteArray("text/event-stream"));
        QJsonObject sent;
        QVERIFY(parseJsonObject(request.body, &sent));
        QCOMPARE(sent.value("model").toString(), QStringLiteral("deepseek-chat"));
        QCOMPARE(sent.value("stream_options").toObject().value("include_usage").toBool(), true);
        QCOMPARE(sent.value("tools"), tools.value("tools")); // tools survive untouched
        QCOMPARE(sent.value("tool_choice").toString(), QStringLiteral("auto"));
        QCOMPARE(sent.value("messages").toArray().at(0).toObject().value("content").toString(), QStringLiteral("天气？"));
    }

    // The client's bytes go upstream with only "model" changed (and the usage request added to a
    // stream), and say exactly what serialising the parsed body says.
    void clientBytesAreForwardedWhenTheyScanCleanly_data()
    {
        QTest::addColumn<QByteArray>("clientBody");
        QTest::addColumn<QString>("upstreamModel");
        QTest::addColumn<QByteArray>("forwarded"); // empty: the parsed body is serialised instead
        const QByteArray plain = "{\"model\":\"smart\", \"messages\":[{\"role\":\"user\",\"content\":\"hi \\u00e9\"}],\"max_tokens\":16}";
        QTest::newRow("model swapped, all else as sent")
            << plain << QStringLiteral("deepseek-chat")
            << QByteArray("{\"model\":\"deepseek-chat\", \"messages\":[{\"role\":\"user\",\"content\":\"hi \\u00e9\"}],\"max_tokens\":16}");
        QTest::newRow("no upstream model: the bytes as sent") << plain << QString() << plain;
        QTest::newRow("stream: usage asked for")
            << QByteArray("{\"model\":\"smart\",\"stream\":true,\"messages\":[]}") << QStringLiteral("m\"1")
            << QByteArray("{\"stream_options\":{\"include_usage\":true},\"model\":\"m\\\"1\",\"stream\":true,\"messages\":[]}");
        QTest::newRow("stream with the client's own stream_options")
            << QByteArray("{\"model\":\"smart\",\"stream\":true,\"stream_options\":{\"x\":1},\"messages\":[]}")
            << QStringLiteral("m") << QByteArray();
        QTest::newRow("repeated key") << QByteArray("{\"model\":\"a\",\"model\":\"smart\",\"messages\":[]}")
                                      << QStringLiteral("m") << QByteArray();
    }

    void clientBytesAreForwardedWhenTheyScanCleanly()
    {
        QFETCH(QByteArray, clientBody);
        QFETCH(QString, upstreamModel);
        QFETCH(QByteArray, forwarded);
        ProviderConfig provider;
        provider.baseUrl = QStringLiteral("http://127.0.0.1:9/v1");
        ChannelConfig channel;
        channel.upstreamModel = upstreamModel;
        QJsonObject body;
        QVERIFY(parseJsonObject(clientBody, &body));
        const UpstreamRequest fromObject = adapter().chatRequest(body, AdapterContext{&provider, &channel, QString(), QByteArray()});
        const UpstreamRequest fromBytes = adapter().chatRequest(body, AdapterContext{&provider, &channel, QString(), clientBody});
        QCOMPARE(fromBytes.body, forwarded.isEmpty() ? fromObject.body : forwarded);
        QJsonObject a, b;
        QVERIFY(parseJsonObject(fromObject.body, &a));
        QVERIFY(parseJsonObject(fromBytes.body, &b));
        QCOMPARE(b, a);
        QCOMPARE(fromBytes.stream, fromObject.stream);
        QCOMPARE(fromBytes.headers.value("accept"), fromObject.headers.value("accept"));

        const auto embeddings = adapter().embeddingsRequest(body, AdapterContext{&provider, &channel, QString(), clientBody});
        QJsonObject e, expected = body;
        if (!upstreamModel.isEmpty())
            expected.insert(QStringLiteral("model"), upstreamModel);
        QVERIFY(parseJsonObject(embeddings->body, &e));
        QCOMPARE(e, expected);
    }

    void localServerWithoutKeyGetsNoAuthorization()
    {
        ProviderConfig provider;
        provider.baseUrl = QStringLiteral("http://127.0.0.1:11434/v1");
        ChannelConfig channel;
        channel.upstreamModel = QStringLiteral("qwen2.5:7b");
        const AdapterContext context{&provider, &channel, QString()};
        const UpstreamRequest request = adapter().chatRequest(QJsonObject{{"model", "local"}, {"messages", QJsonArray()}}, context);
        QVERIFY(!request.headers.contains("authorization"));
        QVERIFY(!request.stream);
        QJsonObject sent;
        QVERIFY(parseJsonObject(request.body, &sent));
        QVERIFY(!sent.contains("stream_options")); // only streams get it
        QCOMPARE(sent.value("model").toString(), QStringLiteral("qwen2.5:7b"));

        const UpstreamRequest probe = adapter().probeRequest(context);
        QCOMPARE(probe.method, QByteArray("GET"));
        QCOMPARE(probe.url.toString(), QStringLiteral("http://127.0.0.1:11434/v1/models"));

        const auto embeddings = adapter().embeddingsRequest(QJsonObject{{"model", "emb"}, {"input", "hi"}}, context);
        QVERIFY(embeddings.has_value());
        QCOMPARE(embeddings->url.toString(), QStringLiteral("http://127.0.0.1:11434/v1/embeddings"));
    }

    void completionBodyGivesUsage()
    {
        TokenUsage usage;
        const QJsonObject response = adapter().chatResponse(readFixture(QStringLiteral("openai_200_completion.json")), &usage);
        QCOMPARE(response.value("object").toString(), QStringLiteral("chat.completion"));
        QCOMPARE(usage.promptTokens, 19);
        QCOMPARE(usage.completionTokens, 10);
        QCOMPARE(usage.totalTokens, 29);
    }

    // The pass-through path reads usage from its bytes; it must agree with Qt's reading, cache
    // counts included, on every shape a provider writes them in.
    void cacheCountsReadFromBytesAgreeWithQt_data()
    {
        QTest::addColumn<QByteArray>("usage");
        QTest::addColumn<int>("cacheRead");
        QTest::addColumn<int>("cacheWrite");
        QTest::newRow("openai") << QByteArray("{\"prompt_tokens\":2150,\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":1792}}")
                                << 1792 << -1;
        QTest::newRow("openrouter writes") << QByteArray("{\"prompt_tokens\":90,\"prompt_tokens_details\":{\"cached_tokens\":0,\"cache_write_tokens\":64}}")
                                           << 0 << 64;
        QTest::newRow("deepseek") << QByteArray("{\"prompt_tokens\":1200,\"prompt_cache_hit_tokens\":1024,\"prompt_cache_miss_tokens\":176}")
                                  << 1024 << -1;
        QTest::newRow("details win over deepseek's name")
            << QByteArray("{\"prompt_tokens\":10,\"prompt_cache_hit_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":4}}") << 4 << -1;
        QTest::newRow("null details") << QByteArray("{\"prompt_tokens\":10,\"prompt_tokens_details\":null}") << -1 << -1;
        QTest::newRow("details without a count") << QByteArray("{\"prompt_tokens\":10,\"prompt_tokens_details\":{\"audio_tokens\":0}}")
                                                 << -1 << -1;
        QTest::newRow("a float count") << QByteArray("{\"prompt_tokens\":10,\"prompt_tokens_details\":{\"cached_tokens\":8.0}}") << 8 << -1;
        QTest::newRow("details not an object") << QByteArray("{\"prompt_tokens\":10,\"prompt_tokens_details\":[1]}") << -1 << -1;
    }

    void cacheCountsReadFromBytesAgreeWithQt()
    {
        QFETCH(QByteArray, usage);
        QFETCH(int, cacheRead);
        QFETCH(int, cacheWrite);
        const TokenUsage fromBytes = usageFromOpenAiJson(usage);
        const TokenUsage fromQt = usageFromOpenAi(QJsonDocument::fromJson(usage).object());
        QCOMPARE(scannedUsage(usage).cacheReadTokens, cacheRead);
        QCOMPARE(scannedUsage(usage).cacheWriteTokens, cacheWrite);
        QCOMPARE(fromBytes.cacheReadTokens, cacheRead);
        QCOMPARE(fromBytes.cacheWriteTokens, cacheWrite);
        QCOMPARE(fromQt.cacheReadTokens, cacheRead);
        QCOMPARE(fromQt.cacheWriteTokens, cacheWrite);
        QCOMPARE(fromBytes.promptTokens, fromQt.promptTokens);
        // The engine's own OpenAI usage says the same again.
        const QJsonObject written = usageToOpenAi(fromBytes);
        QCOMPARE(usageFromOpenAi(written).cacheReadTokens, cacheRead);
        QCOMPARE(usageFromOpenAi(written).cacheWriteTokens, cacheWrite);
        // Written on bytes, it is the same object byte for byte.
        QCOMPARE(usageToOpenAiJson(fromBytes), compactJson(written));
    }

    // Usage read as the value of an answer's "usage" that the answer's scan accepted: whatever is
    // odd in it (repeated or escaped names, counts that are not plain integers) reads as Qt reads it.
    void usageReadFromScannedBytesAgreesWithQt_data()
    {
        QTest::addColumn<QByteArray>("usage");
        QTest::addColumn<int>("cacheRead");
        QTest::addColumn<int>("cacheWrite");
        QTest::newRow("a negative count") << QByteArray("{\"prompt_cache_hit_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":-5}}")
                                          << -5 << -1;
        QTest::newRow("a count named twice") << QByteArray("{\"prompt_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":2,\"cached_tokens\":3}}")
                                             << 3 << -1;
        QTest::newRow("details named twice")
            << QByteArray("{\"prompt_tokens_details\":{\"cached_tokens\":2},\"prompt_tokens_details\":{\"cache_write_tokens\":7}}") << -1 << 7;
        QTest::newRow("an escaped name") << QByteArray("{\"prompt_tokens\":1,\"prompt_tokens_details\":{\"cached\\u005ftokens\":9}}") << 9 << -1;
        QTest::newRow("other names repeat") << QByteArray("{\"x\":1,\"x\":2,\"prompt_tokens\":4,\"prompt_cache_hit_tokens\":2}") << 2 << -1;
        QTest::newRow("a string count") << QByteArray("{\"prompt_tokens\":\"12\",\"prompt_cache_hit_tokens\":2}") << 2 << -1;
        QTest::newRow("whitespace") << QByteArray("{ \"prompt_tokens\" : 5 ,\n \"prompt_tokens_details\" : { \"cached_tokens\" : 4 } }") << 4 << -1;
        QTest::newRow("empty") << QByteArray("{}") << -1 << -1;
        QTest::newRow("every count") << QByteArray("{\"prompt_tokens\":7,\"completion_tokens\":3,\"total_tokens\":11}") << -1 << -1;
        QTest::newRow("a float count") << QByteArray("{\"prompt_tokens\":7.0,\"completion_tokens\":3}") << -1 << -1;
    }

    void usageReadFromScannedBytesAgreesWithQt()
    {
        QFETCH(QByteArray, usage);
        QFETCH(int, cacheRead);
        QFETCH(int, cacheWrite);
        const TokenUsage fromQt = usageFromOpenAi(QJsonDocument::fromJson(usage).object());
        QCOMPARE(fromQt.cacheReadTokens, cacheRead);
        QCOMPARE(fromQt.cacheWriteTokens, cacheWrite);
        for (const TokenUsage &read : {usageFromOpenAiJson(usage), scannedUsage(usage)}) {
            QCOMPARE(read.promptTokens, fromQt.promptTokens);
            QCOMPARE(read.completionTokens, fromQt.completionTokens);
            QCOMPARE(read.totalTokens, fromQt.totalTokens);
            QCOMPARE(read.cacheReadTokens, fromQt.cacheReadTokens);
            QCOMPARE(read.cacheWriteTokens, fromQt.cacheWriteTokens);
        }
    }

    // The usage object written by hand is the one QJsonDocument writes, for every mix of known and
    // unknown counts.
    void usageWrittenOnBytesIsQtsObject()
    {
        for (const int prompt : {-1, 0, 12})
            for (const int completion : {-1, 7})
                for (const int total : {-1, 30})
                    for (const int read : {-1, 0, 2048})
                        for (const int write : {-1, 512}) {
                            TokenUsage usage;
                            usage.promptTokens = prompt;
                            usage.completionTokens = completion;
                            usage.totalTokens = total;
                            usage.cacheReadTokens = read;
                            usage.cacheWriteTokens = write;
                            QCOMPARE(usageToOpenAiJson(usage), compactJson(usageToOpenAi(usage)));
                        }
    }

    void goDurationsAndRetryAfterEdgeCases()
    {
        QCOMPARE(parseGoDuration("6m0s")->count(), 360000);
        QCOMPARE(parseGoDuration("20ms")->count(), 20);
        QCOMPARE(parseGoDuration("1m2.5s")->count(), 62500);
        QCOMPARE(parseGoDuration("2h")->count(), 3600000); // capped like Retry-After
        QVERIFY(!parseGoDuration("soon").has_value());
        QVERIFY(!parseGoDuration("").has_value());
        HttpHeaders huge;
        huge.add("Retry-After", "999999");
        QCOMPARE(retryAfterFromHeaders(huge)->count(), 3600000); // capped at an hour
        HttpHeaders negative;
        negative.add("Retry-After", "-5");
        QCOMPARE(retryAfterFromHeaders(negative)->count(), 0);
        HttpHeaders dateWithoutDate;
        dateWithoutDate.add("Retry-After", "Mon, 30 Nov 2026 04:00:07 GMT");
        QVERIFY(!retryAfterFromHeaders(dateWithoutDate).has_value()); // no Date header: no reference point
    }

    // A 2xx that is not an answer is the provider's failure, never an empty success.
    void malformed2xxIsProviderDown_data()
    {
        test::addAnswerRows({
            {"an event stream", kRoleChunk + chunk(R"({"content":"hi"})") + "data: [DONE]\n\n", Down, false, "text/event-stream"},
            {"an event stream labelled JSON", kRoleChunk + chunk(R"({"content":"hi"})") + "data: [DONE]\n\n", Down},
            {"{}", "{}", Down},
            {"no choices", R"({"id":"c1","object":"chat.completion","created":1,"model":"m","usage":{"prompt_tokens":3}})", Down},
            {"empty choices", choices("[]"), Down},
            {"choices not a list", choices(R"({"0":{"message":{"content":"hi"}}})"), Down},
            {"a choice without a message", choices(R"([{"index":0,"finish_reason":"stop"}])"), Down},
            {"a message that is null", choices(R"([{"index":0,"message":null,"finish_reason":"stop"}])"), Down},
            {"neither content nor a finish reason",
             choices(R"([{"index":0,"message":{"role":"assistant","content":""},"finish_reason":null}])"), Down},
            {"one good choice and one empty",
             choices(R"([{"index":0,"message":{"content":"hi"},"finish_reason":"stop"},{"index":1,"message":{"content":null}}])"), Down},
            {"not JSON", "<html><body>Welcome to nginx!</body></html>", Down, false, "text/html"},
            {"truncated", kGoodAnswer.left(kGoodAnswer.size() / 2), Down},
            {"a JSON list", "[" + kGoodAnswer + "]", Down},
            {"empty body", "", Down},
            {"embeddings without data", R"({"object":"list","model":"e"})", Down, true},
            {"embeddings with an empty data list", R"({"object":"list","data":[],"model":"e"})", Down, true},
            {"a chat answer to an embeddings request", kGoodAnswer, Down, true},
        });
    }
    void malformed2xxIsProviderDown() { test::checkAnswerRow(adapter()); }

    void minimalAnswersSucceed_data()
    {
        test::addAnswerRows({
            {"a whole answer", kGoodAnswer, Ok},
            {"only a message with content", R"({"choices":[{"message":{"content":"hi"}}]})", Ok},
            {"a length stop with empty content",
             choices(R"([{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"length"}])"), Ok},
            {"a tool call and no content",
             choices(R"([{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",)"
                     R"("function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}])"),
             Ok},
            {"a tool call without a finish reason",
             choices(R"([{"index":0,"message":{"content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f"}}]}}])"), Ok},
            {"a refusal", choices(R"([{"index":0,"message":{"role":"assistant","content":null,"refusal":"No."},"finish_reason":"stop"}])"), Ok},
            {"content as parts", choices(R"([{"index":0,"message":{"content":[{"type":"text","text":"hi"}]}}])"), Ok},
            {"an escaped key (Qt's parser decides)", "{\"ch\\u006fices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}", Ok},
            {"embeddings", R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]}],"model":"e"})", Ok, true},
        });
    }
    void minimalAnswersSucceed() { test::checkAnswerRow(adapter()); }

    // An error inside a 200 has no status: its type, code and message are weighed together.
    void errorsInA200AreJudgedByAllTheirFields_data()
    {
        test::addAnswerRows({
            {"type server_overloaded, code invalid_request_error",
             R"({"error":{"message":"The server is overloaded.","type":"server_overloaded","param":null,"code":"invalid_request_error"}})", Down},
            {"invalid_request_error saying the server is busy",
             R"({"error":{"message":"The server is busy, try again.","type":"invalid_request_error","code":null}})", Down},
            {"invalid_request_error and nothing else", R"({"error":{"message":"Bad value.","type":"invalid_request_error"}})",
             OutcomeKind::NonRetryableParamError},
            {"context_length_exceeded",
             R"({"error":{"message":"The maximum context length of this model is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}})",
             OutcomeKind::NonRetryableParamError},
            {"invalid_api_key", R"({"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}})",
             OutcomeKind::AuthError},
            {"a rate limit the message names", R"({"error":{"message":"Rate limit reached for requests","type":"invalid_request_error"}})",
             OutcomeKind::RetryableRateLimit},
            {"insufficient_quota", R"({"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","code":"insufficient_quota"}})",
             OutcomeKind::AuthError},
            {"an unknown code", R"({"error":{"message":"Something went wrong.","code":"E4711"}})", Down},
            {"a bare message", R"({"error":"model is loading"})", Down},
            {"vLLM's object error", R"({"object":"error","message":"Invalid value for n","type":"BadRequestError","code":400})",
             OutcomeKind::NonRetryableParamError},
        });
    }
    void errorsInA200AreJudgedByAllTheirFields() { test::checkAnswerRow(adapter()); }

    void streamsThatAreNoAnswerFailBeforeContent_data()
    {
        test::addStreamRows({
            {"the role, then [DONE]", kRoleChunk + "data: [DONE]\n\n", Down},
            {"the role, then a clean close", kRoleChunk, Down},
            {"nothing at all", "", Down},
            {"a JSON body, not SSE", kGoodAnswer, Down},
            {"an HTML page, not SSE", "<html><body>Bad gateway</body></html>", Down},
            {"a first event whose fields disagree",
             R"(data: {"error":{"message":"The server is overloaded.","type":"server_overloaded","code":"invalid_request_error"}})"
             "\n\n",
             Down},
            {"the role, then an error whose fields disagree",
             kRoleChunk + R"(data: {"error":{"message":"Overloaded","type":"server_overloaded","code":"invalid_request_error"}})" "\n\n", Down},
            {"a first event that is the caller's",
             R"(data: {"error":{"message":"maximum context length is 8192 tokens","type":"invalid_request_error","code":"context_length_exceeded"}})"
             "\n\n",
             OutcomeKind::NonRetryableParamError},
            {"a length stop with no text", kRoleChunk + chunk("{}", R"("length")") + "data: [DONE]\n\n", Ok},
            {"a tool call", kRoleChunk + chunk(R"({"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]})")
                                + chunk("{}", R"("tool_calls")") + "data: [DONE]\n\n",
             Ok},
            {"content, then [DONE] without a finish reason", kRoleChunk + chunk(R"({"content":"hi"})") + "data: [DONE]\n\n", Ok},
        });
    }
    void streamsThatAreNoAnswerFailBeforeContent() { test::checkStreamRow(adapter()); }

    void aRoleChunkIsAPreambleAndContentIsNot()
    {
        // The proxy holds the role chunk until content comes, so a failure before any can fail over.
        auto translator = adapter().streamTranslator(QJsonObject{{"model", "m"}, {"stream", true}});
        SseParser parser;
        const std::vector<SseEvent> role = parser.feed(kRoleChunk);
        QCOMPARE(role.size(), std::size_t(1));
        const StreamStep first = translator->onEvent(role.front());
        QCOMPARE(first.chunks.size(), std::size_t(1));
        QVERIFY(first.preamble);
        const StreamStep second = translator->onEvent(parser.feed(chunk(R"({"content":"hi"})")).front());
        QCOMPARE(second.chunks.size(), std::size_t(1));
        QVERIFY(!second.preamble);
    }

    void keysEchoedByProvidersAreMasked()
    {
        const QString cleaned = cleanProviderMessage(QStringLiteral("Incorrect API key provided: sk-abcdefghijklmnop1234. Bearer abcdefghijklmnopqrstuvwxyz"));
        QVERIFY(!cleaned.contains(QStringLiteral("abcdefghijklmnop1234")));
        QVERIFY(!cleaned.contains(QStringLiteral("abcdefghijklmnopqrstuvwxyz")));
        QVERIFY(cleaned.contains(QStringLiteral("Incorrect API key provided")));
        QVERIFY(cleanProviderMessage(QString(2000, QLatin1Char('x'))).size() <= 500);
    }
};

QTEST_APPLESS_MAIN(tst_OpenAiCompatAdapter)
#include "tst_OpenAiCompatAdapter.moc"
