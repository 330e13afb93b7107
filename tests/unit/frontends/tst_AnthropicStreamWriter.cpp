#include "frontends/anthropic_messages/AnthropicStreamWriter.h"
#include "providers/anthropic/AnthropicStreamTranslator.h"

#include "AnthropicWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// OpenAI chunk streams written as Anthropic's Messages SSE: every output is parsed back and held
// to the grammar Anthropic documents (test::grammarViolation), and Anthropic's reference streams
// come back with the same events in the same order after a trip through the anthropic upstream
// dialect (Anthropic SSE → OpenAI chunks) and this writer (OpenAI chunks → Anthropic SSE).

namespace {

QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue(QJsonValue::Null), const QJsonObject &choiceExtra = {})
{
    QJsonObject choice{{"index", 0}, {"delta", delta}, {"finish_reason", finishReason}};
    for (auto it = choiceExtra.constBegin(); it != choiceExtra.constEnd(); ++it)
        choice.insert(it.key(), it.value());
    return QJsonDocument(QJsonObject{{"id", "chatcmpl-1"}, {"object", "chat.completion.chunk"}, {"created", 1718000000},
                                     {"model", "gpt-4o"}, {"choices", QJsonArray{choice}}})
        .toJson(QJsonDocument::Compact);
}

QByteArray text(const QString &t) { return chunk(QJsonObject{{"content", t}}); }

QByteArray toolPiece(int index, const QString &id, const QString &name, const QString &arguments)
{
    QJsonObject function;
    if (!name.isEmpty())
        function.insert("name", name);
    function.insert("arguments", arguments);
    QJsonObject call{{"index", index}, {"function", function}};
    if (!id.isEmpty()) {
        call.insert("id", id);
        call.insert("type", "function");
    }
    return chunk(QJsonObject{{"tool_calls", QJsonArray{call}}});
}

QByteArray usageChunk(int prompt, int completion)
{
    return QJsonDocument(QJsonObject{{"id", "chatcmpl-1"}, {"object", "chat.completion.chunk"}, {"created", 1718000000}, {"model", "gpt-4o"},
                                     {"choices", QJsonArray()},
                                     {"usage", QJsonObject{{"prompt_tokens", prompt}, {"completion_tokens", completion},
                                                           {"total_tokens", prompt + completion}}}})
        .toJson(QJsonDocument::Compact);
}

QByteArray run(AnthropicStreamWriter &writer, const QList<QByteArray> &chunks, bool finish = true)
{
    QByteArray out;
    for (const QByteArray &c : chunks)
        out += writer.onChunk(c);
    if (finish)
        out += writer.finish();
    return out;
}

QList<test::WireEvent> runEvents(const QList<QByteArray> &chunks, const QStringList &stops = {})
{
    AnthropicStreamWriter writer("claude-x", "msg_test", stops);
    return test::parseEvents(run(writer, chunks));
}

// Anthropic SSE → OpenAI chunks, through the anthropic upstream dialect.
QList<QByteArray> throughUpstreamDialect(const QByteArray &anthropicSse)
{
    AnthropicStreamTranslator translator(QStringLiteral("claude-x"), true);
    translator.setCreated(1718000000);
    SseParser parser;
    QList<QByteArray> chunks;
    std::vector<SseEvent> events = parser.feed(anthropicSse);
    for (SseEvent &e : parser.finish())
        events.push_back(std::move(e));
    for (const SseEvent &e : events)
        for (const QByteArray &c : translator.onEvent(e).chunks)
            chunks.append(c);
    return chunks;
}

// The reference's events without what carries nothing an OpenAI stream can hold: pings, empty
// deltas, signatures.
QList<test::WireEvent> meaningful(const QList<test::WireEvent> &events)
{
    QList<test::WireEvent> out;
    for (const test::WireEvent &e : events) {
        if (e.name == "ping")
            continue;
        if (e.name == "content_block_delta") {
            const QJsonObject delta = e.data.value("delta").toObject();
            if (delta.value("type").toString() == QLatin1String("signature_delta"))
                continue;
            if (delta.value("type").toString() == QLatin1String("input_json_delta") && delta.value("partial_json").toString().isEmpty())
                continue;
        }
        out.append(e);
    }
    return out;
}

QString blockSummary(const test::WireEvent &e)
{
    if (e.name == "content_block_start")
        return QStringLiteral("start %1 %2").arg(e.data.value("index").toInt()).arg(e.data.value("content_block").toObject().value("type").toString());
    if (e.name == "content_block_delta")
        return QStringLiteral("delta %1 %2").arg(e.data.value("index").toInt()).arg(e.data.value("delta").toObject().value("type").toString());
    if (e.name == "content_block_stop")
        return QStringLiteral("stop %1").arg(e.data.value("index").toInt());
    return QString::fromUtf8(e.name);
}

QStringList summaries(const QList<test::WireEvent> &events)
{
    QStringList out;
    for (const test::WireEvent &e : events)
        out << blockSummary(e);
    return out;
}

} // namespace

class tst_AnthropicStreamWriter : public QObject {
    Q_OBJECT
private slots:
    void nothingGoesOutBeforeTheFirstContent()
    {
        // A role-only chunk (what an upstream's own start event becomes) and an empty delta start no
        // message: the proxy can still fail over unseen if the upstream errs right after them.
        AnthropicStreamWriter writer(QStringLiteral("m"), QStringLiteral("msg_1"), {});
        QVERIFY(writer.onChunk(R"({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})").isEmpty());
        QVERIFY(writer.onChunk(R"({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":null}]})").isEmpty());
        QVERIFY(!writer.hasStarted());
        const QByteArray first = writer.onChunk(R"({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]})");
        QVERIFY(first.startsWith("event: message_start\n"));
        QVERIFY(first.contains("event: content_block_start\n"));
        QVERIFY(first.contains(R"("text":"Hi")"));
    }

    void realisticOpenAiStream()
    {
        // Role chunk, Chinese and Vietnamese text, a call split over four chunks, a parallel call in
        // one, the finish chunk, then the usage chunk (tests/fixtures/anthropic_messages/openai_chunks.sse).
        const QList<QByteArray> chunks = test::openAiPayloads(test::readAnthropicFixture("openai_chunks.sse"));
        QCOMPARE(chunks.size(), 11);
        AnthropicStreamWriter writer("claude-sonnet-4-20250514", "msg_01XFDUDYJgAACzvnptvVoYEL", {});

        // The role chunk says nothing yet: the message starts with its first block.
        QCOMPARE(writer.onChunk(chunks.at(0)), QByteArray());
        QVERIFY(!writer.hasStarted());
        QVERIFY(!writer.hasContent());

        QByteArray out;
        for (qsizetype i = 1; i < chunks.size(); ++i) {
            const QByteArray bytes = writer.onChunk(chunks.at(i));
            // The usage chunk says nothing yet: message_delta waits for finish().
            if (i == chunks.size() - 1)
                QCOMPARE(bytes, QByteArray());
            out += bytes;
        }
        QVERIFY(writer.hasContent());
        out += writer.finish();
        QVERIFY(writer.isFinished());
        QCOMPARE(writer.finish(), QByteArray());
        QCOMPARE(writer.onChunk(chunks.at(1)), QByteArray());

        QList<test::WireEvent> events = test::parseEvents(out);
        const QString violation = test::grammarViolation(events);
        QVERIFY2(violation.isEmpty(), qPrintable(violation));
        QCOMPARE(summaries(events), (QStringList{"message_start",
                                                 "start 0 text", "delta 0 text_delta", "delta 0 text_delta", "delta 0 text_delta", "stop 0",
                                                 "start 1 tool_use", "delta 1 input_json_delta", "delta 1 input_json_delta",
                                                 "delta 1 input_json_delta", "stop 1",
                                                 "start 2 tool_use", "delta 2 input_json_delta", "stop 2",
                                                 "message_delta", "message_stop"}));
        // Every event in Anthropic's framing: "event: <type>\ndata: <json>\n\n".
        QVERIFY(out.startsWith("event: message_start\ndata: {"));
        QVERIFY(out.endsWith("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));

        const QJsonObject message = test::accumulate(events);
        QCOMPARE(message.value("id").toString(), QStringLiteral("msg_01XFDUDYJgAACzvnptvVoYEL"));
        QCOMPARE(message.value("model").toString(), QStringLiteral("claude-sonnet-4-20250514"));
        const QJsonArray content = message.value("content").toArray();
        QCOMPARE(content.size(), 3);
        QCOMPARE(content.at(0).toObject(), (QJsonObject{{"type", "text"}, {"text", "你好，Xin chào Việt Nam! 我来查一下天气。"}}));
        QCOMPARE(content.at(1).toObject(), (QJsonObject{{"type", "tool_use"}, {"id", "call_hanoi"}, {"name", "get_weather"},
                                                        {"input", QJsonObject{{"location", "Hà Nội"}, {"unit", "celsius"}}}}));
        QCOMPARE(content.at(2).toObject(), (QJsonObject{{"type", "tool_use"}, {"id", "call_beijing"}, {"name", "get_weather"},
                                                        {"input", QJsonObject{{"location", "北京"}}}}));
        QCOMPARE(message.value("stop_reason").toString(), QStringLiteral("tool_use"));
        QVERIFY(message.value("stop_sequence").isNull());
        QCOMPARE(message.value("usage").toObject(),
                 (QJsonObject{{"input_tokens", 20}, {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 100}, {"output_tokens", 48}}));

        QCOMPARE(writer.stats().chunks, std::uint64_t(11));
        QCOMPARE(writer.stats().blocks, std::uint64_t(3));
        QCOMPARE(writer.stats().toolCalls, std::uint64_t(2));
        QCOMPARE(writer.stats().events, std::uint64_t(events.size()));
        QCOMPARE(writer.stats().malformedChunks, std::uint64_t(0));
    }

    void referenceStreamsKeepTheirEvents_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("text") << "text_stream.sse";
        QTest::newRow("tool use") << "tool_use_stream.sse";
        QTest::newRow("extended thinking") << "thinking_stream.sse";
    }
    void referenceStreamsKeepTheirEvents()
    {
        QFETCH(QString, fixture);
        const QList<test::WireEvent> reference = test::parseEvents(test::readAnthropicFixture(fixture));
        QVERIFY(reference.size() > 4);
        QVERIFY2(test::grammarViolation(reference).isEmpty(), qPrintable(test::grammarViolation(reference)));

        const QList<QByteArray> chunks = throughUpstreamDialect(test::readAnthropicFixture(fixture));
        QVERIFY(!chunks.isEmpty());
        const QString id = reference.first().data.value("message").toObject().value("id").toString();
        AnthropicStreamWriter writer("claude-sonnet-4-20250514", id, {});
        const QList<test::WireEvent> events = test::parseEvents(run(writer, chunks));
        QVERIFY2(test::grammarViolation(events).isEmpty(), qPrintable(test::grammarViolation(events)));

        // The same event types in the same order (pings, empty deltas and signatures aside).
        QCOMPARE(test::eventTypes(events), test::eventTypes(meaningful(reference)));
        QCOMPARE(summaries(events), summaries(meaningful(reference)));

        // And the same message once accumulated.
        const QJsonObject expected = test::accumulate(reference);
        const QJsonObject got = test::accumulate(events);
        QCOMPARE(got.value("id"), expected.value("id"));
        QCOMPARE(got.value("stop_reason"), expected.value("stop_reason"));
        QCOMPARE(got.value("stop_sequence"), expected.value("stop_sequence"));
        const QJsonArray gotContent = got.value("content").toArray();
        const QJsonArray expectedContent = expected.value("content").toArray();
        QCOMPARE(gotContent.size(), expectedContent.size());
        for (qsizetype i = 0; i < gotContent.size(); ++i) {
            QJsonObject want = expectedContent.at(i).toObject();
            if (want.value("type").toString() == QLatin1String("thinking"))
                want.insert("signature", QString()); // no OpenAI upstream signs its reasoning
            QCOMPARE(gotContent.at(i).toObject(), want);
        }
        const QJsonObject expectedUsage = expected.value("usage").toObject();
        if (expectedUsage.contains("output_tokens")) {
            QCOMPARE(got.value("usage").toObject().value("output_tokens"), expectedUsage.value("output_tokens"));
            QCOMPARE(got.value("usage").toObject().value("input_tokens"), expectedUsage.value("input_tokens"));
        }
    }

    void usageArrivingAfterTheFinishReason()
    {
        AnthropicStreamWriter writer("claude-x", "msg_1", {});
        QByteArray out = writer.onChunk(text("Chào"));
        out += writer.onChunk(chunk(QJsonObject(), "stop"));
        // The finish chunk closes the block at once; the message stays open for the usage.
        QVERIFY(out.endsWith("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"));
        QCOMPARE(writer.onChunk(usageChunk(9, 3)), QByteArray());
        out += writer.finish();
        const QList<test::WireEvent> events = test::parseEvents(out);
        QVERIFY2(test::grammarViolation(events).isEmpty(), qPrintable(test::grammarViolation(events)));
        const test::WireEvent &delta = events.at(events.size() - 2);
        QCOMPARE(delta.name, QByteArray("message_delta"));
        QCOMPARE(delta.data.value("usage").toObject(), (QJsonObject{{"input_tokens", 9}, {"output_tokens", 3}}));
        QCOMPARE(delta.data.value("delta").toObject(), (QJsonObject{{"stop_reason", "end_turn"}, {"stop_sequence", QJsonValue::Null}}));
    }

    void withoutUsageTheCountsAreZero()
    {
        const QList<test::WireEvent> events = runEvents({text("hi"), chunk(QJsonObject(), "length")});
        QVERIFY(test::grammarViolation(events).isEmpty());
        QCOMPARE(events.first().data.value("message").toObject().value("usage").toObject(),
                 (QJsonObject{{"input_tokens", 0}, {"output_tokens", 0}}));
        QCOMPARE(events.at(events.size() - 2).data.value("usage").toObject(), (QJsonObject{{"output_tokens", 0}}));
        QCOMPARE(events.at(events.size() - 2).data.value("delta").toObject().value("stop_reason").toString(), QStringLiteral("max_tokens"));
    }

    void roleOnlyAndEmptyDeltasStartNoBlock()
    {
        AnthropicStreamWriter writer("claude-x", "msg_1", {});
        QByteArray out = writer.onChunk(chunk(QJsonObject{{"role", "assistant"}}));
        for (const QByteArray &c : {chunk(QJsonObject{{"content", ""}}), chunk(QJsonObject()), chunk(QJsonObject{{"content", QJsonValue::Null}}),
                                    chunk(QJsonObject{{"reasoning_content", ""}}), chunk(QJsonObject{{"tool_calls", QJsonArray()}}),
                                    usageChunk(4, 0)})
            QCOMPARE(writer.onChunk(c), QByteArray());
        QVERIFY(!writer.hasContent());
        out += writer.finish();
        const QList<test::WireEvent> events = test::parseEvents(out);
        QVERIFY2(test::grammarViolation(events).isEmpty(), qPrintable(test::grammarViolation(events)));
        QCOMPARE(test::eventTypes(events), (QStringList{"message_start", "message_delta", "message_stop"}));
    }

    void finishWithoutAnyChunk()
    {
        AnthropicStreamWriter writer("claude-x", "msg_1", {});
        const QList<test::WireEvent> events = test::parseEvents(writer.finish());
        QCOMPARE(test::eventTypes(events), (QStringList{"message_start", "message_delta", "message_stop"}));
        QVERIFY(test::grammarViolation(events).isEmpty());
        const QJsonObject message = events.first().data.value("message").toObject();
        QCOMPARE(message.value("id").toString(), QStringLiteral("msg_1"));
        QCOMPARE(message.value("model").toString(), QStringLiteral("claude-x"));
        QVERIFY(message.value("stop_reason").isNull());
    }

    void reasoningThenTextThenReasoningAgain()
    {
        const QList<test::WireEvent> events = runEvents({
            chunk(QJsonObject{{"role", "assistant"}, {"content", ""}, {"reasoning_content", "Cân nhắc"}}),
            chunk(QJsonObject{{"reasoning_content", "…"}}),
            text("Kết quả"),
            chunk(QJsonObject{{"reasoning", "again"}}),
            chunk(QJsonObject(), "stop"),
        });
        QVERIFY2(test::grammarViolation(events).isEmpty(), qPrintable(test::grammarViolation(events)));
        QCOMPARE(summaries(events), (QStringList{"message_start", "start 0 thinking", "delta 0 thinking_delta", "delta 0 thinking_delta",
                                                 "stop 0", "start 1 text", "delta 1 text_delta", "stop 1", "start 2 thinking",
                                                 "delta 2 thinking_delta", "stop 2", "message_delta", "message_stop"}));
        const QJsonArray content = test::accumulate(events).value("content").toArray();
        QCOMPARE(content.at(0).toObject(), (QJsonObject{{"type", "thinking"}, {"thinking", "Cân nhắc…"}, {"signature", ""}}));
        QCOMPARE(content.at(1).toObject().value("text").toString(), QStringLiteral("Kết quả"));
    }

    void toolCallShapes_data()
    {
        QTest::addColumn<QList<QByteArray>>("chunks");
        QTest::addColumn<QStringList>("ids");
        QTest::addColumn<QStringList>("inputs"); // compact JSON of each block's accumulated input

        QTest::newRow("name after the id") << QList<QByteArray>{toolPiece(0, "call_1", "", "{\"a\""), toolPiece(0, "", "f", ":1"), toolPiece(0, "", "", "}")}
                                           << QStringList{"call_1"} << QStringList{R"({"a":1})"};
        QTest::newRow("every piece repeats id and name") << QList<QByteArray>{toolPiece(0, "call_1", "f", "{\"a\""), toolPiece(0, "call_1", "f", ":1}")}
                                                         << QStringList{"call_1"} << QStringList{R"({"a":1})"};
        QTest::newRow("parallel calls all numbered 0") << QList<QByteArray>{toolPiece(0, "call_1", "f", "{}"), toolPiece(0, "call_2", "g", "{\"b\":2}")}
                                                       << QStringList{"call_1", "call_2"} << QStringList{"{}", R"({"b":2})"};
        QTest::newRow("no id at all") << QList<QByteArray>{toolPiece(0, "", "f", "{}")} << QStringList{"toolu_msg_test_0"} << QStringList{"{}"};
        QTest::newRow("two calls in one chunk")
            << QList<QByteArray>{chunk(QJsonObject{{"tool_calls", QJsonArray{
                   QJsonObject{{"index", 0}, {"id", "call_1"}, {"function", QJsonObject{{"name", "f"}, {"arguments", "{}"}}}},
                   QJsonObject{{"index", 1}, {"id", "call_2"}, {"function", QJsonObject{{"name", "g"}, {"arguments", "{}"}}}}}}})}
            << QStringList{"call_1", "call_2"} << QStringList{"{}", "{}"};
        QTest::newRow("a name that never comes") << QList<QByteArray>{toolPiece(0, "call_1", "", "{}")} << QStringList{"call_1"} << QStringList{"{}"};
    }
    void toolCallShapes()
    {
        QFETCH(QList<QByteArray>, chunks);
        QFETCH(QStringList, ids);
        QFETCH(QStringList, inputs);
        chunks.append(chunk(QJsonObject(), "tool_calls"));
        const QList<test::WireEvent> events = runEvents(chunks);
        QVERIFY2(test::grammarViolation(events).isEmpty(), qPrintable(test::grammarViolation(events)));
        const QJsonObject message = test::accumulate(events);
        const QJsonArray content = message.value("content").toArray();
        QCOMPARE(content.size(), ids.size());
        for (qsizetype i = 0; i < content.size(); ++i) {
            const QJsonObject block = content.at(i).toObject();
            QCOMPARE(block.value("type").toString(), QStringLiteral("tool_use"));
            QCOMPARE(block.value("id").toString(), ids.at(i));
            QCOMPARE(QString::fromUtf8(QJsonDocument(block.value("input").toObject()).toJson(QJsonDocument::Compact)), inputs.at(i));
        }
        QCOMPARE(message.value("stop_reason").toString(), QStringLiteral("tool_use"));
    }

    void textAfterAToolCallIsANewBlock()
    {
        const QList<test::WireEvent> events = runEvents({text("Một"), toolPiece(0, "call_1", "f", "{}"), text("Hai"),
                                                         toolPiece(1, "call_2", "g", "{}"), chunk(QJsonObject(), "tool_calls")});
        QVERIFY2(test::grammarViolation(events).isEmpty(), qPrintable(test::grammarViolation(events)));
        QCOMPARE(summaries(events), (QStringList{"message_start", "start 0 text", "delta 0 text_delta", "stop 0", "start 1 tool_use",
                                                 "delta 1 input_json_delta", "stop 1", "start 2 text", "delta 2 text_delta", "stop 2",
                                                 "start 3 tool_use", "delta 3 input_json_delta", "stop 3", "message_delta", "message_stop"}));
    }

    void aLatePieceOfAStoppedCallIsNotReopened()
    {
        const QList<test::WireEvent> events = runEvents({toolPiece(0, "call_1", "f", "{"), toolPiece(1, "call_2", "g", "{}"),
                                                         toolPiece(0, "", "", "}"), chunk(QJsonObject(), "tool_calls")});
        QVERIFY2(test::grammarViolation(events).isEmpty(), qPrintable(test::grammarViolation(events)));
        QCOMPARE(test::accumulate(events).value("content").toArray().size(), 2);
    }

    void toolCallWithPlainStopIsToolUse()
    {
        const QList<test::WireEvent> events = runEvents({toolPiece(0, "call_1", "f", "{}"), chunk(QJsonObject(), "stop")});
        QCOMPARE(test::accumulate(events).value("stop_reason").toString(), QStringLiteral("tool_use"));
    }

    void stopReasons_data()
    {
        QTest::addColumn<QJsonValue>("finishReason");
        QTest::addColumn<QString>("stopReason");
        QTest::newRow("stop") << QJsonValue("stop") << "end_turn";
        QTest::newRow("length") << QJsonValue("length") << "max_tokens";
        QTest::newRow("content_filter") << QJsonValue("content_filter") << "refusal";
        QTest::newRow("tool_calls") << QJsonValue("tool_calls") << "tool_use";
        QTest::newRow("never said") << QJsonValue(QJsonValue::Null) << "end_turn";
    }
    void stopReasons()
    {
        QFETCH(QJsonValue, finishReason);
        QFETCH(QString, stopReason);
        const QList<test::WireEvent> events = runEvents({text("x"), chunk(QJsonObject(), finishReason)});
        QCOMPARE(test::accumulate(events).value("stop_reason").toString(), stopReason);
    }

    void stopSequence()
    {
        // vLLM names the matched stop string in the finish chunk's choice.
        QList<test::WireEvent> events = runEvents({text("Done"), chunk(QJsonObject(), "stop", QJsonObject{{"stop_reason", "END"}})}, {"END"});
        QJsonObject message = test::accumulate(events);
        QCOMPARE(message.value("stop_reason").toString(), QStringLiteral("stop_sequence"));
        QCOMPARE(message.value("stop_sequence").toString(), QStringLiteral("END"));

        // A server that keeps the sequence in the text: found at the end of the text, across chunks.
        events = runEvents({text("Done\n\nHu"), text("man:"), chunk(QJsonObject(), "stop")}, {"\n\nHuman:"});
        QCOMPARE(test::accumulate(events).value("stop_sequence").toString(), QStringLiteral("\n\nHuman:"));

        // Plain OpenAI does not say: end_turn.
        events = runEvents({text("Done"), chunk(QJsonObject(), "stop")}, {"END"});
        message = test::accumulate(events);
        QCOMPARE(message.value("stop_reason").toString(), QStringLiteral("end_turn"));
        QVERIFY(message.value("stop_sequence").isNull());
    }

    void errorMidStream()
    {
        AnthropicStreamWriter writer("claude-x", "msg_1", {});
        QByteArray out = writer.onChunk(text("Half"));
        out += writer.error(AnthropicError{529, "overloaded_error", "Overloaded"});
        QVERIFY(writer.isFinished());
        QCOMPARE(writer.finish(), QByteArray());
        QCOMPARE(writer.onChunk(text("more")), QByteArray());
        QCOMPARE(writer.error(AnthropicError{500, "api_error", "x"}), QByteArray());
        const QList<test::WireEvent> events = test::parseEvents(out);
        QVERIFY2(test::grammarViolation(events).isEmpty(), qPrintable(test::grammarViolation(events)));
        QCOMPARE(test::eventTypes(events), (QStringList{"message_start", "content_block_start", "content_block_delta", "error"}));
        // The reference's error event, byte for byte in its data.
        const QList<test::WireEvent> reference = test::parseEvents(test::readAnthropicFixture("error_event.sse"));
        QCOMPARE(events.last().name, reference.last().name);
        QCOMPARE(events.last().data, reference.last().data);
    }

    void engineErrorPayloadBecomesAnErrorEvent()
    {
        // How the engine ends a stream that broke after its first byte (ClientErrors' midStream).
        AnthropicStreamWriter writer("claude-x", "msg_1", {});
        QByteArray out = writer.onChunk(text("Half"));
        out += writer.onChunk(R"({"error":{"message":"The upstream stream broke.","type":"upstream_error","param":null,"code":"provider_down"}})");
        const QList<test::WireEvent> events = test::parseEvents(out);
        QVERIFY(test::grammarViolation(events).isEmpty());
        QCOMPARE(events.last().data.value("error").toObject(),
                 (QJsonObject{{"type", "overloaded_error"}, {"message", "The upstream stream broke."}}));
        QVERIFY(writer.isFinished());
    }

    void errorBeforeAnything()
    {
        AnthropicStreamWriter writer("claude-x", "msg_1", {});
        const QByteArray out = writer.error(AnthropicError{504, "timeout_error", "No channel answered in time."});
        QVERIFY(!writer.hasStarted());
        QCOMPARE(out, AnthropicError({504, "timeout_error", "No channel answered in time."}).toEvent());
        QCOMPARE(test::eventTypes(test::parseEvents(out)), QStringList{"error"});
    }

    void malformedChunksAreSkipped()
    {
        AnthropicStreamWriter writer("claude-x", "msg_1", {});
        QCOMPARE(writer.onChunk("not json"), QByteArray());
        QCOMPARE(writer.onChunk("[1,2]"), QByteArray());
        QCOMPARE(writer.stats().malformedChunks, std::uint64_t(2));
        QVERIFY(!writer.hasStarted());
        const QList<test::WireEvent> events = test::parseEvents(run(writer, {text("ok"), chunk(QJsonObject(), "stop")}));
        QVERIFY(test::grammarViolation(events).isEmpty());
        QCOMPARE(writer.stats().chunks, std::uint64_t(4));
    }

    void secondChoicesAreIgnored()
    {
        const QByteArray two = QJsonDocument(QJsonObject{
            {"choices", QJsonArray{QJsonObject{{"index", 1}, {"delta", QJsonObject{{"content", "B"}}}, {"finish_reason", QJsonValue::Null}},
                                   QJsonObject{{"index", 0}, {"delta", QJsonObject{{"content", "A"}}}, {"finish_reason", QJsonValue::Null}}}}})
                                   .toJson(QJsonDocument::Compact);
        const QList<test::WireEvent> events = runEvents({two});
        QCOMPARE(test::accumulate(events).value("content").toArray().at(0).toObject().value("text").toString(), QStringLiteral("A"));
    }

    void grammarCheckerCatchesBreaches_data()
    {
        // The checker every test above relies on must refuse what Anthropic's grammar forbids.
        QTest::addColumn<QByteArray>("sse");
        QTest::addColumn<QString>("violation");
        const QByteArray start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\","
                                 "\"role\":\"assistant\",\"content\":[]}}\n\n";
        const QByteArray text0 = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
                                 "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n";
        const QByteArray text1 = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
                                 "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n";
        const QByteArray stop0 = "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n";
        const QByteArray json0 = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                                 "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n";
        const QByteArray end = "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                               "\"usage\":{\"output_tokens\":1}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
        QTest::newRow("fine") << start + text0 + stop0 + end << "";
        QTest::newRow("no message_start") << text0 + stop0 + end << "before message_start";
        QTest::newRow("index from 1") << start + text1 << "index 1, expected 0";
        QTest::newRow("block not stopped") << start + text0 + text1 << "starts while block 0 is open";
        QTest::newRow("wrong delta kind") << start + text0 + json0 << "input_json_delta into a text block";
        QTest::newRow("open at message_delta") << start + text0 + end << "block 0 is still open";
        QTest::newRow("no message_stop") << start + text0 + stop0 << "does not end with message_stop";
        QTest::newRow("name and type differ") << QByteArray("event: message_stop\ndata: {\"type\":\"ping\"}\n\n") << "data type is";
    }
    void grammarCheckerCatchesBreaches()
    {
        QFETCH(QByteArray, sse);
        QFETCH(QString, violation);
        const QString found = test::grammarViolation(test::parseEvents(sse));
        if (violation.isEmpty())
            QVERIFY2(found.isEmpty(), qPrintable(found));
        else
            QVERIFY2(found.contains(violation), qPrintable(found));
    }

    void textIsEscapedForJson()
    {
        const QString tricky = QStringLiteral("\"quoted\" \\ back\nline\ttab \u0001 – 𝄞 Tiếng Việt 中文");
        const QList<test::WireEvent> events = runEvents({text(tricky), chunk(QJsonObject(), "stop")});
        QVERIFY(test::grammarViolation(events).isEmpty());
        QCOMPARE(test::accumulate(events).value("content").toArray().at(0).toObject().value("text").toString(), tricky);
    }
};

QTEST_GUILESS_MAIN(tst_AnthropicStreamWriter)
#include "tst_AnthropicStreamWriter.moc"
