#include "providers/ProviderRegistry.h"
#include "providers/openai_compat/ResponsesStreamTranslator.h"
#include "stream/SseParser.h"

#include "TestPaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// OpenAI's own Responses streams (the reference's examples under tests/fixtures/openai_responses/)
// through the translator that keeps the engine's OpenAI chunks for a Responses-native upstream:
// the text, the tool call, the reasoning and the usage must all come out, and an error must be one.

namespace {

QByteArray fixture(const QString &name)
{
    QFile file(test::sourcePath(QStringLiteral("tests/fixtures/openai_responses/") + name));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(name));
    return file.readAll();
}

struct Folded {
    QString content, reasoning, toolName, toolArguments, toolId, finishReason;
    QJsonObject usageChunk;
    std::optional<TokenUsage> usage;
    std::optional<Outcome> error;
    bool finished = false;
    bool firstChunkHasRole = false;
    int chunks = 0;
};

// What the engine does with a stream, cut into `piece`-byte writes: parse, translate, fold the chunks.
Folded run(const QByteArray &sse, bool wantsUsage = true, qsizetype piece = 7, bool end = true)
{
    ResponsesStreamTranslator translator(QStringLiteral("client-model"), wantsUsage);
    SseParser parser;
    Folded out;
    const auto fold = [&](StreamStep step) {
        for (const QByteArray &chunk : step.chunks) {
            const QJsonObject object = QJsonDocument::fromJson(chunk).object();
            if (object.value("model").toString() != QLatin1String("client-model"))
                qWarning("a chunk names model %s", qPrintable(object.value("model").toString()));
            if (out.chunks++ == 0)
                out.firstChunkHasRole = object.value("choices")[0]["delta"]["role"] == QLatin1String("assistant");
            if (object.value("choices").toArray().isEmpty()) {
                out.usageChunk = object.value("usage").toObject();
                continue;
            }
            const QJsonObject choice = object.value("choices")[0].toObject();
            const QJsonObject delta = choice.value("delta").toObject();
            out.content += delta.value("content").toString();
            out.reasoning += delta.value("reasoning_content").toString();
            for (const QJsonValue &call : delta.value("tool_calls").toArray()) {
                if (call["id"].isString())
                    out.toolId = call["id"].toString();
                if (call["function"]["name"].isString())
                    out.toolName = call["function"]["name"].toString();
                out.toolArguments += call["function"]["arguments"].toString();
            }
            if (choice.value("finish_reason").isString())
                out.finishReason = choice.value("finish_reason").toString();
        }
        if (step.usage)
            out.usage = step.usage;
        if (step.error && !out.error)
            out.error = step.error;
        out.finished |= step.finished;
    };
    for (qsizetype at = 0; at < sse.size(); at += piece)
        for (const SseEvent &event : parser.feed(QByteArrayView(sse).sliced(at, std::min(piece, sse.size() - at))))
            fold(translator.onEvent(event));
    for (const SseEvent &event : parser.finish())
        fold(translator.onEvent(event));
    if (end)
        fold(translator.onEnd());
    return out;
}

} // namespace

class tst_ResponsesStreamTranslator : public QObject {
    Q_OBJECT
private slots:
    void theReferenceTextStreamIsItsText()
    {
        const Folded f = run(fixture(QStringLiteral("stream_text.sse")));
        QVERIFY(!f.error);
        QVERIFY(f.finished);
        QVERIFY(f.firstChunkHasRole);
        QCOMPARE(f.content, QStringLiteral("Hi there! How can I assist you today?"));
        QCOMPARE(f.finishReason, QStringLiteral("stop"));
        QVERIFY(f.usage);
        QCOMPARE(f.usage->promptTokens, 37);
        QCOMPARE(f.usage->completionTokens, 11);
        QCOMPARE(f.usage->totalTokens, 48);
        QCOMPARE(f.usageChunk.value("prompt_tokens").toInt(), 37);
    }

    void theReferenceFunctionCallIsOneToolCall()
    {
        const Folded f = run(fixture(QStringLiteral("stream_function_call.sse")));
        QVERIFY(!f.error);
        QVERIFY(f.finished);
        QCOMPARE(f.toolId, QStringLiteral("call_1234xyz"));
        QCOMPARE(f.toolName, QStringLiteral("get_weather"));
        QCOMPARE(f.toolArguments, QStringLiteral("{\"location\":\"Paris, France\"}"));
        QCOMPARE(f.finishReason, QStringLiteral("tool_calls"));
        QVERIFY(f.content.isEmpty());
        QCOMPARE(f.usage->cacheReadTokens, 0);
        QCOMPARE(f.usage->totalTokens, 75);
    }

    void reasoningSummariesAreReasoningContentAndItsTokensAreOutput()
    {
        const Folded f = run(fixture(QStringLiteral("stream_reasoning.sse")));
        QVERIFY(!f.error);
        QCOMPARE(f.reasoning, QStringLiteral("**Adding the numbers**\n\nTwo plus two is four."));
        QCOMPARE(f.content, QStringLiteral("2 + 2 = 4."));
        QCOMPARE(f.usage->completionTokens, 146); // reasoning tokens are billed as output
        QCOMPARE(f.usageChunk.value("completion_tokens_details").toObject().value("reasoning_tokens").toInt(), 128);
    }

    void theReferenceFailedEventIsAnErrorNotAFinish()
    {
        const Folded f = run(fixture(QStringLiteral("stream_failed.sse")));
        QVERIFY(f.error);
        QVERIFY(!f.finished);
        QCOMPARE(f.error->kind, OutcomeKind::ProviderDown);
        QCOMPARE(f.error->providerCode, QStringLiteral("server_error"));
        QCOMPARE(f.error->message, QStringLiteral("The model failed to generate a response."));
    }

    void aRateLimitedResponseCoolsTheKey()
    {
        const QByteArray sse = "event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":1,\"response\":"
                               "{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"failed\",\"error\":{\"code\":\"rate_limit_exceeded\","
                               "\"message\":\"Rate limit reached\"},\"output\":[]}}\n\n";
        const Folded f = run(sse);
        QVERIFY(f.error);
        QCOMPARE(f.error->kind, OutcomeKind::RetryableRateLimit);
    }

    void anErrorEventMidStreamIsAnError()
    {
        QByteArray sse = fixture(QStringLiteral("stream_text.sse"));
        sse.truncate(sse.indexOf("event: response.output_text.done"));
        sse += "event: error\ndata: {\"type\":\"error\",\"sequence_number\":14,\"code\":\"server_error\",\"message\":\"boom\",\"param\":null}\n\n";
        const Folded f = run(sse);
        QCOMPARE(f.content, QStringLiteral("Hi there! How can I assist you today?"));
        QVERIFY(f.error);
        QCOMPARE(f.error->kind, OutcomeKind::ProviderDown);
        QCOMPARE(f.error->message, QStringLiteral("boom"));
    }

    void aStreamCutBeforeItsTerminalEventIsCut()
    {
        QByteArray sse = fixture(QStringLiteral("stream_text.sse"));
        sse.truncate(sse.indexOf("event: response.completed"));
        const Folded f = run(sse);
        QVERIFY(!f.finished);
        QVERIFY(f.error);
        QCOMPARE(f.error->providerCode, QStringLiteral("stream_cut"));
    }

    void anIncompleteResponseFinishesForLength()
    {
        QByteArray sse = fixture(QStringLiteral("stream_text.sse"));
        sse.replace("event: response.completed\ndata: {\"type\":\"response.completed\"", "event: response.incomplete\ndata: {\"type\":\"response.incomplete\"");
        const qsizetype last = sse.lastIndexOf("\"status\":\"completed\",\"error\":null,\"incomplete_details\":null");
        QVERIFY(last > 0);
        sse.replace(last, qstrlen("\"status\":\"completed\",\"error\":null,\"incomplete_details\":null"),
                    "\"status\":\"incomplete\",\"error\":null,\"incomplete_details\":{\"reason\":\"max_output_tokens\"}");
        const Folded f = run(sse);
        QVERIFY(f.finished);
        QCOMPARE(f.finishReason, QStringLiteral("length"));
    }

    void theUsageChunkOnlyWhenTheClientAsked()
    {
        const Folded f = run(fixture(QStringLiteral("stream_text.sse")), false);
        QVERIFY(f.usageChunk.isEmpty());
        QVERIFY(f.usage); // the engine still counts
    }

    void anEventThatIsNotJsonIsAProviderFailure()
    {
        const Folded f = run("event: response.output_text.delta\ndata: {not json\n\n");
        QVERIFY(f.error);
        QCOMPARE(f.error->kind, OutcomeKind::ProviderDown);
    }

    void theAdapterGivesThisTranslatorForTheResponsesApiOnly()
    {
        const ProviderAdapter *adapter = ProviderRegistry::find(QStringLiteral("openai_compat"));
        QVERIFY(adapter);
        const QJsonObject body{{"model", "client-model"}, {"stream", true}};
        auto native = adapter->nativeStreamTranslator(u"openai_responses", body);
        QVERIFY(dynamic_cast<ResponsesStreamTranslator *>(native.get()));
        auto chat = adapter->nativeStreamTranslator(u"anthropic_messages", body);
        QVERIFY(!dynamic_cast<ResponsesStreamTranslator *>(chat.get()));
    }
};

QTEST_GUILESS_MAIN(tst_ResponsesStreamTranslator)
#include "tst_ResponsesStreamTranslator.moc"
