// ErnieAdapter: OpenAI chat.completions → Qianfan v1 wenxinworkshop requests (endpoint URL with the
// access token as query parameter, system field, alternating turns, clamped sampling parameters).
#include "providers/ernie/ErnieAdapter.h"

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
};

QTEST_APPLESS_MAIN(tst_ErnieAdapter)
#include "tst_ErnieAdapter.moc"
