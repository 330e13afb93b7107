#include "providers/ProviderRegistry.h"
#include "providers/common/ProviderText.h"
#include "providers/common/RetryAfter.h"
#include "providers/openai_compat/OpenAiCompatErrorMap.h"
#include "stream/SseParser.h"

#include "TestPaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// Every fixture under tests/fixtures/openai_compat/ through the dialect's ErrorMap and
// StreamTranslator, plus the request translation the adapter owns.

namespace {

const QString Dialect = QStringLiteral("openai_compat");

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

class tst_OpenAiCompatAdapter : public QObject {
    Q_OBJECT
private slots:
    void errorFixtures_data()
    {
        QTest::addColumn<QJsonObject>("fixture");
        const QJsonArray cases = manifest().value(QLatin1String("errors")).toArray();
        QVERIFY(cases.size() >= 20);
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
        QVERIFY(cases.size() >= 8);
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
