// The Anthropic Messages front door end to end: a real Gateway on a loopback port in front of the
// simulator's providers, in every upstream dialect, asked in Anthropic's API. Each answer must be a
// well-formed message (or event stream, in the documented grammar, with whole UTF-8 characters),
// and a failure must come back in Anthropic's error shape with the statuses its SDKs act on.

#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyConfigs.h"
#include "ProxyUnderTest.h"
#include "RequestRecords.h"

#include "net/HttpServer.h"
#include "net/ResponseWriter.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>
#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

const RawHeaders kAnthropicHeaders{{"content-type", "application/json"}, {"anthropic-version", "2023-06-01"}};

QByteArray messagesBody(bool stream, const QString &model = QStringLiteral("gpt-4o"))
{
    QJsonObject body{{QStringLiteral("model"), model},
                     {QStringLiteral("max_tokens"), 256},
                     {QStringLiteral("system"), QStringLiteral("Answer briefly.")},
                     {QStringLiteral("messages"), QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                                                         {QStringLiteral("content"), QStringLiteral("Say something.")}}}}};
    if (stream)
        body.insert(QStringLiteral("stream"), true);
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

struct Event {
    QByteArray type;
    QJsonObject data;
};

// An SSE body as its events; a malformed one fails the test that reads it.
std::vector<Event> eventsOf(const QByteArray &body)
{
    std::vector<Event> events;
    for (const QByteArray &block : body.split('\n')) {
        if (block.startsWith("event: ")) {
            events.push_back(Event{block.mid(7), {}});
        } else if (block.startsWith("data: ")) {
            if (events.empty())
                return {};
            events.back().data = QJsonDocument::fromJson(block.mid(6)).object();
        }
    }
    return events;
}

// The grammar Anthropic documents: message_start; per block start, deltas, stop with contiguous
// indices from 0; message_delta; message_stop. Returns the text of the text blocks, or a reason.
QString checkGrammar(const std::vector<Event> &events, QString *text)
{
    if (events.size() < 4 || events.front().type != "message_start" || events.back().type != "message_stop")
        return QStringLiteral("not message_start … message_stop");
    if (events[events.size() - 2].type != "message_delta")
        return QStringLiteral("no message_delta before message_stop");
    int nextIndex = 0;
    int open = -1;
    for (std::size_t i = 1; i + 2 < events.size(); ++i) {
        const Event &e = events[i];
        const int index = e.data.value(QStringLiteral("index")).toInt(-1);
        if (e.data.value(QStringLiteral("type")).toString().toUtf8() != e.type)
            return QStringLiteral("event %1's data says another type").arg(QString::fromUtf8(e.type));
        if (e.type == "content_block_start") {
            if (open >= 0 || index != nextIndex)
                return QStringLiteral("block %1 started out of order").arg(index);
            open = index;
            ++nextIndex;
        } else if (e.type == "content_block_delta") {
            if (index != open)
                return QStringLiteral("a delta for block %1 while %2 is open").arg(index).arg(open);
            const QJsonObject delta = e.data.value(QStringLiteral("delta")).toObject();
            if (delta.value(QStringLiteral("type")) == QStringLiteral("text_delta"))
                *text += delta.value(QStringLiteral("text")).toString();
        } else if (e.type == "content_block_stop") {
            if (index != open)
                return QStringLiteral("block %1 stopped while %2 is open").arg(index).arg(open);
            open = -1;
        } else if (e.type != "ping") {
            return QStringLiteral("unexpected event %1").arg(QString::fromUtf8(e.type));
        }
    }
    if (open >= 0 || nextIndex == 0)
        return QStringLiteral("a block left open, or none at all");
    return {};
}


QByteArray fixture(const QString &relative)
{
    QFile file(QStringLiteral(SB_SOURCE_DIR "/tests/fixtures/") + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(relative));
    return file.readAll();
}

// An upstream the simulator cannot play: it calls a tool (OpenAI's or Anthropic's recorded answer,
// by the path it is asked on), or, for the model "overloaded", starts an Anthropic stream and fails
// right after its message_start, the everyday case of an early error. Records the last body.
class ToolUpstream : public HttpHandler {
public:
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override
    {
        const QJsonObject body = QJsonDocument::fromJson(request.body).object();
        {
            QMutexLocker lock(&s_mutex);
            s_lastBody = body;
            s_lastBytes = request.body;
            s_lastBeta = request.headers.value("anthropic-beta");
        }
        if (request.path.endsWith("/messages/count_tokens")) {
            HttpHeaders h;
            h.set("Content-Type", "application/json");
            response->send(200, h, QByteArrayLiteral("{\"input_tokens\":4242}"));
            return;
        }
        if (body.value(QStringLiteral("model")).toString() == QLatin1String("thinker")) {
            HttpHeaders h;
            const bool streamed = body.value(QStringLiteral("stream")).toBool();
            h.set("Content-Type", streamed ? "text/event-stream" : "application/json");
            if (streamed) {
                response->startStream(200, h);
                response->write(fixture(QStringLiteral("anthropic/thinking.sse")));
                response->finish();
            } else {
                response->send(200, h, fixture(QStringLiteral("anthropic/message_200.json")));
            }
            return;
        }
        const bool stream = body.value(QStringLiteral("stream")).toBool();
        const bool anthropic = request.path.endsWith("/messages");
        HttpHeaders headers;
        if (body.value(QStringLiteral("model")).toString() == QLatin1String("overloaded")) {
            headers.set("Content-Type", "text/event-stream");
            response->startStream(200, headers);
            const QByteArray midStream = fixture(QStringLiteral("anthropic/error_midstream.sse"));
            response->write(midStream.left(midStream.indexOf("event: content_block_start"))); // message_start alone
            response->write(fixture(QStringLiteral("anthropic/error_first.sse")));
            response->finish();
            return;
        }
        if (stream) {
            headers.set("Content-Type", "text/event-stream");
            response->startStream(200, headers);
            response->write(fixture(anthropic ? QStringLiteral("anthropic/tool_use.sse") : QStringLiteral("openai_compat/openai_tool_calls.sse")));
            response->finish();
            return;
        }
        headers.set("Content-Type", "application/json");
        response->send(200, headers, anthropic ? fixture(QStringLiteral("anthropic/message_200.json")) : openAiToolAnswer());
    }

    static QJsonObject lastBody()
    {
        QMutexLocker lock(&s_mutex);
        return s_lastBody;
    }
    static QByteArray lastBytes()
    {
        QMutexLocker lock(&s_mutex);
        return s_lastBytes;
    }
    static QByteArray lastBeta()
    {
        QMutexLocker lock(&s_mutex);
        return s_lastBeta;
    }

    // OpenAI's documented shape of an answer that calls a tool.
    static QByteArray openAiToolAnswer()
    {
        const QJsonObject call{{QStringLiteral("id"), QStringLiteral("call_abc123")},
                               {QStringLiteral("type"), QStringLiteral("function")},
                               {QStringLiteral("function"), QJsonObject{{QStringLiteral("name"), QStringLiteral("get_weather")},
                                                                        {QStringLiteral("arguments"), QStringLiteral("{\"location\":\"Paris, France\"}")}}}};
        const QJsonObject message{{QStringLiteral("role"), QStringLiteral("assistant")},
                                  {QStringLiteral("content"), QJsonValue::Null},
                                  {QStringLiteral("tool_calls"), QJsonArray{call}}};
        return QJsonDocument(QJsonObject{
                                 {QStringLiteral("id"), QStringLiteral("chatcmpl-tools1")},
                                 {QStringLiteral("object"), QStringLiteral("chat.completion")},
                                 {QStringLiteral("created"), 1738960100},
                                 {QStringLiteral("model"), QStringLiteral("gpt-4o-2024-08-06")},
                                 {QStringLiteral("choices"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                                                                    {QStringLiteral("message"), message},
                                                                                    {QStringLiteral("finish_reason"), QStringLiteral("tool_calls")}}}},
                                 {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), 80},
                                                                       {QStringLiteral("completion_tokens"), 17},
                                                                       {QStringLiteral("total_tokens"), 97}}}})
            .toJson(QJsonDocument::Compact);
    }

private:
    static inline QMutex s_mutex;
    static inline QJsonObject s_lastBody;
    static inline QByteArray s_lastBytes;
    static inline QByteArray s_lastBeta;
};

QByteArray toolRequest(const QString &model, bool stream, bool withResult)
{
    QJsonArray messages{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), QStringLiteral("Weather in Paris?")}}};
    if (withResult) {
        messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                    {QStringLiteral("content"), QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_use")},
                                                                                       {QStringLiteral("id"), QStringLiteral("toolu_9")},
                                                                                       {QStringLiteral("name"), QStringLiteral("get_weather")},
                                                                                       {QStringLiteral("input"), QJsonObject{{QStringLiteral("location"), QStringLiteral("Paris")}}}}}}});
        messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                    {QStringLiteral("content"), QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_result")},
                                                                                       {QStringLiteral("tool_use_id"), QStringLiteral("toolu_9")},
                                                                                       {QStringLiteral("content"), QStringLiteral("18 °C, rain")}}}}});
    }
    QJsonObject body{{QStringLiteral("model"), model}, {QStringLiteral("max_tokens"), 256}, {QStringLiteral("messages"), messages},
                     {QStringLiteral("tools"), QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("get_weather")},
                                                                      {QStringLiteral("description"), QStringLiteral("The weather in a city.")},
                                                                      {QStringLiteral("input_schema"), QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}}}}};
    if (stream)
        body.insert(QStringLiteral("stream"), true);
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

} // namespace

class tst_AnthropicFrontDoor : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{17};
    std::unique_ptr<ProxyUnderTest> m_proxy;
    ProxyClient m_client;

    quint16 port() const { return m_proxy->gateway->port(); }
    Reply messages(bool stream) { return m_client.request(port(), "POST", QStringLiteral("/v1/messages"), messagesBody(stream), kAnthropicHeaders); }

    void startOne(const QString &dialect, std::vector<FaultSpec> faults = {})
    {
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        ProviderSpec spec = fakeProviderSpec(QStringLiteral("primary"), std::move(faults));
        spec.dialect = dialect;
        QString error;
        QVERIFY2(m_proxy->start(spec, [&](EngineConfig &config) { config.providers.front().dialect = dialect; }, &error),
                 qPrintable(error));
    }

private slots:
    void cleanup()
    {
        if (m_proxy)
            m_proxy->stop();
        m_proxy.reset();
    }

    void everyDialectAnswersAMessage_data()
    {
        QTest::addColumn<QString>("dialect");
        for (const char *dialect : {"openai_compat", "anthropic", "gemini", "dashscope", "ernie"})
            QTest::newRow(dialect) << QString::fromLatin1(dialect);
    }
    void everyDialectAnswersAMessage()
    {
        QFETCH(QString, dialect);
        startOne(dialect);
        const Reply reply = messages(false);
        QCOMPARE(reply.status, 200);
        const QJsonObject message = reply.json();
        QCOMPARE(message.value(QStringLiteral("type")).toString(), QStringLiteral("message"));
        QCOMPARE(message.value(QStringLiteral("role")).toString(), QStringLiteral("assistant"));
        QCOMPARE(message.value(QStringLiteral("model")).toString(), QStringLiteral("gpt-4o"));
        QCOMPARE(message.value(QStringLiteral("stop_reason")).toString(), QStringLiteral("end_turn"));
        QVERIFY(message.value(QStringLiteral("id")).toString().startsWith(QStringLiteral("msg_")));
        const QJsonArray content = message.value(QStringLiteral("content")).toArray();
        QCOMPARE(content.size(), 1);
        QCOMPARE(content[0].toObject().value(QStringLiteral("type")).toString(), QStringLiteral("text"));
        QVERIFY(!content[0].toObject().value(QStringLiteral("text")).toString().isEmpty());
        QVERIFY(message.value(QStringLiteral("usage")).toObject().value(QStringLiteral("output_tokens")).toInt() > 0);
    }

    void everyDialectStreamsInTheDocumentedGrammar_data() { everyDialectAnswersAMessage_data(); }
    void everyDialectStreamsInTheDocumentedGrammar()
    {
        QFETCH(QString, dialect);
        startOne(dialect);
        const Reply reply = messages(true);
        QCOMPARE(reply.status, 200);
        QVERIFY(reply.headers.value("content-type").startsWith("text/event-stream"));
        const std::vector<Event> events = eventsOf(reply.body);
        QString text;
        const QString problem = checkGrammar(events, &text);
        QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(":\n") + QString::fromUtf8(reply.body.left(2000))));
        // The simulator cuts its chunks inside multi-byte characters (Chinese, Vietnamese): they
        // must arrive whole, never as replacement characters.
        QVERIFY(!text.isEmpty());
        QVERIFY2(!text.contains(QChar(0xFFFD)), qPrintable(text));
        const QJsonObject delta = events[events.size() - 2].data;
        QCOMPARE(delta.value(QStringLiteral("delta")).toObject().value(QStringLiteral("stop_reason")).toString(), QStringLiteral("end_turn"));
    }

    void aFailedPrimaryFailsOverUnseen()
    {
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        ProviderSpec primary = fakeProviderSpec(QStringLiteral("primary"), {always(SimError::Http503)});
        primary.dialect = QStringLiteral("anthropic");
        QString error;
        QVERIFY2(m_proxy->start(primary, fakeProviderSpec(QStringLiteral("fallback")),
                                [](EngineConfig &config) { config.providers.front().dialect = QStringLiteral("anthropic"); }, &error),
                 qPrintable(error));
        const Reply stream = messages(true);
        QCOMPARE(stream.status, 200);
        QCOMPARE(stream.headers.value("x-switchboard-failover"), QByteArray("true"));
        QString text;
        QVERIFY(checkGrammar(eventsOf(stream.body), &text).isEmpty());
    }

    void everyChannelDownIsOverloaded()
    {
        startOne(QStringLiteral("anthropic"), {always(SimError::Http503)});
        for (bool stream : {false, true}) {
            const Reply reply = messages(stream);
            QCOMPARE(reply.status, 529);
            const QJsonObject body = reply.json();
            QCOMPARE(body.value(QStringLiteral("type")).toString(), QStringLiteral("error"));
            QCOMPARE(body.value(QStringLiteral("error")).toObject().value(QStringLiteral("type")).toString(), QStringLiteral("overloaded_error"));
            QVERIFY(!body.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString().isEmpty());
        }
    }

    void aRateLimitSaysWhenToComeBack()
    {
        startOne(QStringLiteral("openai_compat"), {always(SimError::Http429RetryAfter)});
        const Reply reply = messages(false);
        QCOMPARE(reply.status, 429);
        QCOMPARE(reply.json().value(QStringLiteral("error")).toObject().value(QStringLiteral("type")).toString(), QStringLiteral("rate_limit_error"));
        QVERIFY(reply.headers.contains("retry-after"));
    }

    void badInputGetsAnthropicsOwn400()
    {
        startOne(QStringLiteral("openai_compat"));
        const Reply reply = m_client.request(port(), "POST", QStringLiteral("/v1/messages"),
                                             R"({"model":"gpt-4o","messages":[{"role":"user","content":"x"}]})", kAnthropicHeaders);
        QCOMPARE(reply.status, 400);
        const QJsonObject error = reply.json().value(QStringLiteral("error")).toObject();
        QCOMPARE(error.value(QStringLiteral("type")).toString(), QStringLiteral("invalid_request_error"));
        QVERIFY(error.value(QStringLiteral("message")).toString().contains(QStringLiteral("max_tokens")));
        const Reply unknown = m_client.request(port(), "POST", QStringLiteral("/v1/messages"), messagesBody(false, QStringLiteral("nope")),
                                               kAnthropicHeaders);
        QCOMPARE(unknown.status, 404);
        QCOMPARE(unknown.json().value(QStringLiteral("error")).toObject().value(QStringLiteral("type")).toString(), QStringLiteral("not_found_error"));
    }

    void modelsAndTokenCountsInAnthropicsShape()
    {
        startOne(QStringLiteral("openai_compat"));
        const Reply models = m_client.request(port(), "GET", QStringLiteral("/v1/models"), {}, kAnthropicHeaders);
        QCOMPARE(models.status, 200);
        QCOMPARE(models.json().value(QStringLiteral("data")).toArray().first().toObject().value(QStringLiteral("type")).toString(),
                 QStringLiteral("model"));
        QVERIFY(models.json().contains(QStringLiteral("has_more")));
        const Reply count = m_client.request(port(), "POST", QStringLiteral("/v1/messages/count_tokens"),
                                             R"({"model":"gpt-4o","messages":[{"role":"user","content":"Hello there, how are you today?"}]})",
                                             kAnthropicHeaders);
        QCOMPARE(count.status, 200);
        QVERIFY(count.json().value(QStringLiteral("input_tokens")).toInt() > 0);
        QCOMPARE(count.headers.value("x-switchboard-token-count"), QByteArray("estimate"));
    }

    void tokensAreCountedByAnAnthropicChannel()
    {
        HttpServer upstream(HttpServerLimits(), [](int) { return std::make_unique<ToolUpstream>(); }, 1);
        QString error;
        QVERIFY2(upstream.listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        auto config = oneChannelConfig(QStringLiteral("anthropic"), QStringLiteral("http://127.0.0.1:%1/v1").arg(upstream.serverPort()));
        config->providers.front().dialect = QStringLiteral("anthropic");
        config->channels.front().upstreamModel = QStringLiteral("claude-test");
        QVERIFY2(m_proxy->startGateway(config, &error), qPrintable(error));
        RawHeaders headers = kAnthropicHeaders;
        headers.append(qMakePair(QByteArray("anthropic-beta"), QByteArray("token-counting-2024-11-01")));
        const Reply count = m_client.request(port(), "POST", QStringLiteral("/v1/messages/count_tokens"),
                                             R"({"model":"gpt-4o","messages":[{"role":"user","content":"Hello there"}]})", headers);
        QCOMPARE(count.status, 200);
        QCOMPARE(count.headers.value("x-switchboard-token-count"), QByteArray("anthropic"));
        QCOMPARE(count.json().value(QStringLiteral("input_tokens")).toInt(), 4242);
        // The provider got the client's body with its own model, and the client's protocol headers.
        QCOMPARE(ToolUpstream::lastBody().value(QStringLiteral("model")).toString(), QStringLiteral("claude-test"));
        QCOMPARE(ToolUpstream::lastBeta(), QByteArray("token-counting-2024-11-01"));
        m_proxy->stop();
        m_proxy.reset();

        // A count that fails upstream is answered with the estimate, not an error.
        upstream.shutdown(500ms);
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        QVERIFY2(m_proxy->startGateway(config, &error), qPrintable(error));
        const Reply estimated = m_client.request(port(), "POST", QStringLiteral("/v1/messages/count_tokens"),
                                                 R"({"model":"gpt-4o","messages":[{"role":"user","content":"Hello there"}]})", kAnthropicHeaders);
        QCOMPARE(estimated.status, 200);
        QCOMPARE(estimated.headers.value("x-switchboard-token-count"), QByteArray("estimate"));
        QVERIFY(estimated.json().value(QStringLiteral("input_tokens")).toInt() > 0);
    }

    void aCachedAnswerIsServedAsAMessage()
    {
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        QString error;
        QVERIFY2(m_proxy->start(fakeProviderSpec(QStringLiteral("primary")), [](EngineConfig &config) { config.routes.front().cacheEnabled = true; }, &error),
                 qPrintable(error));
        const Reply first = messages(false);
        QCOMPARE(first.status, 200);
        QCOMPARE(first.headers.value("x-switchboard-cache"), QByteArray("miss"));
        const Reply again = messages(false);
        QCOMPARE(again.headers.value("x-switchboard-cache"), QByteArray("hit"));
        QCOMPARE(again.json().value(QStringLiteral("type")).toString(), QStringLiteral("message"));
        QCOMPARE(again.json().value(QStringLiteral("content")), first.json().value(QStringLiteral("content")));
        const Reply streamed = messages(true);
        QCOMPARE(streamed.headers.value("x-switchboard-cache"), QByteArray("hit"));
        QString text;
        const QString problem = checkGrammar(eventsOf(streamed.body), &text);
        QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(":\n") + QString::fromUtf8(streamed.body.left(2000))));
        QCOMPARE(text, first.json().value(QStringLiteral("content")).toArray()[0].toObject().value(QStringLiteral("text")).toString());
    }

    void theHistoryRecordsTheApiTheClientCalled()
    {
        startOne(QStringLiteral("gemini"));
        RequestRecords records; // the workers write the rows: read them under its lock
        records.attach(*m_proxy->gateway);
        QCOMPARE(messages(true).status, 200);
        QCOMPARE(m_client.postChat(port(), chatBody(false)).status, 200);
        QTRY_COMPARE(records.all().size(), std::size_t(2));
        const std::vector<RequestRecord> rows = records.all();
        QCOMPARE(rows[0].clientApi, QStringLiteral("anthropic_messages"));
        QCOMPARE(rows[1].clientApi, QStringLiteral("openai_chat"));
        QVERIFY(rows[0].outputTokens > 0);
    }

    void aToolCallComesBackAsToolUseAndItsResultGoesUp_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<bool>("stream");
        for (const char *dialect : {"openai_compat", "anthropic"})
            for (bool stream : {false, true})
                QTest::addRow("%s %s", dialect, stream ? "stream" : "whole") << QString::fromLatin1(dialect) << stream;
    }
    void aToolCallComesBackAsToolUseAndItsResultGoesUp()
    {
        QFETCH(QString, dialect);
        QFETCH(bool, stream);
        HttpServer upstream(HttpServerLimits(), [](int) { return std::make_unique<ToolUpstream>(); }, 1);
        QString error;
        QVERIFY2(upstream.listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        auto config = oneChannelConfig(QStringLiteral("tools"), QStringLiteral("http://127.0.0.1:%1/v1").arg(upstream.serverPort()));
        config->providers.front().dialect = dialect;
        QVERIFY2(m_proxy->startGateway(config, &error), qPrintable(error));

        // The model calls the tool: the client gets one tool_use block with the parsed input.
        const Reply call = m_client.request(port(), "POST", QStringLiteral("/v1/messages"), toolRequest(QStringLiteral("gpt-4o"), stream, false),
                                            kAnthropicHeaders);
        QCOMPARE(call.status, 200);
        QJsonObject toolUse;
        QString stopReason;
        if (stream) {
            const std::vector<Event> events = eventsOf(call.body);
            QString text;
            const QString problem = checkGrammar(events, &text);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            QString json;
            for (const Event &e : events) {
                if (e.type == "content_block_start" && e.data.value(QStringLiteral("content_block")).toObject().value(QStringLiteral("type")) == QStringLiteral("tool_use"))
                    toolUse = e.data.value(QStringLiteral("content_block")).toObject();
                if (e.type == "content_block_delta" && e.data.value(QStringLiteral("delta")).toObject().value(QStringLiteral("type")) == QStringLiteral("input_json_delta"))
                    json += e.data.value(QStringLiteral("delta")).toObject().value(QStringLiteral("partial_json")).toString();
            }
            toolUse.insert(QStringLiteral("input"), QJsonDocument::fromJson(json.toUtf8()).object());
            stopReason = events[events.size() - 2].data.value(QStringLiteral("delta")).toObject().value(QStringLiteral("stop_reason")).toString();
        } else {
            for (const QJsonValue &block : call.json().value(QStringLiteral("content")).toArray())
                if (block.toObject().value(QStringLiteral("type")) == QStringLiteral("tool_use"))
                    toolUse = block.toObject();
            stopReason = call.json().value(QStringLiteral("stop_reason")).toString();
        }
        QCOMPARE(stopReason, QStringLiteral("tool_use"));
        QCOMPARE(toolUse.value(QStringLiteral("name")).toString(), QStringLiteral("get_weather"));
        QVERIFY(!toolUse.value(QStringLiteral("id")).toString().isEmpty());
        QVERIFY2(!toolUse.value(QStringLiteral("input")).toObject().isEmpty(), qPrintable(QString::fromUtf8(call.body.left(1500))));

        // The client runs it and sends the result: the upstream gets it in its own dialect.
        const Reply after = m_client.request(port(), "POST", QStringLiteral("/v1/messages"), toolRequest(QStringLiteral("gpt-4o"), false, true),
                                             kAnthropicHeaders);
        QCOMPARE(after.status, 200);
        const QJsonArray upMessages = ToolUpstream::lastBody().value(QStringLiteral("messages")).toArray();
        const QByteArray sent = QJsonDocument(upMessages).toJson(QJsonDocument::Compact);
        if (dialect == QLatin1String("anthropic")) {
            QVERIFY2(sent.contains(R"("type":"tool_result")") && sent.contains("toolu_9") && sent.contains("18 °C, rain"), sent.constData());
        } else {
            QVERIFY2(sent.contains(R"("role":"tool")") && sent.contains(R"("tool_call_id":"toolu_9")") && sent.contains("18 °C, rain"), sent.constData());
            QVERIFY2(sent.contains(R"("tool_calls")"), sent.constData());
        }
        m_proxy->stop();
        m_proxy.reset();
        upstream.shutdown(500ms);
    }

    void aFailoverFromAnthropicToOpenAiInTheMiddleOfAToolLoop_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::newRow("whole") << false;
        QTest::newRow("stream") << true;
    }
    void aFailoverFromAnthropicToOpenAiInTheMiddleOfAToolLoop()
    {
        // The conversation holds a tool_use and its tool_result when the Anthropic channel fails:
        // the OpenAI-compatible fallback gets them as tool_calls and a tool message, and the client
        // an Anthropic answer it can go on with.
        QFETCH(bool, stream);
        HttpServer upstream(HttpServerLimits(), [](int) { return std::make_unique<ToolUpstream>(); }, 1);
        QString error;
        QVERIFY2(upstream.listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        ProviderSpec down = fakeProviderSpec(QStringLiteral("primary"), {always(SimError::Http503)});
        down.dialect = QStringLiteral("anthropic");
        QVERIFY2(m_proxy->startProviders(down, &error), qPrintable(error));
        auto config = twoChannelConfig(m_proxy->primary->baseUrl(), QStringLiteral("http://127.0.0.1:%1/v1").arg(upstream.serverPort()));
        config->providers[0].dialect = QStringLiteral("anthropic");
        QVERIFY2(m_proxy->startGateway(config, &error), qPrintable(error));

        const Reply reply = m_client.request(port(), "POST", QStringLiteral("/v1/messages"), toolRequest(QStringLiteral("gpt-4o"), stream, true),
                                             kAnthropicHeaders);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-failover"), QByteArray("true"));
        if (stream) {
            QString text;
            const QString problem = checkGrammar(eventsOf(reply.body), &text);
            QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(":\n") + QString::fromUtf8(reply.body.left(1500))));
        } else {
            QCOMPARE(reply.json().value(QStringLiteral("type")).toString(), QStringLiteral("message"));
            QCOMPARE(reply.json().value(QStringLiteral("stop_reason")).toString(), QStringLiteral("tool_use"));
        }
        const QByteArray sent = QJsonDocument(ToolUpstream::lastBody().value(QStringLiteral("messages")).toArray()).toJson(QJsonDocument::Compact);
        QVERIFY2(sent.contains(R"("role":"tool")") && sent.contains(R"("tool_call_id":"toolu_9")") && sent.contains("18 °C, rain")
                     && sent.contains(R"("tool_calls")"),
                 sent.constData());
        m_proxy->stop();
        m_proxy.reset();
        upstream.shutdown(500ms);
    }

    void anErrorRightAfterTheUpstreamsStartFailsOverUnseen()
    {
        // Anthropic's overloaded_error right after its own message_start: nothing has reached the
        // client yet, so the request goes to the other channel and the client sees one clean stream.
        HttpServer upstream(HttpServerLimits(), [](int) { return std::make_unique<ToolUpstream>(); }, 1);
        QString error;
        QVERIFY2(upstream.listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        QVERIFY2(m_proxy->startProviders(fakeProviderSpec(QStringLiteral("fallback")), &error), qPrintable(error));
        auto config = twoChannelConfig(QStringLiteral("http://127.0.0.1:%1/v1").arg(upstream.serverPort()), m_proxy->primary->baseUrl());
        config->providers[0].dialect = QStringLiteral("anthropic");
        for (ChannelConfig &channel : config->channels)
            if (channel.providerId == config->providers[0].id)
                channel.upstreamModel = QStringLiteral("overloaded");
        QVERIFY2(m_proxy->startGateway(config, &error), qPrintable(error));
        const Reply reply = messages(true);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-failover"), QByteArray("true"));
        QCOMPARE(reply.headers.value("x-switchboard-attempts"), QByteArray("2"));
        QString text;
        const QString problem = checkGrammar(eventsOf(reply.body), &text);
        QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(":\n") + QString::fromUtf8(reply.body.left(1500))));
        QVERIFY(!reply.body.contains("event: error"));
        m_proxy->stop();
        m_proxy.reset();
        upstream.shutdown(500ms);
    }

    void anAnthropicUpstreamGetsTheRequestAsSent()
    {
        HttpServer upstream(HttpServerLimits(), [](int) { return std::make_unique<ToolUpstream>(); }, 1);
        QString error;
        QVERIFY2(upstream.listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        auto config = oneChannelConfig(QStringLiteral("claude"), QStringLiteral("http://127.0.0.1:%1/v1").arg(upstream.serverPort()),
                                       QStringLiteral("claude"));
        config->providers.front().dialect = QStringLiteral("anthropic");
        config->channels.front().upstreamModel = QStringLiteral("thinker");
        QVERIFY2(m_proxy->startGateway(config, &error), qPrintable(error));

        // A second turn as Claude Code sends it: the earlier thinking block with its signature,
        // cache_control marks, and fields and betas the engine has no use for.
        const QByteArray body = fixture(QStringLiteral("anthropic_messages/request_second_turn.json"));
        QVERIFY(body.contains("\"signature\":\"EqQBCgIYAhIM"));
        RawHeaders headers = kAnthropicHeaders;
        headers.append(qMakePair(QByteArray("anthropic-beta"), QByteArray("interleaved-thinking-2025-05-14,context-management-2025-06-27")));
        const Reply reply = m_client.request(port(), "POST", QStringLiteral("/v1/messages"), body, headers);
        QCOMPARE(reply.status, 200);

        // Upstream: the client's bytes, the model aside.
        QByteArray expected = body;
        expected.replace(QByteArray("\"model\":\"claude\""), QByteArray("\"model\":\"thinker\""));
        QCOMPARE(ToolUpstream::lastBytes(), expected);
        QCOMPARE(ToolUpstream::lastBeta(), QByteArray("interleaved-thinking-2025-05-14,context-management-2025-06-27"));

        // Downstream: the provider's events as they came (thinking, its signature), message_start
        // naming the model the client asked for.
        const QByteArray sent = fixture(QStringLiteral("anthropic/thinking.sse"));
        for (const QByteArray &line : sent.split('\n'))
            if (line.startsWith("data: ") && !line.contains("message_start"))
                QVERIFY2(reply.body.contains(line), line.constData());
        const std::vector<Event> events = eventsOf(reply.body);
        QCOMPARE(events.front().data.value(QStringLiteral("message")).toObject().value(QStringLiteral("model")).toString(), QStringLiteral("claude"));
        QString text;
        QVERIFY(checkGrammar(events, &text).isEmpty());

        // A whole answer: the provider's message, named for the client's model.
        QByteArray whole = body;
        whole.replace(QByteArray("\"stream\":true,"), QByteArray());
        const Reply answer = m_client.request(port(), "POST", QStringLiteral("/v1/messages"), whole, headers);
        QCOMPARE(answer.status, 200);
        QJsonObject expectedMessage = QJsonDocument::fromJson(fixture(QStringLiteral("anthropic/message_200.json"))).object();
        expectedMessage.insert(QStringLiteral("model"), QStringLiteral("claude"));
        QCOMPARE(answer.json(), expectedMessage);
        m_proxy->stop();
        m_proxy.reset();
        upstream.shutdown(500ms);
    }

    void theLocalTokenIsTakenFromXApiKey()
    {
        startOne(QStringLiteral("openai_compat"));
        auto config = std::make_shared<EngineConfig>(*m_proxy->gateway->config());
        config->proxy.localToken = QStringLiteral("local-secret-token");
        m_proxy->gateway->applyConfig(config);
        QCOMPARE(messages(false).status, 401);
        QCOMPARE(messages(false).json().value(QStringLiteral("error")).toObject().value(QStringLiteral("type")).toString(),
                 QStringLiteral("authentication_error"));
        RawHeaders withKey = kAnthropicHeaders;
        withKey.append(qMakePair(QByteArray("x-api-key"), QByteArray("local-secret-token")));
        QCOMPARE(m_client.request(port(), "POST", QStringLiteral("/v1/messages"), messagesBody(false), withKey).status, 200);
    }
};

QTEST_GUILESS_MAIN(tst_AnthropicFrontDoor)
#include "tst_AnthropicFrontDoor.moc"
