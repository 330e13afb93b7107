#include "providers/ProviderRegistry.h"
#include "providers/common/OpenAiAnswer.h"
#include "providers/openai_compat/ResponsesUpstream.h"

#include "TestPaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// An OpenAI-compatible provider that serves the Responses API itself: what it is sent (the client's
// bytes, the channel's model, store false, to /responses) and how its whole answers are read
// (OpenAI's reference responses, its error body, a failed response).

namespace {

QByteArray fixture(const QString &name)
{
    QFile file(test::sourcePath(QStringLiteral("tests/fixtures/openai_responses/") + name));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(name));
    return file.readAll();
}

const ProviderAdapter &adapter() { return *ProviderRegistry::find(QStringLiteral("openai_compat")); }

struct Context {
    ProviderConfig provider;
    ChannelConfig channel;
    AdapterContext context() const { return AdapterContext{&provider, &channel, QStringLiteral("sk-test-key"), {}}; }
};

Context native(bool responsesApi = true)
{
    Context c;
    c.provider.dialect = QStringLiteral("openai_compat");
    c.provider.baseUrl = QStringLiteral("https://api.openai.com/v1/");
    c.provider.responsesApi = responsesApi;
    c.channel.upstreamModel = QStringLiteral("gpt-5.4-2026");
    return c;
}

HttpHeaders json()
{
    HttpHeaders h;
    h.set("Content-Type", "application/json");
    return h;
}

} // namespace

class tst_ResponsesUpstream : public QObject {
    Q_OBJECT
private slots:
    void theClientsBytesGoUpWithTheChannelsModelAndStoreFalse()
    {
        // Members the proxy knows nothing of (a future one, Codex's client_metadata, include) and
        // the client's own spacing stay byte for byte.
        const QByteArray body = "{ \"model\": \"gpt-4o\",\n  \"input\": [{\"role\":\"user\",\"content\":\"Hi \\u00e9\"}],\n"
                                "  \"include\": [\"reasoning.encrypted_content\"], \"client_metadata\": {\"x\": [1, 2.50]},"
                                " \"store\": true, \"stream\": true }";
        const Context c = native();
        const std::optional<UpstreamRequest> request = adapter().nativeRequest(u"openai_responses", body, HttpHeaders(), c.context());
        QVERIFY(request);
        QCOMPARE(request->url.toString(), QStringLiteral("https://api.openai.com/v1/responses"));
        QVERIFY(request->stream);
        QCOMPARE(request->headers.value("authorization"), QByteArray("Bearer sk-test-key"));
        QCOMPARE(request->headers.value("accept"), QByteArray("text/event-stream"));
        QByteArray expected = body;
        expected.replace("\"model\": \"gpt-4o\"", "\"model\": \"gpt-5.4-2026\"");
        expected.replace("\"store\": true", "\"store\": false");
        QCOMPARE(request->body, expected);
    }

    void storeFalseIsAddedWhenTheClientLeftItOut()
    {
        const Context c = native();
        const auto request = adapter().nativeRequest(u"openai_responses", R"({"model":"m","input":"Hi"})", HttpHeaders(), c.context());
        QVERIFY(request);
        const QJsonObject sent = QJsonDocument::fromJson(request->body).object();
        QCOMPARE(sent.value("store"), QJsonValue(false));
        QCOMPARE(sent.value("input").toString(), QStringLiteral("Hi"));
        QVERIFY(!request->stream);
    }

    void aBodyTheQuickScanRefusesIsRewrittenWithTheSameValues()
    {
        const Context c = native();
        const QByteArray body = R"({"model":"m","input":"a","input":"Hi","metadata":{"k":"v"}})"; // a repeated key
        const auto request = adapter().nativeRequest(u"openai_responses", body, HttpHeaders(), c.context());
        QVERIFY(request);
        const QJsonObject sent = QJsonDocument::fromJson(request->body).object();
        QCOMPARE(sent.value("model").toString(), QStringLiteral("gpt-5.4-2026"));
        QCOMPARE(sent.value("store"), QJsonValue(false));
        QCOMPARE(sent.value("metadata").toObject().value("k").toString(), QStringLiteral("v"));
    }

    void withoutTheFlagOrForAnotherApiTheRequestIsTranslated()
    {
        const Context off = native(false);
        QVERIFY(!adapter().nativeRequest(u"openai_responses", R"({"model":"m","input":"Hi"})", HttpHeaders(), off.context()));
        const Context on = native();
        QVERIFY(!adapter().nativeRequest(u"anthropic_messages", R"({"model":"m","messages":[]})", HttpHeaders(), on.context()));
        QVERIFY(!adapter().nativeRequest(u"openai_chat", R"({"model":"m","messages":[]})", HttpHeaders(), on.context()));
    }

    void theReferenceResponseIsReadForTheEngine()
    {
        OpenAiAnswer answer;
        TokenUsage usage;
        const Outcome outcome = adapter().classifyNativeAnswer(u"openai_responses", 200, json(), fixture(QStringLiteral("response.json")), &answer, &usage);
        QVERIFY(outcome.isSuccess());
        QCOMPARE(usage.promptTokens, 36);
        QCOMPARE(usage.completionTokens, 87);
        QCOMPARE(usage.cacheReadTokens, 0);
        const QJsonObject completion = QJsonDocument::fromJson(answer.toJson(QStringLiteral("client"), 1)).object();
        QCOMPARE(completion.value("object").toString(), QStringLiteral("chat.completion"));
        QCOMPARE(completion.value("model").toString(), QStringLiteral("client"));
        const QJsonObject message = completion.value("choices")[0]["message"].toObject();
        QVERIFY(message.value("content").toString().startsWith(QStringLiteral("In a peaceful grove beneath a silver moon")));
        QCOMPARE(completion.value("choices")[0]["finish_reason"].toString(), QStringLiteral("stop"));
        QCOMPARE(completion.value("usage")["prompt_tokens_details"]["cached_tokens"].toInt(), 0);
        QCOMPARE(completion.value("usage")["completion_tokens_details"]["reasoning_tokens"].toInt(), 0);
    }

    void theReferenceFunctionCallIsAToolCall()
    {
        OpenAiAnswer answer;
        TokenUsage usage;
        QVERIFY(adapter().classifyNativeAnswer(u"openai_responses", 200, json(), fixture(QStringLiteral("response_function_call.json")), &answer, &usage).isSuccess());
        const QJsonObject choice = QJsonDocument::fromJson(answer.toJson(QStringLiteral("client"), 1)).object().value("choices")[0].toObject();
        QCOMPARE(choice.value("finish_reason").toString(), QStringLiteral("tool_calls"));
        const QJsonObject call = choice.value("message")["tool_calls"][0].toObject();
        QCOMPARE(call.value("id").toString(), QStringLiteral("call_unLAR8MvFNptuiZK6K6HCy5k"));
        QCOMPARE(call.value("function")["name"].toString(), QStringLiteral("get_current_weather"));
        QCOMPARE(call.value("function")["arguments"].toString(), QStringLiteral("{\"location\":\"Boston, MA\",\"unit\":\"celsius\"}"));
        QVERIFY(choice.value("message")["content"].isNull());
        QCOMPARE(usage.totalTokens, 314);
    }

    void openAisErrorBodyIsClassifiedAsForChat()
    {
        OpenAiAnswer answer;
        TokenUsage usage;
        const Outcome notFound = adapter().classifyNativeAnswer(u"openai_responses", 404, json(), fixture(QStringLiteral("error.json")), &answer, &usage);
        QCOMPARE(notFound.kind, OutcomeKind::NonRetryableParamError);
        QCOMPARE(notFound.providerCode, QStringLiteral("model_not_found"));
        const QByteArray limited = R"({"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}})";
        QCOMPARE(adapter().classifyNativeAnswer(u"openai_responses", 429, json(), limited, &answer, &usage).kind, OutcomeKind::RetryableRateLimit);
    }

    void aFailedResponseIsAnErrorEvenBehindA200()
    {
        QJsonObject failed = QJsonDocument::fromJson(fixture(QStringLiteral("response.json"))).object();
        failed.insert("status", "failed");
        failed.insert("error", QJsonObject{{"code", "server_error"}, {"message", "The model failed to generate a response."}});
        OpenAiAnswer answer;
        TokenUsage usage;
        const Outcome outcome = adapter().classifyNativeAnswer(u"openai_responses", 200, json(), QJsonDocument(failed).toJson(), &answer, &usage);
        QCOMPARE(outcome.kind, OutcomeKind::ProviderDown);
        QCOMPARE(outcome.providerCode, QStringLiteral("server_error"));
    }

    void aBodyThatIsNoResponseIsAProviderFailure()
    {
        OpenAiAnswer answer;
        TokenUsage usage;
        QCOMPARE(adapter().classifyNativeAnswer(u"openai_responses", 200, json(), R"({"object":"chat.completion","choices":[]})", &answer, &usage).kind,
                 OutcomeKind::ProviderDown);
        QCOMPARE(adapter().classifyNativeAnswer(u"openai_responses", 200, json(), "<html>", &answer, &usage).kind, OutcomeKind::ProviderDown);
    }

    void aCustomToolCallIsReadInTheFormItWentUpIn()
    {
        const QJsonObject response{{"object", "response"}, {"status", "completed"},
                                   {"output", QJsonArray{QJsonObject{{"type", "custom_tool_call"}, {"call_id", "call_p"}, {"name", "apply_patch"}, {"input", "*** Begin Patch"}}}}};
        const QJsonObject completion = responsesupstream::chatCompletion(response, nullptr);
        const QJsonObject call = completion.value("choices")[0]["message"]["tool_calls"][0].toObject();
        QCOMPARE(call.value("function")["arguments"].toString(), QStringLiteral("{\"input\":\"*** Begin Patch\"}"));
    }
};

QTEST_GUILESS_MAIN(tst_ResponsesUpstream)
#include "tst_ResponsesUpstream.moc"
