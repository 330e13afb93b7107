// ErnieAdapter: OpenAI chat.completions → Qianfan v1 wenxinworkshop requests (endpoint URL with the
// access token as query parameter, system field, alternating turns, clamped sampling parameters).
#include "providers/ernie/ErnieAdapter.h"

#include "AnswerTable.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUrlQuery>
#include <QtTest>

using namespace sb;

namespace {

const QString Token = QStringLiteral("24.6c5e1ff107f0e8bcef8c46d3424a0e78.2592000.1485516651.282335-8574074");

struct Context {
    ProviderConfig provider;
    ChannelConfig channel;
    AdapterContext ctx;
    explicit Context(QString baseUrl = QString())
    {
        provider.dialect = QStringLiteral("ernie");
        provider.baseUrl = std::move(baseUrl);
        channel.upstreamModel = QStringLiteral("completions_pro");
        ctx.provider = &provider;
        ctx.channel = &channel;
        ctx.apiKey = Token;
    }
};

QJsonObject parse(const QByteArray &bytes) { return QJsonDocument::fromJson(bytes).object(); }

constexpr OutcomeKind Down = OutcomeKind::ProviderDown;
constexpr OutcomeKind Ok = OutcomeKind::Success;

const QByteArray kAnswer = R"({"id":"as-1","object":"chat.completion","created":1693449573,"result":"hi","is_truncated":false,)"
                           R"("need_clear_history":false,"finish_reason":"normal","usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}})";

QByteArray sseEvent(const QByteArray &data)
{
    return "data: " + data + "\n\n";
}

} // namespace

class tst_ErnieAdapter : public QObject {
    Q_OBJECT
private slots:
    void identity()
    {
        const ErnieAdapter a;
        QCOMPARE(a.dialect(), QStringLiteral("ernie"));
        QVERIFY(a.defaultBaseUrl().startsWith(QLatin1String("https://")));
    }

    void endpointAndToken()
    {
        Context c;
        const UpstreamRequest r = ErnieAdapter().chatRequest(parse(R"({"model":"x","messages":[{"role":"user","content":"hi"}],"stream":true})"), c.ctx);
        QVERIFY(r.stream);
        QCOMPARE(r.url.scheme() + "://" + r.url.host() + r.url.path(),
                 QStringLiteral("https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro"));
        QCOMPARE(QUrlQuery(r.url).queryItemValue(QStringLiteral("access_token"), QUrl::FullyDecoded), Token);
        QVERIFY(!r.body.contains(Token.toUtf8()));
        QVERIFY(parse(r.body).value("stream").toBool());
    }

    void localBaseUrl()
    {
        Context c(QStringLiteral("http://127.0.0.1:9200/"));
        const UpstreamRequest r = ErnieAdapter().chatRequest(parse(R"({"messages":[{"role":"user","content":"hi"}]})"), c.ctx);
        QCOMPARE(r.url.path(), QStringLiteral("/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro"));
        QCOMPARE(r.url.port(), 9200);
        QVERIFY(!r.stream);
    }

    void bodyTranslation()
    {
        const QJsonObject e = ErnieAdapter::translateBody(parse(R"({
          "messages": [
            {"role": "system", "content": "You are concise."},
            {"role": "assistant", "content": "Hello, how can I help?"},
            {"role": "user", "content": "First part."},
            {"role": "user", "content": [{"type": "text", "text": "Second part."}]},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "call_0", "type": "function",
                "function": {"name": "get_current_weather", "arguments": "{\u0022location\u0022:\u0022Beijing\u0022}"}}]},
            {"role": "tool", "tool_call_id": "call_0", "content": "{\u0022temperature\u0022:25}"}
          ],
          "temperature": 1.6, "top_p": 0.5, "max_tokens": 512, "stop": "END", "user": "u-1",
          "tools": [{"type": "function", "function": {"name": "get_current_weather", "description": "weather",
                     "parameters": {"type": "object", "properties": {"location": {"type": "string"}}}}}]
        })"));
        QCOMPARE(e.value("system").toString(), QStringLiteral("You are concise."));
        const QJsonArray m = e.value("messages").toArray();
        // The opening assistant turn is dropped (ERNIE: the first turn must be the user's) and the
        // two user turns are joined, so the roles alternate.
        QCOMPARE(m.size(), 3);
        QCOMPARE(m.at(0).toObject().value("role").toString(), QStringLiteral("user"));
        QCOMPARE(m.at(0).toObject().value("content").toString(), QStringLiteral("First part.\n\nSecond part."));
        QCOMPARE(m.at(1).toObject().value("role").toString(), QStringLiteral("assistant"));
        QCOMPARE(m.at(1).toObject().value("function_call").toObject().value("name").toString(), QStringLiteral("get_current_weather"));
        QCOMPARE(m.at(2).toObject().value("role").toString(), QStringLiteral("function"));
        QCOMPARE(m.at(2).toObject().value("name").toString(), QStringLiteral("get_current_weather"));

        QCOMPARE(e.value("temperature").toDouble(), 1.0); // ERNIE's ceiling, not OpenAI's 2
        QCOMPARE(e.value("top_p").toDouble(), 0.5);
        QCOMPARE(e.value("max_output_tokens").toInt(), 512);
        QCOMPARE(e.value("stop").toArray(), QJsonArray{QStringLiteral("END")});
        QCOMPARE(e.value("user_id").toString(), QStringLiteral("u-1"));
        QCOMPARE(e.value("functions").toArray().first().toObject().value("name").toString(), QStringLiteral("get_current_weather"));
        QVERIFY(!e.contains("stream"));
    }

    void zeroTemperatureIsClampedAboveZero()
    {
        const QJsonObject e = ErnieAdapter::translateBody(parse(R"({"messages":[{"role":"user","content":"x"}],"temperature":0})"));
        QVERIFY(e.value("temperature").toDouble() > 0.0); // ERNIE rejects 0 with a parameter error
    }

    void probeIsATinyChat()
    {
        Context c;
        const UpstreamRequest r = ErnieAdapter().probeRequest(c.ctx);
        QCOMPARE(r.method, QByteArray("POST"));
        QVERIFY(r.url.path().endsWith(QLatin1String("/chat/completions_pro")));
        const QJsonObject body = parse(r.body);
        QCOMPARE(body.value("messages").toArray().size(), 1);
        QCOMPARE(body.value("max_output_tokens").toInt(), 2);
    }

    void embeddings()
    {
        Context c;
        c.channel.upstreamModel = QStringLiteral("embedding-v1");
        const auto r = ErnieAdapter().embeddingsRequest(parse(R"({"input":["a","b"]})"), c.ctx);
        QVERIFY(r.has_value());
        QVERIFY(r->url.path().endsWith(QLatin1String("/wenxinworkshop/embeddings/embedding-v1")));
        QCOMPARE(parse(r->body).value("input").toArray().size(), 2);

        TokenUsage usage;
        const QJsonObject out = ErnieAdapter().embeddingsResponse(
            R"({"data":[{"object":"embedding","embedding":[0.1],"index":0}],"usage":{"prompt_tokens":3,"total_tokens":3}})", &usage);
        QCOMPARE(out.value("data").toArray().size(), 1);
        QCOMPARE(usage.promptTokens, 3);
    }

    // A 2xx that is not a chat answer is the provider's failure, never an empty success.
    void malformed2xxIsProviderDown_data()
    {
        test::addAnswerRows({
            {"{}", "{}", Down},
            {"no result", R"({"id":"as-1","object":"chat.completion","created":1})", Down},
            {"a result that is null", R"({"id":"as-1","result":null})", Down},
            {"an empty result, no finish reason", R"({"id":"as-1","result":"","is_truncated":false,"need_clear_history":false})", Down},
            {"an embeddings list to a chat request", R"({"data":[{"embedding":[0.1]}]})", Down},
            {"an event stream", sseEvent(kAnswer), Down, false, "text/event-stream"},
            {"not JSON", "<html><body>Bad gateway</body></html>", Down, false, "text/html"},
            {"truncated", kAnswer.left(kAnswer.size() / 2), Down},
            {"an empty embeddings list", R"({"data":[]})", Down, true},
            {"a chat answer to an embeddings request", kAnswer, Down, true},
        });
    }
    void malformed2xxIsProviderDown() { test::checkAnswerRow(ErnieAdapter()); }

    void minimalAnswersSucceed_data()
    {
        test::addAnswerRows({
            {"a whole answer", kAnswer, Ok},
            {"only a result", R"({"result":"hi"})", Ok},
            {"an empty result stopped by length", R"({"result":"","finish_reason":"length"})", Ok},
            {"a function call", R"({"result":"","function_call":{"name":"f","arguments":"{}"}})", Ok},
            {"refused content", R"({"result":"","need_clear_history":true})", Ok},
            {"embeddings", R"({"data":[{"object":"embedding","embedding":[0.1],"index":0}],"usage":{"prompt_tokens":2,"total_tokens":2}})", Ok, true},
        });
    }
    void minimalAnswersSucceed() { test::checkAnswerRow(ErnieAdapter()); }

    void errorsInA200AreJudgedByAllTheirFields_data()
    {
        test::addAnswerRows({
            {"a request-fault code saying the service is busy", R"({"error_code":336003,"error_msg":"the service is busy, please try again later"})",
             Down},
            {"a request-fault code, plainly", R"({"error_code":336007,"error_msg":"the max length of current question is 11200"})",
             OutcomeKind::NonRetryableParamError},
            {"invalid parameter", R"({"error_code":100,"error_msg":"Invalid parameter"})", OutcomeKind::NonRetryableParamError},
            {"the QPS limit", R"({"error_code":18,"error_msg":"Open api qps request limit reached"})", OutcomeKind::RetryableRateLimit},
            {"an invalid token", R"({"error_code":110,"error_msg":"Access token invalid or no longer valid"})", OutcomeKind::AuthError},
            {"a code nobody knows", R"({"error_code":99999,"error_msg":"?"})", Down},
        });
    }
    void errorsInA200AreJudgedByAllTheirFields() { test::checkAnswerRow(ErnieAdapter()); }

    void streamsThatAreNoAnswerFailBeforeContent_data()
    {
        test::addStreamRows({
            {"an empty sentence, then a clean close", sseEvent(R"({"id":"as-1","sentence_id":0,"is_end":false,"result":""})"), Down},
            {"a first event whose fields disagree", sseEvent(R"({"error_code":336003,"error_msg":"the service is busy, please try again later"})"),
             Down},
            {"a first event that is the caller's", sseEvent(R"({"error_code":336007,"error_msg":"the max length of current question is 11200"})"),
             OutcomeKind::NonRetryableParamError},
            {"a JSON body, not SSE", kAnswer, Down},
            {"the end, stopped by length, no text", sseEvent(R"({"id":"as-1","is_end":true,"result":"","finish_reason":"length"})"), Ok},
        });
    }
    void streamsThatAreNoAnswerFailBeforeContent() { test::checkStreamRow(ErnieAdapter()); }
};

QTEST_APPLESS_MAIN(tst_ErnieAdapter)
#include "tst_ErnieAdapter.moc"
