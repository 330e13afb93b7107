// DashScopeAdapter: OpenAI chat.completions → DashScope native generation requests (URL, auth,
// SSE header, input/parameters body), embeddings, probe.
#include "providers/dashscope/DashScopeAdapter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

namespace {

const QString Key = QStringLiteral("sk-0123456789abcdef0123456789abcdef");

struct Context {
    ProviderConfig provider;
    ChannelConfig channel;
    AdapterContext ctx;
    explicit Context(QString baseUrl = QString())
    {
        provider.dialect = QStringLiteral("dashscope");
        provider.baseUrl = std::move(baseUrl);
        channel.upstreamModel = QStringLiteral("qwen-plus");
        ctx.provider = &provider;
        ctx.channel = &channel;
        ctx.apiKey = Key;
    }
};

QJsonObject parse(const QByteArray &bytes) { return QJsonDocument::fromJson(bytes).object(); }

QJsonObject conversation(bool stream)
{
    QJsonObject o = parse(R"({
      "model": "logical",
      "messages": [
        {"role": "developer", "content": "Answer in English."},
        {"role": "user", "content": [{"type": "text", "text": "Weather in"}, {"type": "text", "text": "Hangzhou?"}]},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "get_current_weather", "arguments": "{\u0022location\u0022:\u0022Hangzhou\u0022}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "name": "get_current_weather", "content": "24 C"}
      ],
      "temperature": 0.7, "top_p": 0.8, "max_tokens": 100, "stop": ["###"], "seed": 42, "n": 2,
      "tools": [{"type": "function", "function": {"name": "get_current_weather", "parameters": {"type": "object"}}}],
      "tool_choice": "auto",
      "stream_options": {"include_usage": true}
    })");
    o.insert("stream", stream);
    return o;
}

} // namespace

class tst_DashScopeAdapter : public QObject {
    Q_OBJECT
private slots:
    void identity()
    {
        const DashScopeAdapter a;
        QCOMPARE(a.dialect(), QStringLiteral("dashscope"));
        QVERIFY(a.defaultBaseUrl().startsWith(QLatin1String("https://")));
    }

    void nonStreamRequest()
    {
        Context c;
        const UpstreamRequest r = DashScopeAdapter().chatRequest(conversation(false), c.ctx);
        QVERIFY(!r.stream);
        QCOMPARE(r.url.toString(), QStringLiteral("https://dashscope.aliyuncs.com/api/v1/services/aigc/text-generation/generation"));
        QCOMPARE(r.headers.value("Authorization"), "Bearer " + Key.toUtf8());
        QVERIFY(!r.headers.contains("X-DashScope-SSE"));
        QVERIFY(!r.url.toString().contains(Key));
        QVERIFY(!r.body.contains(Key.toUtf8()));

        const QJsonObject body = parse(r.body);
        QCOMPARE(body.value("model").toString(), QStringLiteral("qwen-plus")); // the channel's model, not the caller's
        const QJsonArray messages = body.value("input").toObject().value("messages").toArray();
        QCOMPARE(messages.size(), 4);
        QCOMPARE(messages.at(0).toObject().value("role").toString(), QStringLiteral("system"));
        QCOMPARE(messages.at(1).toObject().value("content").toString(), QStringLiteral("Weather in\nHangzhou?"));
        QCOMPARE(messages.at(2).toObject().value("tool_calls").toArray().first().toObject().value("id").toString(), QStringLiteral("call_1"));
        QCOMPARE(messages.at(3).toObject().value("role").toString(), QStringLiteral("tool"));
        QCOMPARE(messages.at(3).toObject().value("tool_call_id").toString(), QStringLiteral("call_1"));

        const QJsonObject p = body.value("parameters").toObject();
        QCOMPARE(p.value("result_format").toString(), QStringLiteral("message"));
        QVERIFY(!p.contains("incremental_output"));
        QCOMPARE(p.value("temperature").toDouble(), 0.7);
        QCOMPARE(p.value("top_p").toDouble(), 0.8);
        QCOMPARE(p.value("max_tokens").toInt(), 100);
        QCOMPARE(p.value("seed").toInt(), 42);
        QVERIFY(!p.contains("n")); // only choice 0 is translated
        QCOMPARE(p.value("stop").toArray(), QJsonArray{QStringLiteral("###")});
        QCOMPARE(p.value("tools").toArray().size(), 1);
        QCOMPARE(p.value("tool_choice").toString(), QStringLiteral("auto"));
        QVERIFY(!p.contains("stream_options")); // an OpenAI-only field stays behind
    }

    void streamRequestAsksForIncrementalSse()
    {
        Context c;
        const UpstreamRequest r = DashScopeAdapter().chatRequest(conversation(true), c.ctx);
        QVERIFY(r.stream);
        QCOMPARE(r.headers.value("x-dashscope-sse"), QByteArray("enable"));
        // Without incremental_output every event repeats the whole text so far.
        QVERIFY(parse(r.body).value("parameters").toObject().value("incremental_output").toBool());
    }

    void baseUrlVariants_data()
    {
        QTest::addColumn<QString>("base");
        QTest::addColumn<QString>("expected");
        const QString tail = QStringLiteral("/api/v1/services/aigc/text-generation/generation");
        QTest::newRow("default") << "" << "https://dashscope.aliyuncs.com" + tail;
        QTest::newRow("api/v1") << "https://dashscope-intl.aliyuncs.com/api/v1" << "https://dashscope-intl.aliyuncs.com" + tail;
        QTest::newRow("trailing slash") << "https://dashscope-intl.aliyuncs.com/api/v1/" << "https://dashscope-intl.aliyuncs.com" + tail;
        QTest::newRow("local sim") << "http://127.0.0.1:9100" << "http://127.0.0.1:9100" + tail;
    }
    void baseUrlVariants()
    {
        QFETCH(QString, base);
        QFETCH(QString, expected);
        Context c(base);
        QCOMPARE(DashScopeAdapter().chatRequest(conversation(false), c.ctx).url.toString(), expected);
    }

    void probe()
    {
        Context c;
        const UpstreamRequest r = DashScopeAdapter().probeRequest(c.ctx);
        QCOMPARE(r.method, QByteArray("GET"));
        QCOMPARE(r.url.toString(), QStringLiteral("https://dashscope.aliyuncs.com/compatible-mode/v1/models"));
        QCOMPARE(r.headers.value("authorization"), "Bearer " + Key.toUtf8());
    }

    void embeddings()
    {
        Context c;
        c.channel.upstreamModel = QStringLiteral("text-embedding-v3");
        const auto r = DashScopeAdapter().embeddingsRequest(parse(R"({"model":"e","input":"hello","dimensions":512})"), c.ctx);
        QVERIFY(r.has_value());
        QVERIFY(r->url.toString().endsWith(QLatin1String("/api/v1/services/embeddings/text-embedding/text-embedding")));
        const QJsonObject body = parse(r->body);
        QCOMPARE(body.value("model").toString(), QStringLiteral("text-embedding-v3"));
        QCOMPARE(body.value("input").toObject().value("texts").toArray(), QJsonArray{QStringLiteral("hello")});
        QCOMPARE(body.value("parameters").toObject().value("dimension").toInt(), 512);

        TokenUsage usage;
        const QJsonObject out = DashScopeAdapter().embeddingsResponse(
            R"({"output":{"embeddings":[{"text_index":1,"embedding":[0.5]},{"text_index":0,"embedding":[0.25]}]},"usage":{"total_tokens":4}})",
            &usage);
        const QJsonArray data = out.value("data").toArray();
        QCOMPARE(data.size(), 2);
        QCOMPARE(data.at(0).toObject().value("index").toInt(), 1); // DashScope's own index is kept
        QCOMPARE(usage.totalTokens, 4);
        QCOMPARE(out.value("usage").toObject().value("prompt_tokens").toInt(), 4);
    }
};

QTEST_APPLESS_MAIN(tst_DashScopeAdapter)
#include "tst_DashScopeAdapter.moc"
