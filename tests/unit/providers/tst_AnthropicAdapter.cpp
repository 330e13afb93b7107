#include "providers/ProviderRegistry.h"
#include "providers/anthropic/AnthropicAdapter.h"
#include "providers/common/ProviderText.h"
#include "stream/SseParser.h"

#include "AnswerTable.h"
#include "DialectFixtures.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// Every fixture under tests/fixtures/anthropic/ through the dialect's ErrorMap and
// StreamTranslator, plus the request translation the adapter owns.

namespace {

const test::DialectFixtures &fixtures()
{
    static const test::DialectFixtures f(QStringLiteral("anthropic"));
    return f;
}

QByteArray readFixture(const QString &name) { return fixtures().readFixture(name); }
const ProviderAdapter &adapter() { return fixtures().adapter(); }

constexpr OutcomeKind Down = OutcomeKind::ProviderDown;
constexpr OutcomeKind Ok = OutcomeKind::Success;

const QByteArray kMessage = R"({"id":"msg_1","type":"message","role":"assistant","model":"claude",)"
                            R"("content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","stop_sequence":null})";
const QByteArray kMessageStart = "event: message_start\n"
                                 R"(data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",)"
                                 R"("content":[],"model":"claude","stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}})"
                                 "\n\n";
const QByteArray kMessageStop = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

QByteArray sseEvent(const char *name, const QByteArray &data)
{
    return QByteArray("event: ") + name + "\ndata: " + data + "\n\n";
}

QByteArray message(const QByteArray &members)
{
    return R"({"id":"msg_1","type":"message","role":"assistant","model":"claude",)" + members + "}";
}

} // namespace

class tst_AnthropicAdapter : public QObject {
    Q_OBJECT
private slots:
    void errorFixtures_data() { fixtures().addCaseRows("errors", 12); }
    void errorFixtures()
    {
        QFETCH(QJsonObject, fixture);
        fixtures().errorFixture(fixture);
    }

    void streamFixtures_data() { fixtures().addCaseRows("streams", 6); }
    void streamFixtures()
    {
        QFETCH(QJsonObject, fixture);
        fixtures().streamFixture(fixture);
    }

    void requestTranslation()
    {
        // An OpenAI request using everything the translation must carry over.
        const QJsonObject in = QJsonDocument::fromJson(readFixture(QStringLiteral("openai_request_tools.json"))).object();
        QVERIFY(!in.isEmpty());
        const QJsonObject out = AnthropicAdapter::translateRequest(in, QStringLiteral("claude-sonnet-4-20250514"));

        QCOMPARE(out.value("model").toString(), QStringLiteral("claude-sonnet-4-20250514"));
        QCOMPARE(out.value("system").toString(), QStringLiteral("You are terse.\n\nAnswer in French."));
        QCOMPARE(out.value("max_tokens").toInt(), 1000);
        QCOMPARE(out.value("temperature").toDouble(), 1.0); // OpenAI's 0–2 range clamped to Anthropic's 0–1
        QCOMPARE(out.value("top_p").toDouble(), 0.9);
        QCOMPARE(out.value("stop_sequences").toArray(), QJsonArray{"END"});
        QCOMPARE(out.value("metadata").toObject().value("user_id").toString(), QStringLiteral("u-42"));
        QVERIFY(out.value("stream").toBool());

        const QJsonArray tools = out.value("tools").toArray();
        QCOMPARE(tools.size(), 2);
        QCOMPARE(tools.at(0).toObject().value("name").toString(), QStringLiteral("get_weather"));
        QCOMPARE(tools.at(0).toObject().value("description").toString(), QStringLiteral("Weather now"));
        QCOMPARE(tools.at(0).toObject().value("input_schema").toObject().value("required").toArray(), QJsonArray{"city"});
        QCOMPARE(tools.at(1).toObject().value("input_schema").toObject().value("type").toString(), QStringLiteral("object"));
        const QJsonObject choice = out.value("tool_choice").toObject();
        QCOMPARE(choice.value("type").toString(), QStringLiteral("tool"));
        QCOMPARE(choice.value("name").toString(), QStringLiteral("get_weather"));
        QCOMPARE(choice.value("disable_parallel_tool_use").toBool(), true);

        // Turns alternate: user, assistant (tool_use ×2), user (tool_result ×2 + "Merci").
        const QJsonArray messages = out.value("messages").toArray();
        QCOMPARE(messages.size(), 3);
        const QJsonArray user = messages.at(0).toObject().value("content").toArray();
        QCOMPARE(messages.at(0).toObject().value("role").toString(), QStringLiteral("user"));
        QCOMPARE(user.at(0).toObject().value("text").toString(), QStringLiteral("Météo à Paris ?"));
        const QJsonObject source = user.at(1).toObject().value("source").toObject();
        QCOMPARE(source.value("type").toString(), QStringLiteral("base64"));
        QCOMPARE(source.value("media_type").toString(), QStringLiteral("image/png"));
        QCOMPARE(source.value("data").toString(), QStringLiteral("iVBORw0KGgo="));
        const QJsonArray assistant = messages.at(1).toObject().value("content").toArray();
        QCOMPARE(messages.at(1).toObject().value("role").toString(), QStringLiteral("assistant"));
        QCOMPARE(assistant.size(), 2);
        QCOMPARE(assistant.at(0).toObject().value("type").toString(), QStringLiteral("tool_use"));
        QCOMPARE(assistant.at(0).toObject().value("id").toString(), QStringLiteral("call_1"));
        QCOMPARE(assistant.at(0).toObject().value("input").toObject().value("city").toString(), QStringLiteral("Paris"));
        const QJsonArray results = messages.at(2).toObject().value("content").toArray();
        QCOMPARE(messages.at(2).toObject().value("role").toString(), QStringLiteral("user"));
        QCOMPARE(results.size(), 3);
        QCOMPARE(results.at(0).toObject().value("type").toString(), QStringLiteral("tool_result"));
        QCOMPARE(results.at(0).toObject().value("tool_use_id").toString(), QStringLiteral("call_1"));
        QCOMPARE(results.at(0).toObject().value("content").toString(), QStringLiteral("18°C"));
        QCOMPARE(results.at(1).toObject().value("tool_use_id").toString(), QStringLiteral("call_2"));
        QCOMPARE(results.at(2).toObject().value("text").toString(), QStringLiteral("Merci"));
    }

    void defaultsAndToolChoiceWords()
    {
        const QJsonObject plain = AnthropicAdapter::translateRequest(
            QJsonObject{{"model", "claude"}, {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hi"}}}}}, QString());
        QCOMPARE(plain.value("max_tokens").toInt(), AnthropicAdapter::DefaultMaxTokens); // required upstream
        QCOMPARE(plain.value("model").toString(), QStringLiteral("claude"));
        QVERIFY(!plain.contains("system"));
        QVERIFY(!plain.contains("stream"));
        QVERIFY(!plain.contains("tools"));
        QCOMPARE(plain.value("messages").toArray().at(0).toObject().value("content").toArray().at(0).toObject().value("text").toString(),
                 QStringLiteral("hi"));

        const QJsonArray tools{QJsonObject{{"type", "function"}, {"function", QJsonObject{{"name", "f"}}}}};
        auto choiceFor = [&](const QJsonValue &choice) {
            QJsonObject in{{"messages", QJsonArray()}, {"tools", tools}, {"max_tokens", 5}};
            if (!choice.isUndefined())
                in.insert("tool_choice", choice);
            return AnthropicAdapter::translateRequest(in, QStringLiteral("m"));
        };
        QCOMPARE(choiceFor("required").value("tool_choice").toObject().value("type").toString(), QStringLiteral("any"));
        QCOMPARE(choiceFor("auto").value("tool_choice").toObject().value("type").toString(), QStringLiteral("auto"));
        QCOMPARE(choiceFor("none").value("tool_choice").toObject().value("type").toString(), QStringLiteral("none"));
        QVERIFY(!choiceFor(QJsonValue::Undefined).contains("tool_choice"));
        QCOMPARE(choiceFor(QJsonValue::Undefined).value("max_tokens").toInt(), 5);
    }

    void requestHeadersAndEndpoints()
    {
        ProviderConfig provider;
        provider.baseUrl = QStringLiteral("https://api.anthropic.com/v1");
        ChannelConfig channel;
        channel.upstreamModel = QStringLiteral("claude-sonnet-4-20250514");
        const AdapterContext context{&provider, &channel, QStringLiteral("sk-ant-api03-secret")};
        const UpstreamRequest request = adapter().chatRequest(
            QJsonObject{{"model", "claude"}, {"stream", true}, {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hi"}}}}}, context);
        QCOMPARE(request.url.toString(), QStringLiteral("https://api.anthropic.com/v1/messages"));
        QCOMPARE(request.headers.value("x-api-key"), QByteArray("sk-ant-api03-secret"));
        QCOMPARE(request.headers.value("anthropic-version"), QByteArray("2023-06-01"));
        QVERIFY(!request.headers.contains("authorization"));
        QVERIFY(request.stream);
        QJsonObject sent;
        QVERIFY(parseJsonObject(request.body, &sent));
        QCOMPARE(sent.value("model").toString(), QStringLiteral("claude-sonnet-4-20250514"));

        QVERIFY(!adapter().embeddingsRequest(QJsonObject(), context).has_value());
        const UpstreamRequest probe = adapter().probeRequest(context);
        QCOMPARE(probe.method, QByteArray("GET"));
        QCOMPARE(probe.url.toString(), QStringLiteral("https://api.anthropic.com/v1/models"));
        QCOMPARE(probe.headers.value("anthropic-version"), QByteArray("2023-06-01"));
    }

    void messageBecomesChatCompletion()
    {
        TokenUsage usage;
        const QJsonObject out = adapter().chatResponse(readFixture(QStringLiteral("message_200.json")), &usage);
        QCOMPARE(out.value("object").toString(), QStringLiteral("chat.completion"));
        const QJsonObject choice = out.value("choices").toArray().at(0).toObject();
        QCOMPARE(choice.value("finish_reason").toString(), QStringLiteral("tool_calls"));
        const QJsonObject message = choice.value("message").toObject();
        QCOMPARE(message.value("role").toString(), QStringLiteral("assistant"));
        QCOMPARE(message.value("content").toString(), QStringLiteral("I'll check the weather in San Francisco for you."));
        const QJsonObject call = message.value("tool_calls").toArray().at(0).toObject();
        QCOMPARE(call.value("id").toString(), QStringLiteral("toolu_01A09q90qw90lq917835lq9"));
        QCOMPARE(call.value("type").toString(), QStringLiteral("function"));
        QCOMPARE(call.value("function").toObject().value("name").toString(), QStringLiteral("get_weather"));
        QJsonObject arguments;
        QVERIFY(parseJsonObject(call.value("function").toObject().value("arguments").toString().toUtf8(), &arguments));
        QCOMPARE(arguments.value("unit").toString(), QStringLiteral("celsius"));
        // Cached input counts as prompt tokens, as OpenAI counts it.
        QCOMPARE(usage.promptTokens, 484);
        QCOMPARE(usage.completionTokens, 92);
        QCOMPARE(out.value("usage").toObject().value("total_tokens").toInt(), 576);
    }

    // An answer that goes to an Anthropic client as it came is read on its bytes for its usage;
    // what is not a clean message is classified as classify() does.
    void passedThroughAnswerGivesItsVerdictAndUsage()
    {
        HttpHeaders json;
        json.set("Content-Type", "application/json");
        const QByteArray message = readFixture(QStringLiteral("message_200.json"));
        TokenUsage quick, full;
        QVERIFY(adapter().classifyNativeAnswer(u"anthropic_messages", 200, json, message, nullptr, &quick).isSuccess());
        adapter().chatResponse(message, &full);
        QCOMPARE(quick.promptTokens, full.promptTokens);
        QCOMPARE(quick.completionTokens, full.completionTokens);
        QCOMPARE(quick.cacheReadTokens, full.cacheReadTokens);
        QCOMPARE(quick.cacheWriteTokens, full.cacheWriteTokens);
        QCOMPARE(quick.totalTokens, full.totalTokens);

        const QByteArray spaced = " {\"usage\":{\"input_tokens\":3,\"output_tokens\":2,\"cache_read_input_tokens\":10},"
                                  "\"content\":[],\"type\":\"message\"} ";
        QVERIFY(adapter().classifyNativeAnswer(u"anthropic_messages", 200, json, spaced, nullptr, &quick).isSuccess());
        QCOMPARE(quick.promptTokens, 13);
        QCOMPARE(quick.cacheReadTokens, 10);
        QCOMPARE(quick.completionTokens, 2);

        const QByteArray overloaded = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}";
        for (const int status : {200, 529})
            QCOMPARE(adapter().classifyNativeAnswer(u"anthropic_messages", status, json, overloaded, nullptr, &quick).kind, OutcomeKind::ProviderDown);
        const QByteArray invalid = "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"max_tokens: Field required\"}}";
        QCOMPARE(adapter().classifyNativeAnswer(u"anthropic_messages", 400, json, invalid, nullptr, &quick).kind, OutcomeKind::NonRetryableParamError);
    }

    void chunksHaveTheOpenAiShape()
    {
        const test::DialectFixtures::StreamResult result = fixtures().runStream(QJsonObject{{"model", "claude"}, {"stream", true}}, {readFixture(QStringLiteral("text.sse"))});
        QVERIFY(result.chunks.size() >= 2);
        QJsonObject first;
        QVERIFY(parseJsonObject(result.chunks.first(), &first));
        QCOMPARE(first.value("id").toString(), QStringLiteral("msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY"));
        QCOMPARE(first.value("created").toInteger(), 1790000000); // stamped by the caller via setCreated
        const QJsonObject choice = first.value("choices").toArray().at(0).toObject();
        QCOMPARE(choice.value("index").toInt(), 0);
        QVERIFY(choice.value("finish_reason").isNull()); // present and null until the end, as OpenAI sends it
        QCOMPARE(choice.value("delta").toObject().value("role").toString(), QStringLiteral("assistant"));
        QJsonObject last;
        QVERIFY(parseJsonObject(result.chunks.last(), &last));
        QCOMPARE(last.value("choices").toArray().at(0).toObject().value("finish_reason").toString(), QStringLiteral("stop"));
    }

    void oddEventsAreIgnoredOrRejectedNeverTrusted()
    {
        // Shapes a broken or newer upstream could send. None may crash or invent content; each is
        // either ignored or an error.
        const QByteArrayList payloads = {
            "{}", "[]", "null", "\"text\"", "{\"type\":\"content_block_delta\"}",
            "{\"type\":\"content_block_delta\",\"index\":7,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}",
            "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"server_tool_use\"}}",
            "{\"type\":\"message_delta\"}", "{\"type\":\"brand_new_event\",\"x\":1}", "{\"type\":\"content_block_stop\"}",
        };
        int errors = 0;
        for (const QByteArray &payload : payloads) {
            auto fresh = adapter().streamTranslator(QJsonObject{{"model", "claude"}, {"stream", true}});
            SseEvent event;
            event.data = payload;
            const StreamStep step = fresh->onEvent(event);
            errors += step.error ? 1 : 0;
            for (const QByteArray &chunk : step.chunks) {
                QJsonObject object;
                QVERIFY(parseJsonObject(chunk, &object));
                const QJsonObject delta = object.value("choices").toArray().at(0).toObject().value("delta").toObject();
                QVERIFY2(delta.value("content").toString().isEmpty() && !delta.contains("tool_calls"), payload.constData());
            }
            const bool endError = fresh->onEnd().error.has_value();
            QVERIFY2(step.error.has_value() || endError, payload.constData()); // none is a complete answer
        }
        QCOMPARE(errors, 3); // the three payloads that are not JSON objects
    }

    void errorEventOfAnUnknownShapeIsStillAnError()
    {
        // Found by fuzz_stream_translator: an `error` event without Anthropic's {"error":{…}} body
        // was swallowed: no error at the event, nothing at the end either, so the proxy waited for
        // the stream to end instead of failing over at once.
        auto translator = adapter().streamTranslator(QJsonObject{{"model", "claude"}, {"stream", true}});
        SseEvent event;
        event.event = "error";
        event.data = R"({"code":"InternalError.Algo","message":"An internal error has occured."})";
        const StreamStep step = translator->onEvent(event);
        QVERIFY(step.error.has_value());
        QCOMPARE(step.error->kind, OutcomeKind::ProviderDown);
        QVERIFY2(step.error->message.contains("InternalError.Algo"), qPrintable(step.error->message));
        QVERIFY(step.chunks.empty());
    }

    // A 2xx that is not a message is the provider's failure, never an empty success.
    void malformed2xxIsProviderDown_data()
    {
        test::addAnswerRows({
            {"{}", "{}", Down},
            {"no content", message(R"("stop_reason":"end_turn")"), Down},
            {"content not a list", message(R"("content":"hi","stop_reason":"end_turn")"), Down},
            {"no type", R"({"content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn"})", Down},
            {"a type other than message", R"({"type":"completion","content":[{"type":"text","text":"hi"}]})", Down},
            {"empty content without a stop reason", message(R"("content":[],"stop_reason":null)"), Down},
            {"an event stream", kMessageStart + kMessageStop, Down, false, "text/event-stream"},
            {"not JSON", "<html><body>Bad gateway</body></html>", Down, false, "text/html"},
            {"truncated", kMessage.left(kMessage.size() / 2), Down},
            {"a JSON list", "[" + kMessage + "]", Down},
        });
    }
    void malformed2xxIsProviderDown() { test::checkAnswerRow(adapter()); }

    void minimalAnswersSucceed_data()
    {
        test::addAnswerRows({
            {"a whole message", kMessage, Ok},
            {"only type and content", R"({"type":"message","content":[{"type":"text","text":"hi"}]})", Ok},
            {"empty content, stopped at max_tokens", message(R"("content":[],"stop_reason":"max_tokens")"), Ok},
            {"empty content, end of turn", message(R"("content":[],"stop_reason":"end_turn")"), Ok},
            {"only a tool call",
             message(R"("content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}],"stop_reason":"tool_use")"), Ok},
            {"an escaped value (Qt's parser decides)",
             "{\"type\":\"mess\\u0061ge\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"stop_reason\":\"end_turn\"}", Ok},
        });
    }
    void minimalAnswersSucceed() { test::checkAnswerRow(adapter()); }

    void errorsInA200AreJudgedByAllTheirFields_data()
    {
        test::addAnswerRows({
            {"invalid_request_error saying it is overloaded",
             R"({"type":"error","error":{"type":"invalid_request_error","message":"Overloaded: the server is busy."}})", Down},
            {"invalid_request_error, the prompt too long",
             R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}})",
             OutcomeKind::NonRetryableParamError},
            {"overloaded_error", R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", Down},
            {"api_error", R"({"type":"error","error":{"type":"api_error","message":"Internal error"}})", Down},
            {"rate_limit_error", R"({"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}})",
             OutcomeKind::RetryableRateLimit},
            {"authentication_error", R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})",
             OutcomeKind::AuthError},
            {"billing_error", R"({"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low."}})",
             OutcomeKind::AuthError},
            {"a type nobody knows", R"({"type":"error","error":{"type":"mystery_error","message":"?"}})", Down},
        });
    }
    void errorsInA200AreJudgedByAllTheirFields() { test::checkAnswerRow(adapter()); }

    void streamsThatAreNoAnswerFailBeforeContent_data()
    {
        const QByteArray emptyText = sseEvent("content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})")
                                     + sseEvent("content_block_stop", R"({"type":"content_block_stop","index":0})");
        test::addStreamRows({
            {"message_start, then message_stop", kMessageStart + kMessageStop, Down},
            {"an empty text block and no stop reason",
             kMessageStart + emptyText + sseEvent("message_delta", R"({"type":"message_delta","delta":{"stop_reason":null},"usage":{"output_tokens":0}})")
                 + kMessageStop,
             Down},
            {"an empty text delta",
             kMessageStart + sseEvent("content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}})")
                 + kMessageStop,
             Down},
            {"message_start, then an error whose fields disagree",
             kMessageStart + sseEvent("error", R"({"type":"error","error":{"type":"invalid_request_error","message":"Overloaded"}})"), Down},
            {"an error that is the caller's",
             sseEvent("error", R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}})"),
             OutcomeKind::NonRetryableParamError},
            {"a JSON body, not SSE", kMessage, Down},
            {"message_start and a clean close", kMessageStart, Down},
            {"no text, stopped at max_tokens",
             kMessageStart + sseEvent("message_delta", R"({"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":0}})")
                 + kMessageStop,
             Ok},
        });
    }
    void streamsThatAreNoAnswerFailBeforeContent() { test::checkStreamRow(adapter()); }

    void stopReasons()
    {
        QCOMPARE(AnthropicAdapter::finishReason(QStringLiteral("end_turn")), QStringLiteral("stop"));
        QCOMPARE(AnthropicAdapter::finishReason(QStringLiteral("stop_sequence")), QStringLiteral("stop"));
        QCOMPARE(AnthropicAdapter::finishReason(QStringLiteral("max_tokens")), QStringLiteral("length"));
        QCOMPARE(AnthropicAdapter::finishReason(QStringLiteral("tool_use")), QStringLiteral("tool_calls"));
        QCOMPARE(AnthropicAdapter::finishReason(QStringLiteral("refusal")), QStringLiteral("content_filter"));
    }
};

QTEST_APPLESS_MAIN(tst_AnthropicAdapter)
#include "tst_AnthropicAdapter.moc"
