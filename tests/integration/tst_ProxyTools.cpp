// Tools / function calls through the proxy end to end: an OpenAI request with tools and a
// tool-call round trip goes through a real Gateway to a small fake upstream (sb::HttpServer on
// loopback) that records what it received and answers with the recorded wire fixtures. For
// openai_compat and anthropic it checks what the upstream saw (tools translated into the dialect)
// and what the client got back (tool_calls in OpenAI's format, streamed as chunk deltas or whole).
#include "ProxyClient.h"
#include "ProxyConfigs.h"
#include "ProxyUnderTest.h"
#include "StreamText.h"
#include "net/HttpServer.h"
#include "net/ResponseWriter.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>

using namespace sb;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

QByteArray fixture(const QString &relative)
{
    QFile file(QStringLiteral(SB_SOURCE_DIR "/tests/fixtures/") + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(relative));
    return file.readAll();
}

// What the fake upstream received, shared between its worker threads and the test.
struct Seen {
    QMutex mutex;
    QByteArray path;
    QJsonObject body;
    int requests = 0;
};
Seen seen;

// An OpenAI non-stream answer that calls a tool (OpenAI's documented shape).
const QByteArray kOpenAiToolAnswer = R"({"id":"chatcmpl-tools1","object":"chat.completion","created":1738960100,
"model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant","content":null,
"tool_calls":[{"id":"call_abc123","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris, France\"}"}}]},
"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":80,"completion_tokens":17,"total_tokens":97}})";

class ToolUpstream : public HttpHandler {
public:
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override
    {
        const QJsonObject body = QJsonDocument::fromJson(request.body).object();
        {
            QMutexLocker lock(&seen.mutex);
            seen.path = request.path;
            seen.body = body;
            ++seen.requests;
        }
        const bool stream = body.value("stream").toBool();
        const bool anthropic = request.path.endsWith("/messages");
        HttpHeaders headers;
        if (stream) {
            headers.set("Content-Type", "text/event-stream");
            response->startStream(200, headers);
            response->write(fixture(anthropic ? "anthropic/tool_use.sse" : "openai_compat/openai_tool_calls.sse"));
            response->finish();
            return;
        }
        headers.set("Content-Type", "application/json");
        response->send(200, headers, anthropic ? fixture("anthropic/message_200.json") : kOpenAiToolAnswer);
    }
};

const QJsonArray kTools{QJsonObject{
    {"type", "function"},
    {"function", QJsonObject{{"name", "get_weather"},
                             {"description", "Current weather in a city"},
                             {"parameters", QJsonObject{{"type", "object"},
                                                        {"properties", QJsonObject{{"location", QJsonObject{{"type", "string"}}}}},
                                                        {"required", QJsonArray{"location"}}}}}}}};

// A second turn: the assistant called the tool, the tool answered.
QJsonArray toolRoundTripMessages()
{
    return QJsonArray{
        QJsonObject{{"role", "user"}, {"content", "Weather in Paris?"}},
        QJsonObject{{"role", "assistant"},
                    {"content", QJsonValue::Null},
                    {"tool_calls", QJsonArray{QJsonObject{{"id", "call_1"},
                                                          {"type", "function"},
                                                          {"function", QJsonObject{{"name", "get_weather"},
                                                                                   {"arguments", "{\"location\":\"Paris\"}"}}}}}}},
        QJsonObject{{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "18 C, sunny"}},
    };
}

QByteArray toolRequest(const QString &model, bool stream)
{
    return QJsonDocument(QJsonObject{{"model", model},
                                     {"messages", toolRoundTripMessages()},
                                     {"tools", kTools},
                                     {"tool_choice", "required"},
                                     {"stream", stream}})
        .toJson(QJsonDocument::Compact);
}

// The tool calls an OpenAI stream carries, assembled from their deltas as an SDK does.
struct StreamedCalls {
    QString id;
    QString name;
    QString arguments;
    QString finishReason;
    bool done = false;
    bool allChunks = true; // every data line was a chat.completion.chunk
};

StreamedCalls assemble(const QByteArray &body)
{
    StreamedCalls out;
    for (const QByteArray &data : sseData(body)) {
        if (data == "[DONE]") {
            out.done = true;
            continue;
        }
        const QJsonObject chunk = QJsonDocument::fromJson(data).object();
        if (chunk.value("object").toString() != QLatin1String("chat.completion.chunk"))
            out.allChunks = false;
        for (const QJsonValue &c : chunk.value("choices").toArray()) {
            const QJsonObject choice = c.toObject();
            if (choice.value("finish_reason").isString())
                out.finishReason = choice.value("finish_reason").toString();
            for (const QJsonValue &t : choice.value("delta").toObject().value("tool_calls").toArray()) {
                const QJsonObject call = t.toObject();
                if (call.contains("id"))
                    out.id = call.value("id").toString();
                const QJsonObject function = call.value("function").toObject();
                if (function.contains("name"))
                    out.name = function.value("name").toString();
                out.arguments += function.value("arguments").toString();
            }
        }
    }
    return out;
}

} // namespace

class tst_ProxyTools : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{99};
    std::unique_ptr<HttpServer> m_upstream;
    ProxyUnderTest m_proxy{m_clock, m_random}; // the Gateway alone: the upstream is the test's own
    ProxyClient m_client;

    Reply post(const QByteArray &body) { return m_client.postChat(m_proxy.gateway->port(), body); }

    QJsonObject upstreamBody()
    {
        QMutexLocker lock(&seen.mutex);
        return seen.body;
    }

    QByteArray upstreamPath()
    {
        QMutexLocker lock(&seen.mutex);
        return seen.path;
    }

private slots:
    void initTestCase()
    {
        m_upstream = std::make_unique<HttpServer>(HttpServerLimits(), [](int) { return std::make_unique<ToolUpstream>(); }, 2);
        QString error;
        QVERIFY2(m_upstream->listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
        const QString base = QStringLiteral("http://127.0.0.1:%1/v1").arg(m_upstream->serverPort());

        auto config = loopbackConfig();
        addSingleChannelRoute(*config, QStringLiteral("openai"), base, QStringLiteral("gpt-4o"), QStringLiteral("gpt-4o/A"),
                              QStringLiteral("gpt-4o-2024-08-06"));
        addSingleChannelRoute(*config, QStringLiteral("anthropic"), base, QStringLiteral("claude"), QStringLiteral("claude/A"),
                              QStringLiteral("claude-sonnet-4-20250514"));
        config->providers[1].dialect = QStringLiteral("anthropic");
        QVERIFY2(m_proxy.startGateway(config, &error), qPrintable(error));
    }

    void cleanupTestCase()
    {
        m_proxy.stop();
        m_upstream->shutdown(500ms);
        m_upstream.reset();
    }

    void openAiCompatSeesTheToolsAsSent()
    {
        const Reply reply = post(toolRequest("gpt-4o", false));
        QCOMPARE(reply.status, 200);
        QCOMPARE(upstreamPath(), QByteArray("/v1/chat/completions"));
        const QJsonObject up = upstreamBody();
        QCOMPARE(up.value("model").toString(), QStringLiteral("gpt-4o-2024-08-06"));
        QCOMPARE(up.value("tools").toArray(), kTools);
        QCOMPARE(up.value("tool_choice").toString(), QStringLiteral("required"));
        QCOMPARE(up.value("messages").toArray(), toolRoundTripMessages());
    }

    void openAiCompatNonStreamToolCallsReachTheClient()
    {
        const Reply reply = post(toolRequest("gpt-4o", false));
        QCOMPARE(reply.status, 200);
        const QJsonObject choice = reply.json().value("choices").toArray().first().toObject();
        QCOMPARE(choice.value("finish_reason").toString(), QStringLiteral("tool_calls"));
        const QJsonObject call = choice.value("message").toObject().value("tool_calls").toArray().first().toObject();
        QCOMPARE(call.value("id").toString(), QStringLiteral("call_abc123"));
        QCOMPARE(call.value("type").toString(), QStringLiteral("function"));
        QCOMPARE(call.value("function").toObject().value("name").toString(), QStringLiteral("get_weather"));
        QCOMPARE(call.value("function").toObject().value("arguments").toString(), QStringLiteral("{\"location\":\"Paris, France\"}"));
        QCOMPARE(reply.json().value("model").toString(), QStringLiteral("gpt-4o")); // the client's model name
    }

    void openAiCompatStreamedToolCallDeltas()
    {
        const Reply reply = post(toolRequest("gpt-4o", true));
        QCOMPARE(reply.status, 200);
        QVERIFY(upstreamBody().value("stream").toBool());
        const StreamedCalls calls = assemble(reply.body);
        QVERIFY2(calls.allChunks, reply.body.constData());
        QVERIFY(calls.done);
        QCOMPARE(calls.id, QStringLiteral("call_DdmO9pD3xa9XTPNJ32zg2hcA"));
        QCOMPARE(calls.name, QStringLiteral("get_weather"));
        QCOMPARE(calls.arguments, QStringLiteral("{\"location\":\"Paris, France\"}"));
        QCOMPARE(calls.finishReason, QStringLiteral("tool_calls"));
    }

    void anthropicSeesToolsInItsOwnDialect()
    {
        const Reply reply = post(toolRequest("claude", false));
        QCOMPARE(reply.status, 200);
        QCOMPARE(upstreamPath(), QByteArray("/v1/messages"));
        const QJsonObject up = upstreamBody();
        QCOMPARE(up.value("model").toString(), QStringLiteral("claude-sonnet-4-20250514"));
        // OpenAI's {type, function{name, description, parameters}} becomes {name, description, input_schema}.
        const QJsonObject tool = up.value("tools").toArray().first().toObject();
        const QJsonObject function = kTools.first().toObject().value("function").toObject();
        QCOMPARE(tool.value("name").toString(), QStringLiteral("get_weather"));
        QCOMPARE(tool.value("description").toString(), function.value("description").toString());
        QCOMPARE(tool.value("input_schema").toObject(), function.value("parameters").toObject());
        QVERIFY(!tool.contains("function"));
        QCOMPARE(up.value("tool_choice").toObject().value("type").toString(), QStringLiteral("any")); // "required"
        // The round trip: the assistant's tool call is a tool_use block, the tool's answer a tool_result.
        bool toolUse = false;
        bool toolResult = false;
        for (const QJsonValue &m : up.value("messages").toArray()) {
            for (const QJsonValue &b : m.toObject().value("content").toArray()) {
                const QJsonObject block = b.toObject();
                if (block.value("type").toString() == QLatin1String("tool_use")) {
                    toolUse = true;
                    QCOMPARE(m.toObject().value("role").toString(), QStringLiteral("assistant"));
                    QCOMPARE(block.value("id").toString(), QStringLiteral("call_1"));
                    QCOMPARE(block.value("name").toString(), QStringLiteral("get_weather"));
                    QCOMPARE(block.value("input").toObject(), (QJsonObject{{"location", "Paris"}}));
                }
                if (block.value("type").toString() == QLatin1String("tool_result")) {
                    toolResult = true;
                    QCOMPARE(m.toObject().value("role").toString(), QStringLiteral("user"));
                    QCOMPARE(block.value("tool_use_id").toString(), QStringLiteral("call_1"));
                }
            }
        }
        QVERIFY2(toolUse, QJsonDocument(up).toJson().constData());
        QVERIFY2(toolResult, QJsonDocument(up).toJson().constData());
    }

    void anthropicNonStreamToolUseBecomesToolCalls()
    {
        const Reply reply = post(toolRequest("claude", false));
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.json().value("object").toString(), QStringLiteral("chat.completion"));
        const QJsonObject choice = reply.json().value("choices").toArray().first().toObject();
        QCOMPARE(choice.value("finish_reason").toString(), QStringLiteral("tool_calls"));
        const QJsonObject message = choice.value("message").toObject();
        QCOMPARE(message.value("content").toString(), QStringLiteral("I'll check the weather in San Francisco for you."));
        const QJsonObject call = message.value("tool_calls").toArray().first().toObject();
        QCOMPARE(call.value("id").toString(), QStringLiteral("toolu_01A09q90qw90lq917835lq9"));
        QCOMPARE(call.value("type").toString(), QStringLiteral("function"));
        QCOMPARE(call.value("function").toObject().value("name").toString(), QStringLiteral("get_weather"));
        const QJsonObject arguments = QJsonDocument::fromJson(call.value("function").toObject().value("arguments").toString().toUtf8()).object();
        QCOMPARE(arguments, (QJsonObject{{"location", "San Francisco, CA"}, {"unit", "celsius"}}));
    }

    void anthropicStreamedToolUseBecomesToolCallDeltas()
    {
        const Reply reply = post(toolRequest("claude", true));
        QCOMPARE(reply.status, 200);
        QVERIFY(upstreamBody().value("stream").toBool());
        const StreamedCalls calls = assemble(reply.body);
        QVERIFY2(calls.allChunks, reply.body.constData());
        QVERIFY2(calls.done, reply.body.constData());
        QCOMPARE(calls.id, QStringLiteral("toolu_01T1x1fJ34qAmk2tNTrN7Up6"));
        QCOMPARE(calls.name, QStringLiteral("get_weather"));
        const QJsonObject arguments = QJsonDocument::fromJson(calls.arguments.toUtf8()).object();
        QCOMPARE(arguments, (QJsonObject{{"location", "San Francisco, CA"}, {"unit", "fahrenheit"}}));
        QCOMPARE(calls.finishReason, QStringLiteral("tool_calls"));
    }
};

QTEST_GUILESS_MAIN(tst_ProxyTools)
#include "tst_ProxyTools.moc"
