// Streams that survive, where the answer is more than text: the primary breaks inside a tool call
// or inside its reasoning, and the client still gets one well-formed stream — the call whole and
// exactly once, one reasoning block — checked against what the simulator recorded it sent.
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyUnderTest.h"
#include "RequestRecords.h"
#include "StreamText.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

FaultSpec breakInside(SimError error, FaultSpec::Inside inside)
{
    FaultSpec fault = always(error);
    fault.inside = inside;
    return fault;
}

const QJsonArray kTools{QJsonObject{
    {"type", "function"},
    {"function", QJsonObject{{"name", "search"},
                             {"description", "Search the notes"},
                             {"parameters", QJsonObject{{"type", "object"},
                                                        {"properties", QJsonObject{{"query", QJsonObject{{"type", "string"}}},
                                                                                   {"limit", QJsonObject{{"type", "integer"}}}}}}}}}}};

QByteArray chatBody(bool withTools)
{
    QJsonObject body{{"model", "gpt-4o"},
                     {"stream", true},
                     {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Look the router up."}}}}};
    if (withTools)
        body.insert("tools", kTools);
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

// What an OpenAI stream carried besides its text: its tool calls and reasoning, in order.
struct Carried {
    QString text;
    QString reasoning;
    int callsNamed = 0; // deltas that open a call (carry its id)
    QSet<QString> callIds;
    QString arguments;
    QStringList finishReasons;
    bool reasoningAfterText = false;
    bool done = false;
    bool error = false;
};

Carried carried(const QByteArray &body)
{
    Carried c;
    for (const QByteArray &data : sseData(body)) {
        if (data == "[DONE]") {
            c.done = true;
            continue;
        }
        const QJsonObject chunk = QJsonDocument::fromJson(data).object();
        c.error = c.error || chunk.contains("error");
        const QJsonObject choice = chunk["choices"][0].toObject();
        const QJsonObject delta = choice["delta"].toObject();
        c.text += delta["content"].toString();
        if (const QString r = delta["reasoning_content"].toString(); !r.isEmpty()) {
            c.reasoningAfterText = c.reasoningAfterText || !c.text.isEmpty();
            c.reasoning += r;
        }
        for (const QJsonValue &call : delta["tool_calls"].toArray()) {
            if (call.toObject().contains("id")) {
                ++c.callsNamed;
                c.callIds.insert(call["id"].toString());
            }
            c.arguments += call["function"]["arguments"].toString();
        }
        if (const QString finish = choice["finish_reason"].toString(); !finish.isEmpty())
            c.finishReasons << finish;
    }
    return c;
}

} // namespace

class tst_StreamRescueToolCalls : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{8765};
    ProxyUnderTest m_proxy{m_clock, m_random};
    ProxyClient m_client;
    RequestRecords m_records;

    void start(const QString &dialect, ProviderSpec primary, ProviderSpec fallback, std::function<void(EngineConfig &)> tweak = {})
    {
        QString error;
        QVERIFY2(m_proxy.startInDialect(dialect, std::move(primary), std::move(fallback), tweak, &error), qPrintable(error));
        m_records.attach(*m_proxy.gateway);
    }

    static ProviderSpec calling(const QString &name, std::vector<FaultSpec> faults = {})
    {
        ProviderSpec spec = fakeProviderSpec(name, std::move(faults));
        spec.toolCalls = true;
        spec.completionTokens = 12;
        return spec;
    }

    static ProviderSpec reasoning(const QString &name, std::vector<FaultSpec> faults = {})
    {
        ProviderSpec spec = fakeProviderSpec(name, std::move(faults));
        spec.reasoningTokens = 10;
        spec.completionTokens = 12;
        return spec;
    }

    Reply chat(bool withTools)
    {
        return m_client.request(m_proxy.gateway->port(), "POST", "/v1/chat/completions", chatBody(withTools));
    }

private slots:
    void cleanup()
    {
        m_proxy.stop();
        m_records.clear();
    }

    void aBreakInsideAToolCallGivesTheCallWholeOnce_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<int>("error");
        for (const char *dialect : {"openai_compat", "anthropic"}) {
            QTest::addRow("%s: cut inside the call's JSON", dialect) << dialect << int(SimError::StreamCut);
            QTest::addRow("%s: error event inside the call", dialect) << dialect << int(SimError::MidStreamError);
        }
    }

    void aBreakInsideAToolCallGivesTheCallWholeOnce()
    {
        QFETCH(QString, dialect);
        QFETCH(int, error);
        start(dialect, calling("primary", {breakInside(static_cast<SimError>(error), FaultSpec::Inside::ToolCall)}), calling("fallback"));

        const Reply reply = chat(true);
        QCOMPARE(reply.status, 200);
        const Carried c = carried(reply.body);
        QVERIFY2(c.done && !c.error, reply.body.constData());
        // The text went out as the primary sent it, once; the call came whole from the fallback.
        const auto primaryAnswers = m_proxy.primary->stats().answers;
        QCOMPARE(primaryAnswers.size(), std::size_t(1));
        QCOMPARE(c.text, QString::fromUtf8(primaryAnswers.front().text));
        QCOMPARE(c.callsNamed, 1);
        QCOMPARE(c.callIds.size(), 1);
        const auto fallbackAnswers = m_proxy.fallback->stats().answers;
        QCOMPARE(fallbackAnswers.size(), std::size_t(1));
        QVERIFY(fallbackAnswers.front().complete);
        QVERIFY(!fallbackAnswers.front().toolArguments.isEmpty());
        QCOMPARE(c.arguments, QString::fromUtf8(fallbackAnswers.front().toolArguments));
        QJsonParseError parseError;
        QJsonDocument::fromJson(c.arguments.toUtf8(), &parseError);
        QCOMPARE(parseError.error, QJsonParseError::NoError);
        QCOMPARE(c.finishReasons, QStringList{"tool_calls"});
        // Asked to go on from the text the client had: a continuation, not a fresh answer.
        QCOMPARE(QString::fromUtf8(fallbackAnswers.front().partial).trimmed(), c.text.trimmed());

        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::Ok);
        QCOMPARE(int(record->attempts.size()), 2);
        QCOMPARE(record->attempts[0].phase, OutcomePhase::MidStream);
        QVERIFY2(record->attempts[1].message.startsWith(QStringLiteral("continued the answer after")), qPrintable(record->attempts[1].message));
    }

    void aToolCallBeforeAnyTextFailsOverUnseen_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addRow("openai_compat") << "openai_compat";
        QTest::addRow("anthropic") << "anthropic";
    }

    void aToolCallBeforeAnyTextFailsOverUnseen()
    {
        QFETCH(QString, dialect);
        ProviderSpec primary = calling("primary", {breakInside(SimError::StreamCut, FaultSpec::Inside::ToolCall)});
        ProviderSpec fallback = calling("fallback");
        primary.completionTokens = fallback.completionTokens = 0; // the answer is the call alone
        start(dialect, primary, fallback);

        const Reply reply = chat(true);
        const Carried c = carried(reply.body);
        QVERIFY2(c.done && !c.error, reply.body.constData());
        QCOMPARE(reply.headers.value("x-switchboard-channel"), QByteArray("gpt-4o/B")); // nothing had gone out
        QCOMPARE(c.callsNamed, 1);
        QCOMPARE(c.arguments, QString::fromUtf8(m_proxy.fallback->stats().answers.front().toolArguments));
        QVERIFY(m_proxy.fallback->stats().answers.front().partial.isEmpty());
        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->attempts[0].phase, OutcomePhase::BeforeFirstByte);
    }

    void aRouteThatStreamsToolCallsEndsABreakInsideOneWithItsError()
    {
        start("openai_compat", calling("primary", {breakInside(SimError::StreamCut, FaultSpec::Inside::ToolCall)}), calling("fallback"),
              [](EngineConfig &c) {
                  for (RouteConfig &r : c.routes)
                      r.streamToolCalls = true;
              });
        const Reply reply = chat(true);
        const Carried c = carried(reply.body);
        QCOMPARE(c.callsNamed, 1); // half a call went out as it came …
        QVERIFY(!c.arguments.isEmpty());
        QVERIFY(!c.done); // … and the stream ends with its error, not a second call
        QVERIFY2(c.error, reply.body.constData());
        QCOMPARE(m_proxy.fallback->stats().chat, 0u);
        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::MidStream);
        QVERIFY2(record->error.contains(QStringLiteral("not continued: a tool call had begun to reach the client")), qPrintable(record->error));
    }

    void aBreakInsideReasoningShowsOneReasoningBlock_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<int>("error");
        for (const char *dialect : {"openai_compat", "anthropic"}) {
            QTest::addRow("%s: cut inside the reasoning", dialect) << dialect << int(SimError::StreamCut);
            QTest::addRow("%s: stall inside the reasoning", dialect) << dialect << int(SimError::StreamStall);
        }
    }

    void aBreakInsideReasoningShowsOneReasoningBlock()
    {
        QFETCH(QString, dialect);
        QFETCH(int, error);
        start(dialect, reasoning("primary", {breakInside(static_cast<SimError>(error), FaultSpec::Inside::Reasoning)}), reasoning("fallback"),
              [](EngineConfig &c) { c.retry.streamIdleTimeout = 300ms; });
        const Reply reply = chat(false);
        const Carried c = carried(reply.body);
        QVERIFY2(c.done && !c.error, reply.body.constData());
        QVERIFY(!c.reasoning.isEmpty());  // the primary's, as far as it got …
        QVERIFY(!c.reasoningAfterText);    // … and no second block after the text began
        const auto fallbackAnswers = m_proxy.fallback->stats().answers;
        QCOMPARE(fallbackAnswers.size(), std::size_t(1));
        QVERIFY(fallbackAnswers.front().partial.isEmpty()); // no text had gone out: asked again as it was
        QCOMPARE(c.text, QString::fromUtf8(fallbackAnswers.front().text));
        QCOMPARE(c.finishReasons, QStringList{"stop"});
    }

    // Claude Code's path: an Anthropic client, an Anthropic upstream, the events passed through.
    // A call is held there too, and a break inside it is continued in the client's own message.
    void anAnthropicClientGetsTheCallWholeOnAPassedThroughStream()
    {
        start("anthropic", calling("primary", {breakInside(SimError::StreamCut, FaultSpec::Inside::ToolCall)}), calling("fallback"));
        const QByteArray body = R"({"model":"gpt-4o","max_tokens":256,"stream":true,
            "tools":[{"name":"search","input_schema":{"type":"object","properties":{"query":{"type":"string"}}}}],
            "messages":[{"role":"user","content":"Look the router up."}]})";
        const Reply reply = m_client.request(m_proxy.gateway->port(), "POST", "/v1/messages", body, RawHeaders{{"anthropic-version", "2023-06-01"}});
        QCOMPARE(reply.status, 200);
        QString text, arguments, stopReason;
        int messageStarts = 0, messageStops = 0, toolBlocks = 0, textBlocks = 0;
        QList<int> indexes;
        for (const QByteArray &data : sseData(reply.body)) {
            const QJsonObject event = QJsonDocument::fromJson(data).object();
            const QString type = event["type"].toString();
            QVERIFY2(type != QLatin1String("error"), data.constData());
            messageStarts += type == QLatin1String("message_start");
            messageStops += type == QLatin1String("message_stop");
            if (type == QLatin1String("content_block_start")) {
                toolBlocks += event["content_block"]["type"] == QLatin1String("tool_use");
                textBlocks += event["content_block"]["type"] == QLatin1String("text");
                indexes << event["index"].toInt();
            }
            if (type == QLatin1String("content_block_delta")) {
                text += event["delta"]["text"].toString();
                arguments += event["delta"]["partial_json"].toString();
            }
            if (type == QLatin1String("message_delta"))
                stopReason = event["delta"]["stop_reason"].toString();
        }
        QCOMPARE(messageStarts, 1);
        QCOMPARE(messageStops, 1);
        QCOMPARE(textBlocks, 1);
        QCOMPARE(toolBlocks, 1);
        QCOMPARE(indexes, (QList<int>{0, 1}));
        QCOMPARE(stopReason, QStringLiteral("tool_use"));
        QCOMPARE(text, QString::fromUtf8(m_proxy.primary->stats().answers.front().text));
        QCOMPARE(arguments, QString::fromUtf8(m_proxy.fallback->stats().answers.front().toolArguments));
        const auto record = m_records.waitForOnly();
        QVERIFY(record);
        QCOMPARE(record->status, RequestStatus::Ok);
        QCOMPARE(int(record->attempts.size()), 2);
    }
};

QTEST_GUILESS_MAIN(tst_StreamRescueToolCalls)
#include "tst_StreamRescueToolCalls.moc"
