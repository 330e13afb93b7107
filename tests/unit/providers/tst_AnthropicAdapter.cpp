#include "providers/ProviderRegistry.h"
#include "providers/anthropic/AnthropicAdapter.h"
#include "providers/common/ProviderText.h"
#include "stream/SseParser.h"

#include "TestPaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// Every fixture under tests/fixtures/anthropic/ through the dialect's ErrorMap and
// StreamTranslator, plus the request translation the adapter owns.

namespace {

const QString Dialect = QStringLiteral("anthropic");

QByteArray readFixture(const QString &name)
{
    QFile file(test::sourcePath(QStringLiteral("tests/fixtures/%1/%2").arg(Dialect, name)));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(file.fileName()));
    return file.readAll();
}

QJsonObject manifest()
{
    return QJsonDocument::fromJson(readFixture(QStringLiteral("cases.json"))).object();
}

HttpHeaders headersOf(const QJsonObject &object)
{
    HttpHeaders headers;
    for (auto it = object.begin(); it != object.end(); ++it)
        headers.add(it.key().toUtf8(), it.value().toString().toUtf8());
    return headers;
}

const ProviderAdapter &adapter()
{
    const ProviderAdapter *a = ProviderRegistry::find(Dialect);
    if (!a)
        qFatal("dialect not registered");
    return *a;
}

struct StreamResult {
    QList<QByteArray> chunks;
    bool finished = false;
    std::optional<Outcome> error;
    std::optional<TokenUsage> usage;
};

// What the engine does with a stream: bytes → SseParser → translator, stopping at the first error.
StreamResult runStream(const QJsonObject &request, const QList<QByteArray> &pieces)
{
    StreamResult result;
    SseParser parser;
    auto translator = adapter().streamTranslator(request);
    translator->setCreated(1790000000);
    auto take = [&](const StreamStep &step) {
        for (const QByteArray &chunk : step.chunks)
            result.chunks << chunk;
        if (step.usage)
            result.usage = step.usage;
        if (step.error)
            result.error = step.error;
        result.finished = result.finished || step.finished;
    };
    for (const QByteArray &piece : pieces) {
        for (const SseEvent &event : parser.feed(piece)) {
            if (!result.error)
                take(translator->onEvent(event));
        }
    }
    for (const SseEvent &event : parser.finish()) {
        if (!result.error)
            take(translator->onEvent(event));
    }
    if (!result.error)
        take(translator->onEnd());
    return result;
}

} // namespace

class tst_AnthropicAdapter : public QObject {
    Q_OBJECT
private slots:
    void errorFixtures_data()
    {
        QTest::addColumn<QJsonObject>("fixture");
        const QJsonArray cases = manifest().value(QLatin1String("errors")).toArray();
        QVERIFY(cases.size() >= 12);
        for (const QJsonValue &c : cases)
            QTest::newRow(qPrintable(c.toObject().value(QLatin1String("name")).toString())) << c.toObject();
    }
    void errorFixtures()
    {
        QFETCH(QJsonObject, fixture);
        const QByteArray body = fixture.contains(QLatin1String("bodyInline"))
                                    ? fixture.value(QLatin1String("bodyInline")).toString().toUtf8()
                                    : readFixture(fixture.value(QLatin1String("body")).toString());
        const int status = fixture.value(QLatin1String("status")).toInt();
        const Outcome outcome = adapter().classify(status, headersOf(fixture.value(QLatin1String("headers")).toObject()), body);

        QCOMPARE(QString::fromLatin1(toString(outcome.kind)), fixture.value(QLatin1String("expect")).toString());
        QCOMPARE(outcome.httpStatus, status);
        QCOMPARE(outcome.origin, OutcomeOrigin::Upstream);
        if (fixture.contains(QLatin1String("retryAfterMs"))) {
            QVERIFY(outcome.retryAfter.has_value());
            QCOMPARE(qint64(outcome.retryAfter->count()), qint64(fixture.value(QLatin1String("retryAfterMs")).toInt()));
        } else if (!outcome.isSuccess()) {
            QVERIFY2(!outcome.retryAfter.has_value(), "no header asked for a wait");
        }
        if (fixture.contains(QLatin1String("providerCode")))
            QCOMPARE(outcome.providerCode, fixture.value(QLatin1String("providerCode")).toString());
        if (fixture.contains(QLatin1String("messageMustNotContain")))
            QVERIFY(!outcome.message.contains(fixture.value(QLatin1String("messageMustNotContain")).toString()));
        if (!outcome.isSuccess())
            QVERIFY2(!outcome.message.isEmpty(), "an error must say something a person can read");
    }

    void streamFixtures_data()
    {
        QTest::addColumn<QJsonObject>("fixture");
        const QJsonArray cases = manifest().value(QLatin1String("streams")).toArray();
        QVERIFY(cases.size() >= 6);
        for (const QJsonValue &c : cases)
            QTest::newRow(qPrintable(c.toObject().value(QLatin1String("name")).toString())) << c.toObject();
    }
    void streamFixtures()
    {
        QFETCH(QJsonObject, fixture);
        const QByteArray sse = readFixture(fixture.value(QLatin1String("file")).toString());
        const QJsonObject request = fixture.value(QLatin1String("request")).toObject();
        const StreamResult result = runStream(request, {sse});

        QCOMPARE(result.chunks.size(), fixture.value(QLatin1String("chunks")).toInt());
        QCOMPARE(result.finished, fixture.value(QLatin1String("finished")).toBool());
        const QString expectedError = fixture.value(QLatin1String("error")).toString();
        QCOMPARE(result.error ? QString::fromLatin1(toString(result.error->kind)) : QString(), expectedError);

        QString content, reasoning, finishReason;
        bool sawUsageChunk = false;
        QMap<int, QJsonObject> tools; // index → {id, name, arguments}
        for (const QByteArray &bytes : result.chunks) {
            QJsonObject chunk;
            QVERIFY2(parseJsonObject(bytes, &chunk), bytes.constData());
            QCOMPARE(chunk.value(QLatin1String("object")).toString(), QStringLiteral("chat.completion.chunk"));
            // The client sees the model it asked for, whatever the upstream called it.
            QCOMPARE(chunk.value(QLatin1String("model")).toString(), request.value(QLatin1String("model")).toString());
            if (chunk.value(QLatin1String("usage")).isObject())
                sawUsageChunk = true;
            for (const QJsonValue &c : chunk.value(QLatin1String("choices")).toArray()) {
                const QJsonObject delta = c.toObject().value(QLatin1String("delta")).toObject();
                content += delta.value(QLatin1String("content")).toString();
                reasoning += delta.value(QLatin1String("reasoning_content")).toString();
                if (c.toObject().value(QLatin1String("finish_reason")).isString())
                    finishReason = c.toObject().value(QLatin1String("finish_reason")).toString();
                for (const QJsonValue &t : delta.value(QLatin1String("tool_calls")).toArray()) {
                    const QJsonObject call = t.toObject();
                    QJsonObject &acc = tools[call.value(QLatin1String("index")).toInt()];
                    if (call.contains(QLatin1String("id")))
                        acc.insert(QStringLiteral("id"), call.value(QLatin1String("id")));
                    const QJsonObject f = call.value(QLatin1String("function")).toObject();
                    if (f.contains(QLatin1String("name")))
                        acc.insert(QStringLiteral("name"), f.value(QLatin1String("name")));
                    acc.insert(QStringLiteral("arguments"), acc.value(QLatin1String("arguments")).toString()
                                                                + f.value(QLatin1String("arguments")).toString());
                }
            }
        }
        if (fixture.contains(QLatin1String("content")))
            QCOMPARE(content, fixture.value(QLatin1String("content")).toString());
        QCOMPARE(reasoning, fixture.value(QLatin1String("reasoning")).toString());
        QCOMPARE(finishReason, fixture.value(QLatin1String("finishReason")).toString());
        if (fixture.contains(QLatin1String("usageChunk")))
            QCOMPARE(sawUsageChunk, fixture.value(QLatin1String("usageChunk")).toBool());
        if (fixture.contains(QLatin1String("usage"))) {
            const QJsonArray u = fixture.value(QLatin1String("usage")).toArray();
            QVERIFY(result.usage.has_value());
            QCOMPARE(result.usage->promptTokens, u.at(0).toInt());
            QCOMPARE(result.usage->completionTokens, u.at(1).toInt());
            QCOMPARE(result.usage->totalTokens, u.at(2).toInt());
        }
        const QJsonArray expectedTools = fixture.value(QLatin1String("toolCalls")).toArray();
        QCOMPARE(tools.size(), expectedTools.size());
        for (const QJsonValue &t : expectedTools) {
            const QJsonObject want = t.toObject();
            const QJsonObject got = tools.value(want.value(QLatin1String("index")).toInt());
            QCOMPARE(got.value(QLatin1String("id")).toString(), want.value(QLatin1String("id")).toString());
            QCOMPARE(got.value(QLatin1String("name")).toString(), want.value(QLatin1String("name")).toString());
            QCOMPARE(got.value(QLatin1String("arguments")).toString(), want.value(QLatin1String("arguments")).toString());
        }

        // The same bytes cut at every offset give exactly the same chunks (each event is
        // translated when whole, never earlier and never differently).
        for (qsizetype cut = 1; cut < sse.size(); ++cut) {
            const StreamResult split = runStream(request, {sse.left(cut), sse.mid(cut)});
            if (split.chunks != result.chunks || split.finished != result.finished
                || bool(split.error) != bool(result.error))
                QFAIL(qPrintable(QStringLiteral("split at byte %1 changed the output").arg(cut)));
        }
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

    void chunksHaveTheOpenAiShape()
    {
        const StreamResult result = runStream(QJsonObject{{"model", "claude"}, {"stream", true}}, {readFixture(QStringLiteral("text.sse"))});
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
