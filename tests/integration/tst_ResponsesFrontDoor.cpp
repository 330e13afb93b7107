// The Responses API front door end to end: a real Gateway on a loopback port in front of the
// simulator's providers in every upstream dialect (or an upstream that calls tools), asked in
// OpenAI's Responses API. Each answer must be a well-formed response object or event stream
// (documented event order, sequence numbers without gaps, stable item ids, whole UTF-8
// characters); conversations continue from the store, across a restart on the same SQLite file.

#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyConfigs.h"
#include "ProxyUnderTest.h"

#include "net/HttpServer.h"
#include "net/ResponseWriter.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

const RawHeaders kJson{{"content-type", "application/json"}};

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject userMessage(const QString &text)
{
    return QJsonObject{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), text}};
}

QByteArray responsesBody(bool stream, const QJsonValue &input = QStringLiteral("Say something."))
{
    QJsonObject body{{QStringLiteral("model"), QStringLiteral("gpt-4o")},
                     {QStringLiteral("instructions"), QStringLiteral("Answer briefly.")},
                     {QStringLiteral("input"), input}};
    if (stream)
        body.insert(QStringLiteral("stream"), true);
    return compact(body);
}

struct Event {
    QByteArray type;
    QJsonObject data;
};

std::vector<Event> eventsOf(const QByteArray &body)
{
    std::vector<Event> events;
    for (const QByteArray &line : body.split('\n')) {
        if (line.startsWith("event: "))
            events.push_back(Event{line.mid(7), {}});
        else if (line.startsWith("data: ") && !events.empty())
            events.back().data = QJsonDocument::fromJson(line.mid(6)).object();
    }
    return events;
}

// The order OpenAI documents: response.created, response.in_progress, then each output item
// added … done (its parts and deltas between, all naming the item's id), one item at a time,
// and one terminal event; sequence_number 0, 1, 2 … Returns the streamed text, or a reason.
QString checkStream(const std::vector<Event> &events, QString *text, QByteArray *terminal)
{
    if (events.size() < 3 || events[0].type != "response.created" || events[1].type != "response.in_progress")
        return QStringLiteral("not response.created, response.in_progress …");
    QString openItem;
    int nextOutput = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const Event &e = events[i];
        if (e.data.value(QStringLiteral("type")).toString().toUtf8() != e.type)
            return QStringLiteral("event %1's data says another type").arg(QString::fromUtf8(e.type));
        if (e.data.value(QStringLiteral("sequence_number")).toInt(-1) != int(i))
            return QStringLiteral("event %1 has sequence_number %2").arg(i).arg(e.data.value(QStringLiteral("sequence_number")).toInt(-1));
        const QString itemId = e.data.value(QStringLiteral("item_id")).toString();
        if (e.type == "response.output_item.added") {
            if (!openItem.isEmpty() || e.data.value(QStringLiteral("output_index")).toInt(-1) != nextOutput)
                return QStringLiteral("item %1 added out of order").arg(nextOutput);
            openItem = e.data.value(QStringLiteral("item")).toObject().value(QStringLiteral("id")).toString();
            if (openItem.isEmpty())
                return QStringLiteral("an item without an id");
        } else if (e.type == "response.output_item.done") {
            if (e.data.value(QStringLiteral("item")).toObject().value(QStringLiteral("id")).toString() != openItem)
                return QStringLiteral("item %1 done under another id").arg(openItem);
            openItem.clear();
            ++nextOutput;
        } else if (!itemId.isEmpty() && itemId != openItem) {
            return QStringLiteral("%1 names item %2 while %3 is open").arg(QString::fromUtf8(e.type), itemId, openItem);
        }
        if (e.type == "response.output_text.delta")
            *text += e.data.value(QStringLiteral("delta")).toString();
        const bool last = i + 1 == events.size();
        const bool isTerminal = e.type == "response.completed" || e.type == "response.incomplete" || e.type == "response.failed";
        if (isTerminal != last)
            return QStringLiteral("the terminal event is not the last one (%1)").arg(QString::fromUtf8(e.type));
        if (isTerminal)
            *terminal = e.type;
    }
    return openItem.isEmpty() ? QString() : QStringLiteral("item %1 left open").arg(openItem);
}

QString outputText(const QJsonObject &response)
{
    QString text;
    for (const QJsonValue &item : response.value(QStringLiteral("output")).toArray())
        for (const QJsonValue &part : item.toObject().value(QStringLiteral("content")).toArray())
            if (part.toObject().value(QStringLiteral("type")) == QStringLiteral("output_text"))
                text += part.toObject().value(QStringLiteral("text")).toString();
    return text;
}

QByteArray fixture(const QString &relative)
{
    QFile file(QStringLiteral(SB_SOURCE_DIR "/tests/fixtures/") + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(relative));
    return file.readAll();
}

// An OpenAI-compatible upstream that calls get_weather when it is offered and no tool result is in
// the conversation, and otherwise says which user messages it was given. Records the last body.
class RecordingUpstream : public HttpHandler {
public:
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override
    {
        const QJsonObject body = QJsonDocument::fromJson(request.body).object();
        {
            QMutexLocker lock(&s_mutex);
            s_lastBody = body;
        }
        const QJsonArray messages = body.value(QStringLiteral("messages")).toArray();
        bool hasToolResult = false;
        QStringList heard;
        for (const QJsonValue &m : messages) {
            const QJsonObject message = m.toObject();
            hasToolResult |= message.value(QStringLiteral("role")) == QStringLiteral("tool");
            if (message.value(QStringLiteral("role")) == QStringLiteral("user") && message.value(QStringLiteral("content")).isString())
                heard << message.value(QStringLiteral("content")).toString();
        }
        const bool stream = body.value(QStringLiteral("stream")).toBool();
        const bool call = body.contains(QStringLiteral("tools")) && !hasToolResult;
        HttpHeaders headers;
        headers.set("Content-Type", stream ? "text/event-stream" : "application/json");
        if (call && stream) {
            response->startStream(200, headers);
            response->write(fixture(QStringLiteral("openai_compat/openai_tool_calls.sse")));
            response->finish();
            return;
        }
        const QString text = QStringLiteral("heard: ") + heard.join(QStringLiteral(" | "));
        if (stream) {
            response->startStream(200, headers);
            const QJsonObject delta{{QStringLiteral("content"), text}};
            for (const QJsonObject &choice : {QJsonObject{{QStringLiteral("index"), 0}, {QStringLiteral("delta"), delta}},
                                              QJsonObject{{QStringLiteral("index"), 0}, {QStringLiteral("delta"), QJsonObject{}},
                                                          {QStringLiteral("finish_reason"), QStringLiteral("stop")}}})
                response->write("data: " + compact(QJsonObject{{QStringLiteral("id"), QStringLiteral("chatcmpl-r")},
                                                               {QStringLiteral("object"), QStringLiteral("chat.completion.chunk")},
                                                               {QStringLiteral("choices"), QJsonArray{choice}}}) + "\n\n");
            response->write("data: [DONE]\n\n");
            response->finish();
            return;
        }
        QJsonObject message{{QStringLiteral("role"), QStringLiteral("assistant")}, {QStringLiteral("content"), text}};
        QString finish = QStringLiteral("stop");
        if (call) {
            message = QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                  {QStringLiteral("content"), QJsonValue::Null},
                                  {QStringLiteral("tool_calls"), QJsonArray{QJsonObject{
                                                                     {QStringLiteral("id"), QStringLiteral("call_abc123")},
                                                                     {QStringLiteral("type"), QStringLiteral("function")},
                                                                     {QStringLiteral("function"), QJsonObject{{QStringLiteral("name"), QStringLiteral("get_weather")},
                                                                                                              {QStringLiteral("arguments"), QStringLiteral("{\"location\":\"Paris, France\"}")}}}}}}};
            finish = QStringLiteral("tool_calls");
        }
        response->send(200, headers,
                       compact(QJsonObject{{QStringLiteral("id"), QStringLiteral("chatcmpl-r")},
                                           {QStringLiteral("object"), QStringLiteral("chat.completion")},
                                           {QStringLiteral("choices"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                                                                              {QStringLiteral("message"), message},
                                                                                              {QStringLiteral("finish_reason"), finish}}}},
                                           {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), 20},
                                                                                 {QStringLiteral("completion_tokens"), 5},
                                                                                 {QStringLiteral("total_tokens"), 25}}}}));
    }

    static QJsonObject lastBody()
    {
        QMutexLocker lock(&s_mutex);
        return s_lastBody;
    }

private:
    static inline QMutex s_mutex;
    static inline QJsonObject s_lastBody;
};

QJsonArray weatherTool()
{
    return QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("function")},
                                  {QStringLiteral("name"), QStringLiteral("get_weather")},
                                  {QStringLiteral("description"), QStringLiteral("The weather in a city.")},
                                  {QStringLiteral("parameters"), QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                                                                             {QStringLiteral("properties"), QJsonObject{{QStringLiteral("location"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}}}}}}};
}

// An upstream that serves OpenAI's Responses API (a provider with responses_api): answers each
// request with a response object saying which user texts its input held, and records the body.
class ResponsesNativeUpstream : public HttpHandler {
public:
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override
    {
        const QJsonObject body = QJsonDocument::fromJson(request.body).object();
        {
            QMutexLocker lock(&s_mutex);
            s_lastBody = body;
            s_lastPath = request.path;
        }
        QStringList heard;
        for (const QJsonValue &value : body.value(QStringLiteral("input")).toArray()) {
            const QJsonObject item = value.toObject();
            if (item.value(QStringLiteral("role")) != QStringLiteral("user"))
                continue;
            for (const QJsonValue &part : item.value(QStringLiteral("content")).toArray())
                heard << part.toObject().value(QStringLiteral("text")).toString();
        }
        const QJsonObject message{{QStringLiteral("id"), QStringLiteral("msg_upstream1")}, {QStringLiteral("type"), QStringLiteral("message")},
                                  {QStringLiteral("status"), QStringLiteral("completed")}, {QStringLiteral("role"), QStringLiteral("assistant")},
                                  {QStringLiteral("content"), QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("output_text")},
                                                                                     {QStringLiteral("text"), QStringLiteral("heard: ") + heard.join(QStringLiteral(" | "))},
                                                                                     {QStringLiteral("annotations"), QJsonArray()}}}}};
        HttpHeaders headers;
        headers.set("Content-Type", "application/json");
        response->send(200, headers,
                       compact(QJsonObject{{QStringLiteral("id"), QStringLiteral("resp_upstream1")}, {QStringLiteral("object"), QStringLiteral("response")},
                                           {QStringLiteral("created_at"), 1741476542}, {QStringLiteral("status"), QStringLiteral("completed")},
                                           {QStringLiteral("error"), QJsonValue::Null}, {QStringLiteral("model"), body.value(QStringLiteral("model"))},
                                           {QStringLiteral("output"), QJsonArray{message}}, {QStringLiteral("store"), false},
                                           {QStringLiteral("previous_response_id"), QJsonValue::Null},
                                           {QStringLiteral("usage"), QJsonObject{{QStringLiteral("input_tokens"), 30},
                                                                                 {QStringLiteral("input_tokens_details"), QJsonObject{{QStringLiteral("cached_tokens"), 10}}},
                                                                                 {QStringLiteral("output_tokens"), 7},
                                                                                 {QStringLiteral("output_tokens_details"), QJsonObject{{QStringLiteral("reasoning_tokens"), 3}}},
                                                                                 {QStringLiteral("total_tokens"), 37}}}}));
    }

    static QJsonObject lastBody()
    {
        QMutexLocker lock(&s_mutex);
        return s_lastBody;
    }
    static QByteArray lastPath()
    {
        QMutexLocker lock(&s_mutex);
        return s_lastPath;
    }

private:
    static inline QMutex s_mutex;
    static inline QJsonObject s_lastBody;
    static inline QByteArray s_lastPath;
};

// The simulator's ids: an answer from its Responses API (the upstream's own items) or from its chat
// completions, translated by the front door (the proxy's item ids).
bool fromTheUpstreamsResponsesApi(const QJsonObject &response)
{
    const QJsonArray output = response.value(QStringLiteral("output")).toArray();
    return !output.isEmpty() && output.first().toObject().value(QStringLiteral("id")).toString().startsWith(QStringLiteral("msg_sim"));
}

} // namespace

class tst_ResponsesFrontDoor : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{23};
    std::unique_ptr<ProxyUnderTest> m_proxy;
    std::unique_ptr<HttpServer> m_upstream;
    ProxyClient m_client;

    quint16 port() const { return m_proxy->gateway->port(); }
    Reply post(const QByteArray &body) { return m_client.request(port(), "POST", QStringLiteral("/v1/responses"), body, kJson); }
    Reply get(const QString &path) { return m_client.request(port(), "GET", path); }

    void startOne(const QString &dialect, std::vector<FaultSpec> faults = {})
    {
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        ProviderSpec spec = fakeProviderSpec(QStringLiteral("primary"), std::move(faults));
        spec.dialect = dialect;
        spec.language = Language::Mixed; // cut inside multi-byte characters
        QString error;
        QVERIFY2(m_proxy->start(spec, [&](EngineConfig &config) { config.providers.front().dialect = dialect; }, &error), qPrintable(error));
    }

    // The gateway in front of a RecordingUpstream; its stored responses in `database` when given.
    void startRecording(const QString &database = {})
    {
        if (!m_upstream) {
            m_upstream = std::make_unique<HttpServer>(HttpServerLimits(), [](int) { return std::make_unique<RecordingUpstream>(); }, 1);
            QString error;
            QVERIFY2(m_upstream->listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
        }
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        QString error;
        QVERIFY2(m_proxy->startGateway(oneChannelConfig(QStringLiteral("recording"), QStringLiteral("http://127.0.0.1:%1/v1").arg(m_upstream->serverPort())), &error),
                 qPrintable(error));
        if (!database.isEmpty())
            QVERIFY2(m_proxy->gateway->context().responses().open(database, &error), qPrintable(error));
    }

    // The primary as an OpenAI upstream that serves the Responses API itself (responses_api), the
    // fallback, when given, in `fallbackDialect`.
    void startNative(std::vector<FaultSpec> primaryFaults, const QString &fallbackDialect = {}, std::vector<FaultSpec> fallbackFaults = {},
                     bool fallbackNative = false, bool continueStreams = true)
    {
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        QString error;
        ProviderSpec primary = fakeProviderSpec(QStringLiteral("primary"), std::move(primaryFaults));
        if (fallbackDialect.isEmpty()) {
            QVERIFY2(m_proxy->start(primary, [](EngineConfig &config) { config.providers.front().responsesApi = true; }, &error), qPrintable(error));
            return;
        }
        ProviderSpec fallback = fakeProviderSpec(QStringLiteral("fallback"), std::move(fallbackFaults));
        fallback.dialect = fallbackDialect;
        QVERIFY2(m_proxy->start(primary, fallback,
                                [&](EngineConfig &config) {
                                    config.retry.continueStreams = continueStreams;
                                    config.providers[0].responsesApi = !fallbackNative;
                                    config.providers[1].dialect = fallbackDialect;
                                    config.providers[1].responsesApi = fallbackNative;
                                },
                                &error),
                 qPrintable(error));
    }

    void stopProxy()
    {
        if (m_proxy)
            m_proxy->stop();
        m_proxy.reset();
    }

private slots:
    void cleanup()
    {
        stopProxy();
        if (m_upstream)
            m_upstream->shutdown(500ms);
        m_upstream.reset();
    }

    void everyDialectAnswersAResponse_data()
    {
        QTest::addColumn<QString>("dialect");
        for (const char *dialect : {"openai_compat", "anthropic", "gemini", "dashscope", "ernie"})
            QTest::newRow(dialect) << QString::fromLatin1(dialect);
    }
    void everyDialectAnswersAResponse()
    {
        QFETCH(QString, dialect);
        startOne(dialect);
        const Reply reply = post(responsesBody(false));
        QCOMPARE(reply.status, 200);
        const QJsonObject response = reply.json();
        QCOMPARE(response.value(QStringLiteral("object")).toString(), QStringLiteral("response"));
        QCOMPARE(response.value(QStringLiteral("status")).toString(), QStringLiteral("completed"));
        QCOMPARE(response.value(QStringLiteral("model")).toString(), QStringLiteral("gpt-4o"));
        QCOMPARE(response.value(QStringLiteral("instructions")).toString(), QStringLiteral("Answer briefly."));
        QVERIFY(response.value(QStringLiteral("id")).toString().startsWith(QStringLiteral("resp_")));
        const QString text = outputText(response);
        QVERIFY(!text.isEmpty());
        QVERIFY2(!text.contains(QChar(0xFFFD)), qPrintable(text));
        const QJsonObject usage = response.value(QStringLiteral("usage")).toObject();
        QVERIFY(usage.value(QStringLiteral("output_tokens")).toInt() > 0);
        QVERIFY(usage.value(QStringLiteral("input_tokens_details")).toObject().contains(QStringLiteral("cached_tokens")));
        QVERIFY(usage.value(QStringLiteral("output_tokens_details")).toObject().contains(QStringLiteral("reasoning_tokens")));
    }

    void everyDialectStreamsInTheDocumentedOrder_data() { everyDialectAnswersAResponse_data(); }
    void everyDialectStreamsInTheDocumentedOrder()
    {
        QFETCH(QString, dialect);
        startOne(dialect);
        const Reply reply = post(responsesBody(true));
        QCOMPARE(reply.status, 200);
        QVERIFY(reply.headers.value("content-type").startsWith("text/event-stream"));
        const std::vector<Event> events = eventsOf(reply.body);
        QString text;
        QByteArray terminal;
        const QString problem = checkStream(events, &text, &terminal);
        QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(":\n") + QString::fromUtf8(reply.body.left(2000))));
        QCOMPARE(terminal, QByteArray("response.completed"));
        QVERIFY(!text.isEmpty());
        QVERIFY2(!text.contains(QChar(0xFFFD)), qPrintable(text));
        const QJsonObject final = events.back().data.value(QStringLiteral("response")).toObject();
        QCOMPARE(outputText(final), text);
        QVERIFY(final.value(QStringLiteral("usage")).toObject().value(QStringLiteral("output_tokens")).toInt() > 0);
    }

    void aFailedPrimaryFailsOverUnseen()
    {
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        QString error;
        QVERIFY2(m_proxy->start(fakeProviderSpec(QStringLiteral("primary"), {always(SimError::Http503)}), fakeProviderSpec(QStringLiteral("fallback")),
                                [](EngineConfig &) {}, &error),
                 qPrintable(error));
        const Reply reply = post(responsesBody(true));
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-failover"), QByteArray("true"));
        QString text;
        QByteArray terminal;
        const QString problem = checkStream(eventsOf(reply.body), &text, &terminal);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(terminal, QByteArray("response.completed"));
    }

    void aStreamBrokenAfterItsFirstTextEndsWithResponseFailed()
    {
        FaultSpec cut = always(SimError::MidStreamError);
        startOne(QStringLiteral("openai_compat"), {cut});
        const Reply reply = post(responsesBody(true));
        QCOMPARE(reply.status, 200);
        const std::vector<Event> events = eventsOf(reply.body);
        QVERIFY(!events.empty());
        QCOMPARE(events.back().type, QByteArray("response.failed"));
        const QJsonObject failed = events.back().data.value(QStringLiteral("response")).toObject();
        QCOMPARE(failed.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
        QVERIFY(!failed.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString().isEmpty());
    }

    void failuresComeBackInOpenAisErrorShape()
    {
        startOne(QStringLiteral("openai_compat"), {always(SimError::Http503)});
        // The status chat completions answers when every channel failed, in the same shape.
        const Reply chat = m_client.postChat(port(), chatBody(false));
        QVERIFY(chat.status >= 500);
        for (bool stream : {false, true}) {
            const Reply reply = post(responsesBody(stream));
            QCOMPARE(reply.status, chat.status);
            QCOMPARE(reply.errorCode(), chat.errorCode());
            QVERIFY(!reply.error().value(QStringLiteral("message")).toString().isEmpty());
        }
        const Reply unknownModel = post(compact(QJsonObject{{QStringLiteral("model"), QStringLiteral("no-such-route")}, {QStringLiteral("input"), QStringLiteral("x")}}));
        QCOMPARE(unknownModel.status, 404);
        QVERIFY(!unknownModel.error().isEmpty());
    }

    void badInputGetsOpenAis400()
    {
        startOne(QStringLiteral("openai_compat"));
        QJsonObject builtIn{{QStringLiteral("model"), QStringLiteral("gpt-4o")},
                            {QStringLiteral("input"), QStringLiteral("x")},
                            {QStringLiteral("tools"), QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("web_search")}}}}};
        const Reply tool = post(compact(builtIn));
        QCOMPARE(tool.status, 400);
        QCOMPARE(tool.error().value(QStringLiteral("param")).toString(), QStringLiteral("tools[0].type"));
        QVERIFY(tool.error().value(QStringLiteral("message")).toString().contains(QStringLiteral("web_search")));
        const Reply noModel = post(compact(QJsonObject{{QStringLiteral("input"), QStringLiteral("x")}}));
        QCOMPARE(noModel.status, 400);
        QCOMPARE(noModel.error().value(QStringLiteral("param")).toString(), QStringLiteral("model"));
        const Reply notJson = post("{\"model\": ");
        QCOMPARE(notJson.status, 400);
        QCOMPARE(notJson.error().value(QStringLiteral("type")).toString(), QStringLiteral("invalid_request_error"));
        const Reply wrongMethod = m_client.request(port(), "PUT", QStringLiteral("/v1/responses/resp_1"));
        QCOMPARE(wrongMethod.status, 405);
        QVERIFY(!wrongMethod.error().isEmpty());
    }

    void aFunctionCallComesBackAndItsOutputGoesUp_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::newRow("whole") << false;
        QTest::newRow("stream") << true;
    }
    void aFunctionCallComesBackAndItsOutputGoesUp()
    {
        QFETCH(bool, stream);
        startRecording();
        QJsonObject ask{{QStringLiteral("model"), QStringLiteral("gpt-4o")},
                        {QStringLiteral("input"), QStringLiteral("Weather in Paris?")},
                        {QStringLiteral("tools"), weatherTool()}};
        if (stream)
            ask.insert(QStringLiteral("stream"), true);
        const Reply first = post(compact(ask));
        QCOMPARE(first.status, 200);
        QJsonObject response;
        if (stream) {
            const std::vector<Event> events = eventsOf(first.body);
            QString text;
            QByteArray terminal;
            const QString problem = checkStream(events, &text, &terminal);
            QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(":\n") + QString::fromUtf8(first.body.left(3000))));
            bool sawArgumentsDone = false;
            for (const Event &e : events)
                sawArgumentsDone |= e.type == "response.function_call_arguments.done";
            QVERIFY(sawArgumentsDone);
            response = events.back().data.value(QStringLiteral("response")).toObject();
        } else {
            response = first.json();
        }
        QJsonObject call;
        for (const QJsonValue &item : response.value(QStringLiteral("output")).toArray())
            if (item.toObject().value(QStringLiteral("type")) == QStringLiteral("function_call"))
                call = item.toObject();
        QCOMPARE(call.value(QStringLiteral("name")).toString(), QStringLiteral("get_weather"));
        QVERIFY(!call.value(QStringLiteral("call_id")).toString().isEmpty());
        QVERIFY2(QJsonDocument::fromJson(call.value(QStringLiteral("arguments")).toString().toUtf8()).object().contains(QStringLiteral("location")),
                 qPrintable(call.value(QStringLiteral("arguments")).toString()));

        // The client runs the function and continues the stored conversation with its output.
        const QJsonObject output{{QStringLiteral("type"), QStringLiteral("function_call_output")},
                                 {QStringLiteral("call_id"), call.value(QStringLiteral("call_id"))},
                                 {QStringLiteral("output"), QStringLiteral("18 °C, rain")}};
        const Reply after = post(compact(QJsonObject{{QStringLiteral("model"), QStringLiteral("gpt-4o")},
                                                     {QStringLiteral("previous_response_id"), response.value(QStringLiteral("id"))},
                                                     {QStringLiteral("tools"), weatherTool()},
                                                     {QStringLiteral("input"), QJsonArray{output}}}));
        QCOMPARE(after.status, 200);
        QCOMPARE(after.json().value(QStringLiteral("previous_response_id")), response.value(QStringLiteral("id")));
        const QByteArray sent = QJsonDocument(RecordingUpstream::lastBody().value(QStringLiteral("messages")).toArray()).toJson(QJsonDocument::Compact);
        QVERIFY2(sent.contains("Weather in Paris?") && sent.contains("\"tool_calls\"") && sent.contains("\"role\":\"tool\"")
                     && sent.contains(call.value(QStringLiteral("call_id")).toString().toUtf8()) && sent.contains("18 °C, rain"),
                 sent.constData());
    }

    void aConversationContinuesAcrossARestart()
    {
        QTemporaryDir dir;
        const QString database = dir.filePath(QStringLiteral("switchboard.db"));
        startRecording(database);
        const Reply first = post(responsesBody(false, QStringLiteral("My name is Lan.")));
        QCOMPARE(first.status, 200);
        const QString id = first.json().value(QStringLiteral("id")).toString();
        stopProxy(); // the store is written out as the gateway goes

        startRecording(database);
        const Reply next = post(compact(QJsonObject{{QStringLiteral("model"), QStringLiteral("gpt-4o")},
                                                    {QStringLiteral("previous_response_id"), id},
                                                    {QStringLiteral("input"), QStringLiteral("What is my name?")}}));
        QCOMPARE(next.status, 200);
        // The upstream heard both turns: the first read back from SQLite, then the new one; the
        // first answer came along as the assistant's turn.
        QCOMPARE(outputText(next.json()), QStringLiteral("heard: My name is Lan. | What is my name?"));
        const QJsonArray messages = RecordingUpstream::lastBody().value(QStringLiteral("messages")).toArray();
        bool sawFirstAnswer = false;
        for (const QJsonValue &m : messages)
            sawFirstAnswer |= m.toObject().value(QStringLiteral("role")) == QStringLiteral("assistant");
        QVERIFY2(sawFirstAnswer, QJsonDocument(messages).toJson().constData());
        // The previous turn's instructions are not carried over, as OpenAI documents.
        QCOMPARE(messages.first().toObject().value(QStringLiteral("role")).toString(), QStringLiteral("user"));
    }

    void storedResponsesAreReadListedAndDeleted()
    {
        startRecording();
        const QJsonArray input{userMessage(QStringLiteral("one")), userMessage(QStringLiteral("two")), userMessage(QStringLiteral("three"))};
        const Reply created = post(responsesBody(false, input));
        QCOMPARE(created.status, 200);
        const QString id = created.json().value(QStringLiteral("id")).toString();

        const Reply read = get(QStringLiteral("/v1/responses/") + id);
        QCOMPARE(read.status, 200);
        QCOMPARE(read.json(), created.json());

        const Reply items = get(QStringLiteral("/v1/responses/%1/input_items?order=asc&limit=2").arg(id));
        QCOMPARE(items.status, 200);
        const QJsonObject list = items.json();
        QCOMPARE(list.value(QStringLiteral("object")).toString(), QStringLiteral("list"));
        const QJsonArray page = list.value(QStringLiteral("data")).toArray();
        QCOMPARE(page.size(), 2);
        QCOMPARE(page[0].toObject().value(QStringLiteral("type")).toString(), QStringLiteral("message"));
        QVERIFY(list.value(QStringLiteral("has_more")).toBool());
        const Reply rest = get(QStringLiteral("/v1/responses/%1/input_items?order=asc&after=%2").arg(id, list.value(QStringLiteral("last_id")).toString()));
        QCOMPARE(rest.json().value(QStringLiteral("data")).toArray().size(), 1);
        QVERIFY(!rest.json().value(QStringLiteral("has_more")).toBool());
        const Reply newestFirst = get(QStringLiteral("/v1/responses/%1/input_items").arg(id));
        QCOMPARE(newestFirst.json().value(QStringLiteral("first_id")), rest.json().value(QStringLiteral("first_id")));

        const Reply deleted = m_client.request(port(), "DELETE", QStringLiteral("/v1/responses/") + id);
        QCOMPARE(deleted.status, 200);
        QCOMPARE(deleted.json().value(QStringLiteral("deleted")).toBool(), true);
        QCOMPARE(get(QStringLiteral("/v1/responses/") + id).status, 404);
        QCOMPARE(m_client.request(port(), "DELETE", QStringLiteral("/v1/responses/") + id).status, 404);
        const Reply unknown = get(QStringLiteral("/v1/responses/resp_unknown"));
        QCOMPARE(unknown.status, 404);
        QVERIFY(unknown.error().value(QStringLiteral("message")).toString().contains(QStringLiteral("resp_unknown")));

        QJsonObject unstored = QJsonDocument::fromJson(responsesBody(false)).object();
        unstored.insert(QStringLiteral("store"), false);
        const Reply notKept = post(compact(unstored));
        QCOMPARE(notKept.status, 200);
        QCOMPARE(get(QStringLiteral("/v1/responses/") + notKept.json().value(QStringLiteral("id")).toString()).status, 404);
        const Reply continued = post(compact(QJsonObject{{QStringLiteral("model"), QStringLiteral("gpt-4o")},
                                                         {QStringLiteral("previous_response_id"), notKept.json().value(QStringLiteral("id"))},
                                                         {QStringLiteral("input"), QStringLiteral("x")}}));
        QCOMPARE(continued.status, 404);
        QCOMPARE(continued.errorCode(), QStringLiteral("previous_response_not_found"));
        QCOMPARE(continued.error().value(QStringLiteral("param")).toString(), QStringLiteral("previous_response_id"));
    }

    void aCachedAnswerIsServedAsAResponseAndStored()
    {
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        QString error;
        QVERIFY2(m_proxy->start(fakeProviderSpec(QStringLiteral("primary")), [](EngineConfig &config) { config.routes.front().cacheEnabled = true; }, &error),
                 qPrintable(error));
        const Reply first = post(responsesBody(false));
        QCOMPARE(first.status, 200);
        QCOMPARE(first.headers.value("x-switchboard-cache"), QByteArray("miss"));
        const Reply again = post(responsesBody(false));
        QCOMPARE(again.status, 200);
        QCOMPARE(again.headers.value("x-switchboard-cache"), QByteArray("hit"));
        const QJsonObject hit = again.json();
        QCOMPARE(hit.value(QStringLiteral("object")).toString(), QStringLiteral("response"));
        QCOMPARE(outputText(hit), outputText(first.json()));
        QVERIFY(hit.value(QStringLiteral("id")) != first.json().value(QStringLiteral("id"))); // a response of its own
        QCOMPARE(get(QStringLiteral("/v1/responses/") + hit.value(QStringLiteral("id")).toString()).status, 200);
        // The same entry streamed, in the Responses events; and asked in chat completions.
        const Reply streamed = post(responsesBody(true));
        QCOMPARE(streamed.headers.value("x-switchboard-cache"), QByteArray("hit"));
        QString text;
        QByteArray terminal;
        const QString problem = checkStream(eventsOf(streamed.body), &text, &terminal);
        QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(":\n") + QString::fromUtf8(streamed.body.left(2000))));
        QCOMPARE(text, outputText(first.json()));
    }

    void theHistoryRecordsTheApiTheClientCalled()
    {
        startOne(QStringLiteral("openai_compat"));
        std::vector<RequestRecord> rows;
        QMutex mutex;
        m_proxy->gateway->context().setRequestSink([&](RequestRecord &&row) {
            QMutexLocker lock(&mutex);
            rows.push_back(std::move(row));
        });
        QCOMPARE(post(responsesBody(false)).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT([&] { QMutexLocker lock(&mutex); return !rows.empty(); }(), 5000);
        QMutexLocker lock(&mutex);
        QCOMPARE(rows.back().clientApi, QStringLiteral("openai_responses"));
        QVERIFY(rows.back().outputTokens > 0);
        m_proxy->gateway->context().setRequestSink({});
    }

    void aResponsesNativeUpstreamAnswersWithItsOwnResponse()
    {
        startNative({});
        const Reply reply = post(responsesBody(false));
        QCOMPARE(reply.status, 200);
        const QJsonObject response = reply.json();
        QVERIFY2(fromTheUpstreamsResponsesApi(response), reply.body.constData()); // its own item ids: it was not translated
        const QString id = response.value(QStringLiteral("id")).toString();
        QVERIFY(id.startsWith(QStringLiteral("resp_")) && !id.startsWith(QStringLiteral("resp_sim"))); // Switchboard's id
        QCOMPARE(response.value(QStringLiteral("model")).toString(), QStringLiteral("gpt-4o"));
        QCOMPARE(response.value(QStringLiteral("store")), QJsonValue(true)); // what the client asked, not the upstream's false
        QVERIFY(!outputText(response).isEmpty());
        QVERIFY(response.value(QStringLiteral("usage")).toObject().value(QStringLiteral("output_tokens")).toInt() > 0);
        const Reply stored = get(QStringLiteral("/v1/responses/") + id);
        QCOMPARE(stored.status, 200);
        QCOMPARE(stored.json(), response);
    }

    void aResponsesNativeUpstreamStreamsItsOwnEvents()
    {
        startNative({});
        const Reply reply = post(responsesBody(true));
        QCOMPARE(reply.status, 200);
        const std::vector<Event> events = eventsOf(reply.body);
        QString text;
        QByteArray terminal;
        const QString problem = checkStream(events, &text, &terminal);
        QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(":\n") + QString::fromUtf8(reply.body.left(2000))));
        QCOMPARE(terminal, QByteArray("response.completed"));
        QVERIFY2(!text.contains(QChar(0xFFFD)), qPrintable(text));
        const QJsonObject final = events.back().data.value(QStringLiteral("response")).toObject();
        QVERIFY(fromTheUpstreamsResponsesApi(final));
        QCOMPARE(events.front().data.value(QStringLiteral("response")).toObject().value(QStringLiteral("id")), final.value(QStringLiteral("id")));
        QVERIFY(!final.value(QStringLiteral("id")).toString().startsWith(QStringLiteral("resp_sim")));
        QCOMPARE(final.value(QStringLiteral("model")).toString(), QStringLiteral("gpt-4o"));
        QCOMPARE(outputText(final), text);
        const Reply stored = get(QStringLiteral("/v1/responses/") + final.value(QStringLiteral("id")).toString());
        QCOMPARE(stored.json(), final); // what the client got is what is kept
    }

    void anEarlyFailureOfTheNativeUpstreamFailsOverUnseen_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::addColumn<QString>("fallbackDialect");
        QTest::newRow("stream to anthropic") << true << QStringLiteral("anthropic");
        QTest::newRow("whole to anthropic") << false << QStringLiteral("anthropic");
        QTest::newRow("stream to a chat-only openai") << true << QStringLiteral("openai_compat");
    }
    void anEarlyFailureOfTheNativeUpstreamFailsOverUnseen()
    {
        // response.created, response.in_progress, then response.failed: nothing was content, so the
        // client never sees the first attempt; the translated writer answers from the fallback.
        QFETCH(bool, stream);
        QFETCH(QString, fallbackDialect);
        startNative({always(SimError::FirstEventError)}, fallbackDialect);
        const Reply reply = post(responsesBody(stream));
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-failover"), QByteArray("true"));
        QJsonObject final;
        if (stream) {
            const std::vector<Event> events = eventsOf(reply.body);
            QString text;
            QByteArray terminal;
            const QString problem = checkStream(events, &text, &terminal);
            QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(":\n") + QString::fromUtf8(reply.body.left(2000))));
            QCOMPARE(terminal, QByteArray("response.completed"));
            QVERIFY(!reply.body.contains("resp_sim"));
            final = events.back().data.value(QStringLiteral("response")).toObject();
        } else {
            final = reply.json();
        }
        QCOMPARE(final.value(QStringLiteral("status")).toString(), QStringLiteral("completed"));
        QVERIFY(!fromTheUpstreamsResponsesApi(final));
        QVERIFY(!outputText(final).isEmpty());
    }

    void aTranslatedPrimaryFailsOverToANativeUpstream()
    {
        startNative({always(SimError::FirstEventError)}, QStringLiteral("openai_compat"), {}, true);
        const Reply reply = post(responsesBody(true));
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-failover"), QByteArray("true"));
        const std::vector<Event> events = eventsOf(reply.body);
        QString text;
        QByteArray terminal;
        const QString problem = checkStream(events, &text, &terminal);
        QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(":\n") + QString::fromUtf8(reply.body.left(2000))));
        QVERIFY(fromTheUpstreamsResponsesApi(events.back().data.value(QStringLiteral("response")).toObject()));
    }

    void aNativeStreamBrokenAfterItsFirstTextIsContinuedInItsOwnNumbering()
    {
        startNative({always(SimError::MidStreamError)}, QStringLiteral("anthropic"));
        const Reply reply = post(responsesBody(true));
        QCOMPARE(reply.status, 200);
        const std::vector<Event> events = eventsOf(reply.body);
        for (std::size_t i = 0; i < events.size(); ++i)
            QCOMPARE(events[i].data.value(QStringLiteral("sequence_number")).toInt(-1), int(i));
        QString text;
        QByteArray terminal;
        const QString problem = checkStream(events, &text, &terminal);
        QVERIFY2(problem.isEmpty(), qPrintable(problem + QStringLiteral(":\n") + QString::fromUtf8(reply.body.left(3000))));
        QCOMPARE(terminal, QByteArray("response.completed")); // the Anthropic fallback wrote the rest
        QCOMPARE(m_proxy->fallback->stats().answers.size(), std::size_t(1));
        QVERIFY(!m_proxy->fallback->stats().answers.front().partial.isEmpty()); // asked to go on, not to start over
    }

    void aNativeStreamBrokenAfterItsFirstTextEndsWithResponseFailed()
    {
        startNative({always(SimError::MidStreamError)}, QStringLiteral("anthropic"), {}, false, false); // continuation off
        const Reply reply = post(responsesBody(true));
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.headers.value("x-switchboard-failover"), QByteArray("false")); // too late to fail over
        const std::vector<Event> events = eventsOf(reply.body);
        QVERIFY(events.size() > 4);
        for (std::size_t i = 0; i < events.size(); ++i)
            QCOMPARE(events[i].data.value(QStringLiteral("sequence_number")).toInt(-1), int(i));
        QCOMPARE(events.back().type, QByteArray("response.failed"));
        QVERIFY(!reply.body.contains("event: error")); // the upstream's error event is ours to word
        const QJsonObject failed = events.back().data.value(QStringLiteral("response")).toObject();
        QCOMPARE(failed.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
        QCOMPARE(failed.value(QStringLiteral("id")), events.front().data.value(QStringLiteral("response")).toObject().value(QStringLiteral("id")));
        QVERIFY(!failed.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString().isEmpty());
    }

    void aConversationContinuesAcrossANativeChannel()
    {
        HttpServer upstream(HttpServerLimits(), [](int) { return std::make_unique<ResponsesNativeUpstream>(); }, 1);
        QString error;
        QVERIFY2(upstream.listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        auto config = oneChannelConfig(QStringLiteral("openai"), QStringLiteral("http://127.0.0.1:%1/v1").arg(upstream.serverPort()));
        config->providers.front().responsesApi = true;
        config->channels.front().upstreamModel = QStringLiteral("gpt-5.4");
        QVERIFY2(m_proxy->startGateway(config, &error), qPrintable(error));

        const Reply first = post(responsesBody(false, QStringLiteral("My name is Lan.")));
        QCOMPARE(first.status, 200);
        QCOMPARE(ResponsesNativeUpstream::lastPath(), QByteArray("/v1/responses"));
        QCOMPARE(ResponsesNativeUpstream::lastBody().value(QStringLiteral("model")).toString(), QStringLiteral("gpt-5.4"));
        QCOMPARE(ResponsesNativeUpstream::lastBody().value(QStringLiteral("store")), QJsonValue(false));
        QCOMPARE(ResponsesNativeUpstream::lastBody().value(QStringLiteral("input")).toString(), QStringLiteral("My name is Lan.")); // as sent
        const QString id = first.json().value(QStringLiteral("id")).toString();
        QVERIFY(id != QStringLiteral("resp_upstream1"));

        QJsonObject next{{QStringLiteral("model"), QStringLiteral("gpt-4o")},
                         {QStringLiteral("previous_response_id"), id},
                         {QStringLiteral("input"), QStringLiteral("What is my name?")}};
        const Reply second = post(compact(next));
        QCOMPARE(second.status, 200);
        QCOMPARE(outputText(second.json()), QStringLiteral("heard: My name is Lan. | What is my name?"));
        QCOMPARE(second.json().value(QStringLiteral("previous_response_id")).toString(), id);
        const QJsonObject sent = ResponsesNativeUpstream::lastBody();
        QVERIFY(sent.value(QStringLiteral("previous_response_id")).isNull()); // an id the upstream never saw is not sent
        const QJsonArray input = sent.value(QStringLiteral("input")).toArray();
        QCOMPARE(input.size(), 3); // the first question, the upstream's first answer, the new question
        QCOMPARE(input[1].toObject().value(QStringLiteral("role")).toString(), QStringLiteral("assistant"));
        QVERIFY(!input[1].toObject().contains(QStringLiteral("id")));
        m_proxy->stop();
        m_proxy.reset();
        upstream.shutdown(500ms);
    }

    void theHistoryRecordsANativeAnswersApiAndUsage()
    {
        HttpServer upstream(HttpServerLimits(), [](int) { return std::make_unique<ResponsesNativeUpstream>(); }, 1);
        QString error;
        QVERIFY2(upstream.listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
        m_proxy = std::make_unique<ProxyUnderTest>(m_clock, m_random);
        auto config = oneChannelConfig(QStringLiteral("openai"), QStringLiteral("http://127.0.0.1:%1/v1").arg(upstream.serverPort()));
        config->providers.front().responsesApi = true;
        QVERIFY2(m_proxy->startGateway(config, &error), qPrintable(error));
        std::vector<RequestRecord> rows;
        QMutex mutex;
        m_proxy->gateway->context().setRequestSink([&](RequestRecord &&row) {
            QMutexLocker lock(&mutex);
            rows.push_back(std::move(row));
        });
        QCOMPARE(post(responsesBody(false)).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT([&] { QMutexLocker lock(&mutex); return !rows.empty(); }(), 5000);
        {
            QMutexLocker lock(&mutex);
            QCOMPARE(rows.back().clientApi, QStringLiteral("openai_responses"));
            QCOMPARE(rows.back().inputTokens, 30);
            QCOMPARE(rows.back().outputTokens, 7); // reasoning tokens included, as they are billed
            QCOMPARE(rows.back().cacheReadTokens, 10);
        }
        m_proxy->gateway->context().setRequestSink({});
        m_proxy->stop();
        m_proxy.reset();
        upstream.shutdown(500ms);
    }
};

QTEST_MAIN(tst_ResponsesFrontDoor)
#include "tst_ResponsesFrontDoor.moc"
