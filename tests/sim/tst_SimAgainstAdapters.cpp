// The simulator's wire formats read by the proxy's own adapters (core/providers): what a fake
// provider sends must be understood exactly as the real provider's would be, or a drill measures
// the simulator instead of the proxy.

#include "sim/DialectWire.h"
#include "sim/SimText.h"

#include "providers/ProviderRegistry.h"
#include "providers/common/OpenAiAnswer.h"
#include "stream/SseParser.h"

#include "FakeClock.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;
using namespace sb::sim;

namespace {

struct Translated {
    QString text;
    QString reasoning;
    QString toolName;
    QString toolArguments;
    QString finishReason;
    bool finished = false;
    std::optional<Outcome> error;
    std::optional<Outcome> endError;
};

// Feeds `bytes` in 3-byte pieces (splitting characters and events) through the SSE parser and the
// dialect's translator, as the proxy does.
Translated translate(const ProviderAdapter &adapter, const QByteArray &bytes, bool responses = false)
{
    Translated out;
    const QJsonObject body{{"model", "m"}, {"stream", true}};
    auto translator = responses ? adapter.nativeStreamTranslator(u"openai_responses", body) : adapter.streamTranslator(body);
    SseParser parser;
    auto take = [&](const StreamStep &step) {
        for (const QByteArray &chunk : step.chunks) {
            const QJsonArray choices = QJsonDocument::fromJson(chunk).object().value("choices").toArray();
            for (const QJsonValue &c : choices) {
                const QJsonObject delta = c.toObject().value("delta").toObject();
                out.text += delta.value("content").toString();
                out.reasoning += delta.value("reasoning_content").toString();
                for (const QJsonValue &call : delta.value("tool_calls").toArray()) {
                    out.toolName += call["function"]["name"].toString();
                    out.toolArguments += call["function"]["arguments"].toString();
                }
                if (c.toObject().value("finish_reason").isString())
                    out.finishReason = c.toObject().value("finish_reason").toString();
            }
        }
        out.finished = out.finished || step.finished;
        if (step.error && !out.error)
            out.error = step.error;
    };
    for (qsizetype i = 0; i < bytes.size(); i += 3) {
        for (const SseEvent &e : parser.feed(QByteArrayView(bytes.constData() + i, std::min<qsizetype>(3, bytes.size() - i))))
            take(translator->onEvent(e));
    }
    for (const SseEvent &e : parser.finish())
        take(translator->onEvent(e));
    const StreamStep end = translator->onEnd();
    take(end);
    if (end.error)
        out.endError = end.error;
    return out;
}

} // namespace

class tst_SimAgainstAdapters : public QObject {
    Q_OBJECT

private slots:
    void dialects_data()
    {
        QTest::addColumn<QString>("dialect");
        for (const char *d : {"openai_compat", "anthropic", "gemini", "dashscope", "ernie"})
            QTest::newRow(d) << QString::fromLatin1(d);
    }

    void aStreamTranslatesToTheWholeText_data() { dialects_data(); }
    void aStreamTranslatesToTheWholeText()
    {
        QFETCH(QString, dialect);
        const ProviderAdapter *adapter = ProviderRegistry::find(dialect);
        QVERIFY(adapter);
        const DialectWire wire(*dialectFromString(dialect));
        SimRequest request;
        request.model = QStringLiteral("m");
        request.promptTokens = 5;
        const auto tokens = SimText::tokens(Language::Mixed, 16, 2);
        QByteArray bytes = wire.streamHead(request, "id");
        for (int i = 0; i < int(tokens.size()); ++i)
            bytes += wire.streamDelta(request, "id", tokens[std::size_t(i)], i);
        const QByteArray cutAfterHalf = bytes;
        bytes += wire.streamTail(request, "id", int(tokens.size()));

        const Translated whole = translate(*adapter, bytes);
        QVERIFY2(!whole.error, whole.error ? qPrintable(whole.error->message) : "");
        QVERIFY(whole.finished);
        QCOMPARE(whole.text, QString::fromUtf8(SimText::join(tokens)));

        // Without the dialect's end marker the proxy must see a broken stream, never a clean finish.
        const Translated cut = translate(*adapter, cutAfterHalf);
        QVERIFY(cut.endError || cut.error);
        QCOMPARE((cut.endError ? cut.endError : cut.error)->kind, OutcomeKind::ProviderDown);
    }

    // An answer that reasons, writes and calls a tool reads back whole, in each of its parts, as the
    // dialect's real reasoning and tool-call events do; whole and streamed.
    void reasoningAndAToolCallTranslate_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::newRow("openai_compat") << QStringLiteral("openai_compat");
        QTest::newRow("anthropic") << QStringLiteral("anthropic");
    }

    void reasoningAndAToolCallTranslate()
    {
        QFETCH(QString, dialect);
        const ProviderAdapter *adapter = ProviderRegistry::find(dialect);
        const DialectWire wire(*dialectFromString(dialect));
        const QByteArray body = dialect == QLatin1String("anthropic")
            ? R"({"model":"m","stream":true,"tools":[{"name":"search","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Hi"}]})"
            : R"({"model":"m","stream":true,"tools":[{"type":"function","function":{"name":"search"}}],"messages":[{"role":"user","content":"Hi"}]})";
        const SimRequest request = wire.parse("POST", dialect == QLatin1String("anthropic") ? "/v1/messages" : "/v1/chat/completions", {},
                                              HttpHeaders(), body);
        QCOMPARE(request.tool, QStringLiteral("search"));
        ProviderSpec spec;
        spec.dialect = dialect;
        spec.language = Language::Mixed;
        spec.reasoningTokens = 6;
        spec.toolCalls = true;
        const SimAnswer answer = SimAnswer::compose(spec, request, SimText::tokens(Language::Mixed, 8, 3), 3);
        QVERIFY(answer.callsTool());

        QByteArray bytes = wire.streamHead(request, "id", answer);
        for (int i = 0; i < answer.size(); ++i)
            bytes += wire.streamPiece(request, "id", answer, i);
        bytes += wire.streamTail(request, "id", answer);
        const Translated streamed = translate(*adapter, bytes);
        QVERIFY2(!streamed.error && !streamed.endError, bytes.constData());
        QVERIFY(streamed.finished);
        QCOMPARE(streamed.reasoning, QString::fromUtf8(answer.joined(SimAnswer::Kind::Reasoning)));
        QCOMPARE(streamed.text, QString::fromUtf8(SimText::join(SimText::tokens(Language::Mixed, 8, 3))));
        QCOMPARE(streamed.toolName, QStringLiteral("search"));
        QCOMPARE(streamed.toolArguments, QString::fromUtf8(answer.joined(SimAnswer::Kind::ToolArguments)));
        QCOMPARE(QJsonDocument::fromJson(streamed.toolArguments.toUtf8()).object().value("limit").toInt(), 3);
        QCOMPARE(streamed.finishReason, QStringLiteral("tool_calls"));

        const SimReply reply = wire.complete(request, "id", answer);
        OpenAiAnswer whole;
        TokenUsage usage;
        QVERIFY(adapter->classifyNativeAnswer(u"openai_chat", reply.status, reply.headers, reply.body, &whole, &usage).isSuccess());
        const QJsonObject choice = QJsonDocument::fromJson(whole.toJson("m", 1)).object().value("choices")[0].toObject();
        QCOMPARE(choice["finish_reason"].toString(), QStringLiteral("tool_calls"));
        QCOMPARE(choice["message"]["tool_calls"][0]["function"]["name"].toString(), QStringLiteral("search"));
        QCOMPARE(QJsonDocument::fromJson(choice["message"]["tool_calls"][0]["function"]["arguments"].toString().toUtf8()),
                 QJsonDocument::fromJson(answer.joined(SimAnswer::Kind::ToolArguments)));
        QCOMPARE(usage.completionTokens, answer.size());
    }

    void errorEventsAreErrors_data() { dialects_data(); }
    void errorEventsAreErrors()
    {
        QFETCH(QString, dialect);
        const ProviderAdapter *adapter = ProviderRegistry::find(dialect);
        const DialectWire wire(*dialectFromString(dialect));
        const Translated down = translate(*adapter, wire.errorEvent("id"));
        QVERIFY(down.error);
        QCOMPARE(down.error->kind, OutcomeKind::ProviderDown);
        const Translated limited = translate(*adapter, wire.rateLimitEvent("id"));
        QVERIFY(limited.error);
        QCOMPARE(limited.error->kind, OutcomeKind::RetryableRateLimit);
    }

    void theResponsesApiWireIsReadAsOpenAisOwn()
    {
        // An OpenAI-compatible fake provider asked at /v1/responses (a provider with responses_api).
        const ProviderAdapter *adapter = ProviderRegistry::find(QStringLiteral("openai_compat"));
        const DialectWire wire(Dialect::OpenAiCompat);
        const SimRequest request = wire.parse("POST", "/v1/responses", {}, HttpHeaders(), R"({"model":"m","input":"Hi","stream":true})");
        QCOMPARE(request.kind, SimRequest::Kind::Chat);
        QVERIFY(request.responses);
        QVERIFY(request.stream);
        const auto tokens = SimText::tokens(Language::Mixed, 16, 2);
        QByteArray bytes = wire.streamHead(request, "id");
        for (int i = 0; i < int(tokens.size()); ++i)
            bytes += wire.streamDelta(request, "id", tokens[std::size_t(i)], i);
        const QByteArray half = bytes;
        bytes += wire.streamTail(request, "id", int(tokens.size()), SimText::join(tokens));
        const Translated whole = translate(*adapter, bytes, true);
        QVERIFY2(!whole.error, whole.error ? qPrintable(whole.error->message) : "");
        QVERIFY(whole.finished);
        QCOMPARE(whole.text, QString::fromUtf8(SimText::join(tokens)));
        QCOMPARE(translate(*adapter, half, true).endError->kind, OutcomeKind::ProviderDown);

        const Translated failed = translate(*adapter, wire.firstEventError(request, "id"), true);
        QCOMPARE(failed.error->kind, OutcomeKind::ProviderDown);
        const Translated limited = translate(*adapter, wire.firstEventRateLimit(request, "id"), true);
        QCOMPARE(limited.error->kind, OutcomeKind::RetryableRateLimit);
        const Translated broken = translate(*adapter, half + wire.midStreamError(request, "id", int(tokens.size())), true);
        QCOMPARE(broken.text, QString::fromUtf8(SimText::join(tokens)));
        QCOMPARE(broken.error->kind, OutcomeKind::ProviderDown);

        OpenAiAnswer answer;
        TokenUsage usage;
        const SimReply reply = wire.complete(request, "id", "你好 Xin chào", 3);
        QVERIFY(adapter->classifyNativeAnswer(u"openai_responses", reply.status, reply.headers, reply.body, &answer, &usage).isSuccess());
        QCOMPARE(usage.completionTokens, 3);
        QCOMPARE(QJsonDocument::fromJson(answer.toJson("m", 1)).object().value("choices")[0]["message"]["content"].toString(), QStringLiteral("你好 Xin chào"));
        const SimReply error = wire.httpError(429);
        QCOMPARE(adapter->classifyNativeAnswer(u"openai_responses", error.status, error.headers, error.body, &answer, &usage).kind,
                 OutcomeKind::RetryableRateLimit);
    }

    void repliesClassifyAsTheirFaults_data() { dialects_data(); }
    void repliesClassifyAsTheirFaults()
    {
        QFETCH(QString, dialect);
        const ProviderAdapter *adapter = ProviderRegistry::find(dialect);
        const DialectWire wire(*dialectFromString(dialect));
        auto kind = [&](const SimReply &r) { return adapter->classify(r.status, r.headers, r.body).kind; };
        SimRequest request;
        request.model = QStringLiteral("m");
        QCOMPARE(kind(wire.complete(request, "id", "你好 Xin chào", 3)), OutcomeKind::Success);
        QCOMPARE(kind(wire.httpError(500)), OutcomeKind::ProviderDown);
        QCOMPARE(kind(wire.httpError(503)), OutcomeKind::ProviderDown);
        QCOMPARE(kind(wire.httpError(429)), OutcomeKind::RetryableRateLimit);
        const SimReply retryAfter = wire.httpError(429, 3);
        const Outcome limited = adapter->classify(retryAfter.status, retryAfter.headers, retryAfter.body);
        QCOMPARE(limited.kind, OutcomeKind::RetryableRateLimit);
        QCOMPARE(limited.retryAfter.value_or(std::chrono::milliseconds(0)), std::chrono::milliseconds(3000));
        // The failure that once set off a retry storm: a rate limit inside a 200 body is a rate limit, not a success.
        QCOMPARE(kind(wire.bodyRateLimit()), OutcomeKind::RetryableRateLimit);
        QCOMPARE(kind(wire.keyRateLimited(2)), OutcomeKind::RetryableRateLimit);
        QCOMPARE(kind(wire.unknownKey()), OutcomeKind::AuthError);
    }
    void eachDialectsOwnHintOfTheWaitIsRead_data() { dialects_data(); }
    void eachDialectsOwnHintOfTheWaitIsRead()
    {
        // The simulator says "wait 14 s" the way the dialect's provider does (no Retry-After beside
        // it where the provider has a form of its own), and the adapter reads 14 s from it.
        QFETCH(QString, dialect);
        const ProviderAdapter *adapter = ProviderRegistry::find(dialect);
        const sb::test::FakeClock clock(1'796'189'414'250); // mid-second: the Date and the reset must still make the wait
        const DialectWire wire(*dialectFromString(dialect), clock);
        for (int seconds : {14, 90}) {
            const SimReply reply = wire.rateLimitHint(seconds);
            QCOMPARE(reply.status, 429);
            const Outcome limited = adapter->classify(reply.status, reply.headers, reply.body);
            QCOMPARE(limited.kind, OutcomeKind::RetryableRateLimit);
            QCOMPARE(limited.retryAfter, std::optional<std::chrono::milliseconds>(std::chrono::seconds(seconds)));
            QVERIFY(limited.retryAfterFrom);
            const QByteArray from(limited.retryAfterFrom);
            if (dialect == u"openai_compat")
                QCOMPARE(from, QByteArray("x-ratelimit-reset-requests"));
            else if (dialect == u"anthropic")
                QCOMPARE(from, QByteArray("anthropic-ratelimit-requests-reset"));
            else if (dialect == u"gemini")
                QCOMPARE(from, QByteArray("retryDelay"));
            else
                QCOMPARE(from, QByteArray("Retry-After"));
        }
    }
};

QTEST_APPLESS_MAIN(tst_SimAgainstAdapters)

#include "tst_SimAgainstAdapters.moc"
