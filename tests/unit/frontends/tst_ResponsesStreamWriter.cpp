#include "frontends/openai_responses/ResponsesStreamWriter.h"

#include "ResponsesWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// OpenAI chunk streams written as the Responses API's streaming events: every output is parsed
// back and held to the grammar the reference describes and the SDK enforces
// (test::responsesGrammarViolation), and streams carrying what the reference's examples carry
// come out with the same events in the same order, with the same members.

namespace {

QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue(QJsonValue::Null), int choiceIndex = 0)
{
    const QJsonObject choice{{"index", choiceIndex}, {"delta", delta}, {"finish_reason", finishReason}};
    return QJsonDocument(QJsonObject{{"id", "chatcmpl-1"}, {"object", "chat.completion.chunk"}, {"created", 1718000000},
                                     {"model", "gpt-4o"}, {"choices", QJsonArray{choice}}})
        .toJson(QJsonDocument::Compact);
}

QByteArray role() { return chunk(QJsonObject{{"role", "assistant"}, {"content", ""}}); }
QByteArray text(const QString &t) { return chunk(QJsonObject{{"content", t}}); }
QByteArray thinking(const QString &t) { return chunk(QJsonObject{{"reasoning_content", t}}); }
QByteArray finishWith(const QString &reason) { return chunk(QJsonObject(), reason); }

QByteArray toolPiece(int index, const QString &id, const QString &name, const QString &arguments)
{
    QJsonObject function{{"arguments", arguments}};
    if (!name.isEmpty())
        function.insert("name", name);
    QJsonObject call{{"index", index}, {"function", function}};
    if (!id.isEmpty()) {
        call.insert("id", id);
        call.insert("type", "function");
    }
    return chunk(QJsonObject{{"tool_calls", QJsonArray{call}}});
}

QByteArray usageChunk(int prompt, int completion, const QJsonObject &extra = {})
{
    QJsonObject usage{{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
    for (auto it = extra.constBegin(); it != extra.constEnd(); ++it)
        usage.insert(it.key(), it.value());
    return QJsonDocument(QJsonObject{{"id", "chatcmpl-1"}, {"object", "chat.completion.chunk"}, {"created", 1718000000}, {"model", "gpt-4o"},
                                     {"choices", QJsonArray()}, {"usage", usage}})
        .toJson(QJsonDocument::Compact);
}

QByteArray errorChunk(const QString &code, const QString &message)
{
    return QJsonDocument(QJsonObject{{"error", QJsonObject{{"message", message}, {"type", "upstream_error"}, {"code", code}}}})
        .toJson(QJsonDocument::Compact);
}

ResponseFrame frame(const QString &id = "resp_test", const QString &model = "gpt-test")
{
    ResponseFrame f;
    f.id = id;
    f.model = model;
    f.createdAt = 1741290958;
    return f;
}

QByteArray run(ResponsesStreamWriter &writer, const QList<QByteArray> &chunks, bool finish = true)
{
    QByteArray out;
    for (const QByteArray &c : chunks)
        out += writer.onChunk(c);
    if (finish)
        out += writer.finish();
    return out;
}

QList<test::WireEvent> runEvents(const QList<QByteArray> &chunks, ResponseFrame f = frame())
{
    ResponsesStreamWriter writer(std::move(f));
    return test::parseEvents(run(writer, chunks));
}

QStringList types(const QList<test::WireEvent> &events) { return test::eventTypes(events, true); }

// The shape without logprobs: the reference's schemas require it on output_text parts and
// events, its examples leave it out.
QString shapeWithoutLogprobs(const test::WireEvent &e)
{
    test::WireEvent copy = e;
    copy.data.remove("logprobs");
    QJsonObject part = copy.data.value("part").toObject();
    part.remove("logprobs");
    if (!part.isEmpty())
        copy.data.insert("part", part);
    return test::eventShape(copy);
}

QJsonObject withoutLogprobs(QJsonObject item)
{
    QJsonArray content = item.value("content").toArray();
    for (qsizetype i = 0; i < content.size(); ++i) {
        QJsonObject part = content.at(i).toObject();
        part.remove("logprobs");
        content.replace(i, part);
    }
    if (item.contains("content"))
        item.insert("content", content);
    return item;
}

QJsonObject terminalResponse(const QList<test::WireEvent> &events) { return events.last().data.value("response").toObject(); }

QJsonArray outputOf(const QList<test::WireEvent> &events) { return terminalResponse(events).value("output").toArray(); }

// The shapes of one item's events, a run of deltas counted as one.
QStringList itemShapes(const QList<test::WireEvent> &events, int outputIndex)
{
    QStringList out;
    QByteArray last;
    for (const test::WireEvent &e : events) {
        if (!e.data.contains("output_index") || e.data.value("output_index").toInt() != outputIndex)
            continue;
        if (e.name.endsWith(".delta") && e.name == last)
            continue;
        last = e.name;
        out << test::eventShape(e);
    }
    return out;
}

#define QVERIFY_GRAMMAR(events)                                                                                                           \
    do {                                                                                                                                  \
        const QString violation = test::responsesGrammarViolation(events);                                                                \
        QVERIFY2(violation.isEmpty(), qPrintable(violation));                                                                             \
    } while (false)

} // namespace

class tst_ResponsesStreamWriter : public QObject {
    Q_OBJECT
private slots:
    void goesOnFromAnUpstreamsOwnEvents()
    {
        // What a Responses upstream sent before it broke, read from its chunks: one message item.
        ResponsesStreamWriter writer(frame());
        run(writer, {role(), text("Hello, ")}, false);
        QVERIFY(!writer.continueFrom(9, {})); // the upstream added another number of items: refused
        QVERIFY(!writer.continueFrom(9, {QStringLiteral("msg_up1"), QStringLiteral("msg_up2")}));
        QVERIFY(writer.continueFrom(9, {QStringLiteral("msg_up1")}));

        const QList<test::WireEvent> events = test::parseEvents(run(writer, {text("world."), finishWith("stop")}));
        QVERIFY(!events.isEmpty());
        int sequence = 9;
        for (const test::WireEvent &e : events) {
            QCOMPARE(e.data.value("sequence_number").toInt(), sequence++); // the upstream's numbering goes on
            if (e.data.contains("item_id"))
                QCOMPARE(e.data.value("item_id").toString(), QStringLiteral("msg_up1"));
        }
        QCOMPARE(events.front().data.value("delta").toString(), QStringLiteral("world."));
        const QJsonObject completed = events.back().data;
        QCOMPARE(completed.value("type").toString(), QStringLiteral("response.completed"));
        const QJsonObject item = completed["response"]["output"][0].toObject();
        QCOMPARE(item.value("id").toString(), QStringLiteral("msg_up1"));
        QCOMPARE(item["content"][0]["text"].toString(), QStringLiteral("Hello, world."));
    }

    void nothingGoesOutBeforeTheFirstContent()
    {
        // A role-only chunk and empty deltas start nothing, not even response.created: the proxy
        // can still fail over unseen if the upstream errs right after them.
        ResponsesStreamWriter writer(frame());
        for (const QByteArray &c : {role(), chunk(QJsonObject()), chunk(QJsonObject{{"content", QJsonValue::Null}}), thinking(""),
                                    chunk(QJsonObject{{"tool_calls", QJsonArray()}}), usageChunk(3, 0)})
            QCOMPARE(writer.onChunk(c), QByteArray());
        QVERIFY(!writer.hasStarted());
        QVERIFY(!writer.hasContent());
        QCOMPARE(writer.stats().events, std::uint64_t(0));

        const QList<test::WireEvent> first = test::parseEvents(writer.onChunk(text("Hi")));
        QVERIFY(writer.hasStarted());
        QVERIFY(writer.hasContent());
        QCOMPARE(types(first), (QStringList{"response.created", "response.in_progress", "response.output_item.added",
                                            "response.content_part.added", "response.output_text.delta"}));
        QCOMPARE(first.last().data.value("delta").toString(), QStringLiteral("Hi"));
    }

    void textStreamMatchesTheReference()
    {
        // The reference's Streaming example, replayed from the chunks an upstream would send for it.
        const QList<test::WireEvent> reference = test::parseEvents(test::readResponsesFixture("stream_text.sse"));
        QCOMPARE(reference.size(), 18);
        QVERIFY_GRAMMAR(reference);
        const QJsonObject created = reference.first().data.value("response").toObject();

        ResponseFrame f = frame(created.value("id").toString(), created.value("model").toString());
        f.createdAt = created.value("created_at").toInteger();
        f.echo = QJsonObject{{"instructions", created.value("instructions")}};
        QList<QByteArray> chunks{role()};
        for (const test::WireEvent &e : reference)
            if (e.name == "response.output_text.delta")
                chunks << text(e.data.value("delta").toString());
        chunks << finishWith("stop") << usageChunk(37, 11);

        ResponsesStreamWriter writer(f);
        const QList<test::WireEvent> events = test::parseEvents(run(writer, chunks));
        QVERIFY_GRAMMAR(events);
        QCOMPARE(types(events), types(reference));
        for (qsizetype i = 0; i < events.size(); ++i)
            QCOMPARE(shapeWithoutLogprobs(events.at(i)), shapeWithoutLogprobs(reference.at(i)));
        // The text events carry the logprobs the schemas require.
        QCOMPARE(events.at(4).data.value("logprobs"), QJsonValue(QJsonArray()));

        // The response before the output is the reference's, member for member.
        QCOMPARE(events.at(0).data.value("response").toObject(), created);
        QCOMPARE(events.at(1).data.value("response").toObject(), reference.at(1).data.value("response").toObject());

        // And the completed one, but for what this door writes differently: its own item ids,
        // logprobs on the part, and usage details the reference's newer schema requires.
        QJsonObject expected = reference.last().data.value("response").toObject();
        QJsonObject item = expected.value("output").toArray().at(0).toObject();
        const QJsonObject got = terminalResponse(events);
        item.insert("id", got.value("output").toArray().at(0).toObject().value("id"));
        expected.insert("output", QJsonArray{item});
        QJsonObject usage = expected.value("usage").toObject();
        usage.insert("input_tokens_details", QJsonObject{{"cached_tokens", 0}, {"cache_write_tokens", 0}});
        expected.insert("usage", usage);
        QJsonObject gotComparable = got;
        gotComparable.insert("output", QJsonArray{withoutLogprobs(got.value("output").toArray().at(0).toObject())});
        QCOMPARE(gotComparable, expected);
        QCOMPARE(writer.response(), got);
        QCOMPARE(test::accumulateResponse(events), got);
    }

    void functionCallStreamMatchesTheReference()
    {
        // The function calling guide's streamed get_weather call: id and name in the first piece,
        // the arguments in seven more.
        const QList<test::WireEvent> reference = test::parseEvents(test::readResponsesFixture("stream_function_call.sse"));
        QVERIFY_GRAMMAR(reference);
        const QJsonObject created = reference.first().data.value("response").toObject();
        ResponseFrame f = frame(created.value("id").toString(), created.value("model").toString());
        f.createdAt = created.value("created_at").toInteger();
        f.echo = QJsonObject{{"tools", created.value("tools")}};

        const QJsonObject referenceItem = reference.at(2).data.value("item").toObject();
        QList<QByteArray> chunks{role(), toolPiece(0, referenceItem.value("call_id").toString(), referenceItem.value("name").toString(), "")};
        for (const test::WireEvent &e : reference)
            if (e.name == "response.function_call_arguments.delta")
                chunks << toolPiece(0, QString(), QString(), e.data.value("delta").toString());
        chunks << finishWith("tool_calls") << usageChunk(57, 18);

        ResponsesStreamWriter writer(f);
        const QList<test::WireEvent> events = test::parseEvents(run(writer, chunks));
        QVERIFY_GRAMMAR(events);
        QCOMPARE(types(events), types(reference));
        for (qsizetype i = 0; i < events.size(); ++i)
            QCOMPARE(test::eventShape(events.at(i)), test::eventShape(reference.at(i)));
        QCOMPARE(events.at(0).data.value("response").toObject(), created);

        // The same response, the item id aside (this door derives its own).
        QJsonObject expected = reference.last().data.value("response").toObject();
        QJsonObject item = expected.value("output").toArray().at(0).toObject();
        const QJsonObject got = terminalResponse(events);
        const QString itemId = got.value("output").toArray().at(0).toObject().value("id").toString();
        QVERIFY(itemId.startsWith("fc_"));
        item.insert("id", itemId);
        expected.insert("output", QJsonArray{item});
        QCOMPARE(got, expected);
        // call_id is the upstream's tool call id: the client answers the call with it.
        QCOMPARE(item.value("call_id").toString(), QStringLiteral("call_1234xyz"));
        QCOMPARE(test::accumulateResponse(events), got);
    }

    void textThenTwoParallelCalls()
    {
        // Role chunk, Chinese and Vietnamese text, a call split over four chunks (id and name in the
        // first only), a parallel call in one, the finish chunk, then the usage chunk.
        const QList<QByteArray> chunks = test::openAiPayloads(test::readAnthropicFixture("openai_chunks.sse"));
        QCOMPARE(chunks.size(), 11);
        ResponsesStreamWriter writer(frame("resp_abc"));
        QCOMPARE(writer.onChunk(chunks.at(0)), QByteArray());
        QByteArray out;
        for (qsizetype i = 1; i < chunks.size(); ++i) {
            const QByteArray bytes = writer.onChunk(chunks.at(i));
            if (i == chunks.size() - 1) // the usage chunk waits for finish()
                QCOMPARE(bytes, QByteArray());
            out += bytes;
        }
        out += writer.finish();
        QVERIFY(writer.isFinished());
        QCOMPARE(writer.finish(), QByteArray());
        QCOMPARE(writer.onChunk(chunks.at(1)), QByteArray());

        const QList<test::WireEvent> events = test::parseEvents(out);
        QVERIFY_GRAMMAR(events);
        QCOMPARE(test::collapsedTypes(events),
                 (QStringList{"response.created", "response.in_progress",
                              "response.output_item.added", "response.content_part.added", "response.output_text.delta",
                              "response.output_text.done", "response.content_part.done", "response.output_item.done",
                              "response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done",
                              "response.output_item.done",
                              "response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done",
                              "response.output_item.done", "response.completed"}));

        // Each call has the reference call's events, with the same members.
        const QList<test::WireEvent> reference = test::parseEvents(test::readResponsesFixture("stream_function_call.sse"));
        QCOMPARE(itemShapes(events, 1), itemShapes(reference, 0));
        QCOMPARE(itemShapes(events, 2), itemShapes(reference, 0));

        const QJsonArray output = outputOf(events);
        QCOMPARE(output.size(), 3);
        QCOMPARE(output.at(0).toObject(),
                 (QJsonObject{{"id", "msg_abc_0"}, {"type", "message"}, {"status", "completed"}, {"role", "assistant"},
                              {"content", QJsonArray{QJsonObject{{"type", "output_text"}, {"text", "你好，Xin chào Việt Nam! 我来查一下天气。"},
                                                                 {"annotations", QJsonArray()}, {"logprobs", QJsonArray()}}}}}));
        QCOMPARE(output.at(1).toObject(),
                 (QJsonObject{{"id", "fc_abc_1"}, {"type", "function_call"}, {"status", "completed"}, {"call_id", "call_hanoi"},
                              {"name", "get_weather"}, {"arguments", "{\"location\": \"Hà Nội\", \"unit\": \"celsius\"}"}}));
        QCOMPARE(output.at(2).toObject(),
                 (QJsonObject{{"id", "fc_abc_2"}, {"type", "function_call"}, {"status", "completed"}, {"call_id", "call_beijing"},
                              {"name", "get_weather"}, {"arguments", "{\"location\": \"北京\"}"}}));
        // The arguments delta events add up to the done event's arguments.
        QString arguments;
        for (const test::WireEvent &e : events)
            if (e.name == "response.function_call_arguments.delta" && e.data.value("output_index").toInt() == 1)
                arguments += e.data.value("delta").toString();
        QCOMPARE(arguments, output.at(1).toObject().value("arguments").toString());

        QCOMPARE(terminalResponse(events).value("usage").toObject(),
                 (QJsonObject{{"input_tokens", 120}, {"input_tokens_details", QJsonObject{{"cached_tokens", 100}, {"cache_write_tokens", 0}}},
                              {"output_tokens", 48}, {"output_tokens_details", QJsonObject{{"reasoning_tokens", 0}}}, {"total_tokens", 168}}));
        QCOMPARE(writer.response(), terminalResponse(events));
        QCOMPARE(test::accumulateResponse(events), terminalResponse(events));
        QCOMPARE(writer.stats().chunks, std::uint64_t(11));
        QCOMPARE(writer.stats().items, std::uint64_t(3));
        QCOMPARE(writer.stats().toolCalls, std::uint64_t(2));
        QCOMPARE(writer.stats().events, std::uint64_t(events.size()));
        QCOMPARE(writer.stats().lostToolPieces, std::uint64_t(0));
    }

    void reasoningThenText()
    {
        const QList<test::WireEvent> events =
            runEvents({role(), thinking("The user greets; "), thinking("answer in kind."), text("Hello"), text("!"), finishWith("stop"),
                       usageChunk(10, 30, QJsonObject{{"completion_tokens_details", QJsonObject{{"reasoning_tokens", 24}}}})});
        QVERIFY_GRAMMAR(events);
        QCOMPARE(types(events), (QStringList{"response.created", "response.in_progress",
                                             "response.output_item.added", "response.reasoning_summary_part.added",
                                             "response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
                                             "response.reasoning_summary_text.done", "response.reasoning_summary_part.done",
                                             "response.output_item.done",
                                             "response.output_item.added", "response.content_part.added", "response.output_text.delta",
                                             "response.output_text.delta", "response.output_text.done", "response.content_part.done",
                                             "response.output_item.done", "response.completed"}));
        QCOMPARE(events.at(3).data.value("part").toObject(), (QJsonObject{{"type", "summary_text"}, {"text", ""}}));
        QCOMPARE(events.at(4).data.value("summary_index").toInt(), 0);
        QCOMPARE(events.at(6).data.value("text").toString(), QStringLiteral("The user greets; answer in kind."));
        const QJsonArray output = outputOf(events);
        QCOMPARE(output.at(0).toObject(),
                 (QJsonObject{{"id", "rs_test_0"}, {"type", "reasoning"}, {"status", "completed"},
                              {"summary", QJsonArray{QJsonObject{{"type", "summary_text"}, {"text", "The user greets; answer in kind."}}}}}));
        QCOMPARE(output.at(1).toObject().value("id").toString(), QStringLiteral("msg_test_1"));
        QCOMPARE(output.at(1).toObject().value("content").toArray().at(0).toObject().value("text").toString(), QStringLiteral("Hello!"));
        QCOMPARE(terminalResponse(events).value("usage").toObject().value("output_tokens_details").toObject(),
                 (QJsonObject{{"reasoning_tokens", 24}}));
        QCOMPARE(test::accumulateResponse(events), terminalResponse(events));
    }

    void customToolCallIsWrittenWhole()
    {
        // The upstream saw apply_patch as a function with one string parameter "input"; the client
        // declared it custom and gets its input as the plain text.
        ResponseFrame f = frame();
        f.customTools = {"apply_patch"};
        const QString patch = "*** Begin Patch\n*** Update File: a.txt\n-old\n+mới 新\n*** End Patch";
        const QString arguments = QString::fromUtf8(QJsonDocument(QJsonObject{{"input", patch}}).toJson(QJsonDocument::Compact));
        ResponsesStreamWriter writer(f);
        QCOMPARE(writer.onChunk(role()), QByteArray());
        // Its pieces say nothing yet: the input is decoded from the whole arguments.
        QCOMPARE(writer.onChunk(toolPiece(0, "call_p", "apply_patch", arguments.left(10))), QByteArray());
        QCOMPARE(writer.onChunk(toolPiece(0, QString(), QString(), arguments.mid(10, 20))), QByteArray());
        QCOMPARE(writer.onChunk(toolPiece(0, QString(), QString(), arguments.mid(30))), QByteArray());
        QVERIFY(!writer.hasStarted());
        QByteArray out = writer.onChunk(finishWith("tool_calls"));
        out += writer.finish();
        const QList<test::WireEvent> events = test::parseEvents(out);
        QVERIFY_GRAMMAR(events);
        QCOMPARE(types(events), (QStringList{"response.created", "response.in_progress", "response.output_item.added",
                                             "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done",
                                             "response.output_item.done", "response.completed"}));
        QCOMPARE(events.at(2).data.value("item").toObject(),
                 (QJsonObject{{"id", "ctc_test_0"}, {"type", "custom_tool_call"}, {"status", "in_progress"}, {"call_id", "call_p"},
                              {"name", "apply_patch"}, {"input", ""}}));
        QCOMPARE(events.at(3).data.value("delta").toString(), patch);
        QCOMPARE(events.at(3).data.value("item_id").toString(), QStringLiteral("ctc_test_0"));
        QCOMPARE(events.at(4).data.value("input").toString(), patch);
        QCOMPARE(outputOf(events).at(0).toObject(),
                 (QJsonObject{{"id", "ctc_test_0"}, {"type", "custom_tool_call"}, {"status", "completed"}, {"call_id", "call_p"},
                              {"name", "apply_patch"}, {"input", patch}}));
        QCOMPARE(test::accumulateResponse(events), terminalResponse(events));
    }

    void customAndFunctionCallsSideBySide()
    {
        ResponseFrame f = frame();
        f.customTools = {"apply_patch"};
        const QList<test::WireEvent> events =
            runEvents({toolPiece(0, "call_a", "shell", "{\"cmd\":"), toolPiece(0, QString(), QString(), "\"ls\"}"),
                       toolPiece(1, "call_b", "apply_patch", "{\"input\":\"x\"}"), finishWith("tool_calls")},
                      f);
        QVERIFY_GRAMMAR(events);
        const QJsonArray output = outputOf(events);
        QCOMPARE(output.size(), 2);
        QCOMPARE(output.at(0).toObject().value("type").toString(), QStringLiteral("function_call"));
        QCOMPARE(output.at(0).toObject().value("arguments").toString(), QStringLiteral("{\"cmd\":\"ls\"}"));
        QCOMPARE(output.at(1).toObject().value("type").toString(), QStringLiteral("custom_tool_call"));
        QCOMPARE(output.at(1).toObject().value("input").toString(), QStringLiteral("x"));
        QCOMPARE(output.at(1).toObject().value("id").toString(), QStringLiteral("ctc_test_1"));
    }

    void lengthEndsIncomplete_data()
    {
        QTest::addColumn<QString>("finishReason");
        QTest::addColumn<QString>("reason");
        QTest::newRow("length") << "length" << "max_output_tokens";
        QTest::newRow("content_filter") << "content_filter" << "content_filter";
    }
    void lengthEndsIncomplete()
    {
        QFETCH(QString, finishReason);
        QFETCH(QString, reason);
        const QList<test::WireEvent> events = runEvents({thinking("hmm"), text("The answer is"), finishWith(finishReason), usageChunk(5, 16)});
        QVERIFY_GRAMMAR(events);
        QCOMPARE(events.last().name, QByteArray("response.incomplete"));
        const QJsonObject response = terminalResponse(events);
        QCOMPARE(response.value("status").toString(), QStringLiteral("incomplete"));
        QCOMPARE(response.value("incomplete_details").toObject(), (QJsonObject{{"reason", reason}}));
        // The item the limit cut says so; the one before it was whole.
        QCOMPARE(response.value("output").toArray().at(0).toObject().value("status").toString(), QStringLiteral("completed"));
        QCOMPARE(response.value("output").toArray().at(1).toObject().value("status").toString(), QStringLiteral("incomplete"));
        QCOMPARE(response.value("usage").toObject().value("output_tokens").toInt(), 16);
    }

    void errorChunkAfterContentFails()
    {
        ResponsesStreamWriter writer(frame());
        QByteArray out = writer.onChunk(text("Half an ans"));
        out += writer.onChunk(toolPiece(0, "call_1", "get_weather", "{\"loc"));
        const QByteArray failed = writer.onChunk(errorChunk("upstream_unavailable", "The upstream stream broke."));
        QVERIFY(writer.isFinished());
        out += failed;
        // Nothing after the failure.
        QCOMPARE(writer.onChunk(text("more")), QByteArray());
        QCOMPARE(writer.finish(), QByteArray());
        QCOMPARE(writer.fail(ApiError()), QByteArray());

        const QList<test::WireEvent> events = test::parseEvents(out);
        QVERIFY_GRAMMAR(events);
        QCOMPARE(test::parseEvents(failed).size(), 1);
        QCOMPARE(events.last().name, QByteArray("response.failed"));
        // The cut call gets no output_item.done: a client would run it with half its arguments.
        QCOMPARE(events.at(events.size() - 2).name, QByteArray("response.function_call_arguments.delta"));
        const QJsonObject response = terminalResponse(events);
        QCOMPARE(response.value("status").toString(), QStringLiteral("failed"));
        QCOMPARE(response.value("error").toObject(), (QJsonObject{{"code", "upstream_unavailable"}, {"message", "The upstream stream broke."}}));
        // The reference's failed response has the same members in its error.
        const QJsonObject reference = test::parseEvents(test::readResponsesFixture("stream_failed.sse")).first().data.value("response").toObject();
        QCOMPARE(response.value("error").toObject().keys(), reference.value("error").toObject().keys());
        // Its output is what the client saw: the message whole, the call as it stood, incomplete.
        const QJsonArray output = response.value("output").toArray();
        QCOMPARE(output.size(), 2);
        QCOMPARE(output.at(0).toObject().value("status").toString(), QStringLiteral("completed"));
        QCOMPARE(output.at(1).toObject().value("status").toString(), QStringLiteral("incomplete"));
        QCOMPARE(output.at(1).toObject().value("arguments").toString(), QStringLiteral("{\"loc"));
        QCOMPARE(writer.response(), response);
    }

    void failBeforeContentIsStillAWholeStream()
    {
        ResponsesStreamWriter writer(frame());
        QCOMPARE(writer.onChunk(role()), QByteArray());
        ApiError error;
        error.status = 429;
        error.message = "Slow down.";
        const QList<test::WireEvent> events = test::parseEvents(writer.fail(error));
        QVERIFY_GRAMMAR(events);
        QCOMPARE(types(events), (QStringList{"response.created", "response.in_progress", "response.failed"}));
        // A code is required; a 429 without one is named as OpenAI names it.
        QCOMPARE(terminalResponse(events).value("error").toObject(), (QJsonObject{{"code", "rate_limit_exceeded"}, {"message", "Slow down."}}));
        ApiError other;
        other.status = 502;
        ResponsesStreamWriter second(frame());
        QCOMPARE(terminalResponse(test::parseEvents(second.fail(other))).value("error").toObject().value("code").toString(),
                 QStringLiteral("server_error"));
    }

    void finishWithoutContent()
    {
        ResponsesStreamWriter writer(frame());
        QCOMPARE(writer.onChunk(role()), QByteArray());
        QCOMPARE(writer.onChunk(finishWith("stop")), QByteArray());
        const QList<test::WireEvent> events = test::parseEvents(writer.finish());
        QVERIFY_GRAMMAR(events);
        QCOMPARE(types(events), (QStringList{"response.created", "response.in_progress", "response.completed"}));
        QCOMPARE(terminalResponse(events).value("output").toArray(), QJsonArray());
        QVERIFY(terminalResponse(events).value("usage").isNull()); // the upstream reported none
        QVERIFY(!writer.hasContent());
    }

    void sequenceNumbersAndItemIds()
    {
        const QList<test::WireEvent> events =
            runEvents({thinking("a"), text("b"), toolPiece(0, "call_1", "f", "{}"), thinking("c"), text("d"), finishWith("stop")},
                      frame("resp_seq"));
        QVERIFY_GRAMMAR(events);
        for (qsizetype i = 0; i < events.size(); ++i)
            QCOMPARE(events.at(i).data.value("sequence_number").toInt(), int(i));
        // Every event of an item names it by the id it was added with.
        QHash<int, QString> idOf;
        for (const test::WireEvent &e : events) {
            if (e.name == "response.output_item.added")
                idOf.insert(e.data.value("output_index").toInt(), e.data.value("item").toObject().value("id").toString());
            else if (e.data.contains("item_id"))
                QCOMPARE(e.data.value("item_id").toString(), idOf.value(e.data.value("output_index").toInt()));
        }
        QCOMPARE(idOf.size(), 5);
        QCOMPARE(idOf.value(0), QStringLiteral("rs_seq_0"));
        QCOMPARE(idOf.value(1), QStringLiteral("msg_seq_1"));
        QCOMPARE(idOf.value(2), QStringLiteral("fc_seq_2"));
        QCOMPARE(idOf.value(3), QStringLiteral("rs_seq_3"));
        QCOMPARE(idOf.value(4), QStringLiteral("msg_seq_4"));
        // The same stream writes the same bytes: ids are deterministic.
        QCOMPARE(runEvents({thinking("a"), text("b")}, frame("resp_seq")).at(2).raw,
                 runEvents({thinking("a"), text("b")}, frame("resp_seq")).at(2).raw);
    }

    void multibyteTextSurvives()
    {
        const QStringList pieces{"Xin chào ", "Việt Nam, ", "tiếng Việt có dấu; ", "你好，世界。", "😀🎉 ", "👩‍💻", " \"quoted\" \\ back\nline\ttab \u0001"};
        QList<QByteArray> chunks{role()};
        for (const QString &p : pieces)
            chunks << text(p);
        chunks << finishWith("stop");
        ResponsesStreamWriter writer(frame());
        const QByteArray out = run(writer, chunks);
        QVERIFY(out.contains(QStringLiteral("Việt Nam").toUtf8()));
        const QList<test::WireEvent> events = test::parseEvents(out);
        QVERIFY_GRAMMAR(events);
        QStringList deltas;
        for (const test::WireEvent &e : events)
            if (e.name == "response.output_text.delta")
                deltas << e.data.value("delta").toString();
        QCOMPARE(deltas, pieces);
        const QString whole = pieces.join(QString());
        QCOMPARE(outputOf(events).at(0).toObject().value("content").toArray().at(0).toObject().value("text").toString(), whole);
        QCOMPARE(test::accumulateResponse(events), terminalResponse(events));
    }

    void refusalIsItsOwnPart()
    {
        const QList<test::WireEvent> events =
            runEvents({chunk(QJsonObject{{"refusal", "I can't "}}), chunk(QJsonObject{{"refusal", "help with that."}}), finishWith("stop")});
        QVERIFY_GRAMMAR(events);
        QCOMPARE(types(events), (QStringList{"response.created", "response.in_progress", "response.output_item.added",
                                             "response.content_part.added", "response.refusal.delta", "response.refusal.delta",
                                             "response.refusal.done", "response.content_part.done", "response.output_item.done",
                                             "response.completed"}));
        QCOMPARE(outputOf(events).at(0).toObject().value("content").toArray(),
                 (QJsonArray{QJsonObject{{"type", "refusal"}, {"refusal", "I can't help with that."}}}));
        QCOMPARE(test::accumulateResponse(events), terminalResponse(events));
    }

    void toolNameArrivingAfterTheFirstPiece()
    {
        // Argument pieces before the name wait for it: the added item must carry the name.
        ResponsesStreamWriter writer(frame());
        QCOMPARE(writer.onChunk(toolPiece(0, "call_x", QString(), "{\"a\":")), QByteArray());
        const QList<test::WireEvent> started = test::parseEvents(writer.onChunk(toolPiece(0, QString(), "lookup", "1}")));
        QCOMPARE(types(started), (QStringList{"response.created", "response.in_progress", "response.output_item.added",
                                              "response.function_call_arguments.delta"}));
        QCOMPARE(started.at(2).data.value("item").toObject().value("name").toString(), QStringLiteral("lookup"));
        QCOMPARE(started.at(3).data.value("delta").toString(), QStringLiteral("{\"a\":1}"));

        // A call whose name never comes still goes out at the end, with its arguments.
        const QList<test::WireEvent> nameless = runEvents({toolPiece(0, "call_y", QString(), "{}"), finishWith("tool_calls")});
        QVERIFY_GRAMMAR(nameless);
        QCOMPARE(outputOf(nameless).at(0).toObject().value("arguments").toString(), QStringLiteral("{}"));
    }

    void parallelCallsNumberedZeroAndRepeatedIds()
    {
        // Servers that number every call 0 and tell them apart by id; one that gives two calls the
        // same id gets them told apart (the SDK refuses two items with one call_id).
        const QList<test::WireEvent> byId = runEvents({toolPiece(0, "call_a", "f", "{}"), toolPiece(0, "call_b", "g", "{}"), finishWith("tool_calls")});
        QVERIFY_GRAMMAR(byId);
        QCOMPARE(outputOf(byId).size(), 2);
        QCOMPARE(outputOf(byId).at(1).toObject().value("call_id").toString(), QStringLiteral("call_b"));

        const QList<test::WireEvent> same = runEvents({toolPiece(0, "call_0", "f", "{}"), toolPiece(1, "call_0", "f", "{}"), finishWith("tool_calls")});
        QVERIFY_GRAMMAR(same);
        QCOMPARE(outputOf(same).at(0).toObject().value("call_id").toString(), QStringLiteral("call_0"));
        QCOMPARE(outputOf(same).at(1).toObject().value("call_id").toString(), QStringLiteral("call_0_1"));

        // A call without an id gets one.
        const QList<test::WireEvent> noId = runEvents({toolPiece(0, QString(), "f", "{}"), finishWith("tool_calls")});
        QCOMPARE(outputOf(noId).at(0).toObject().value("call_id").toString(), QStringLiteral("call_test_0"));
    }

    void interleavedPiecesOfADoneCallAreCounted()
    {
        ResponsesStreamWriter writer(frame());
        const QList<test::WireEvent> events = test::parseEvents(
            run(writer, {toolPiece(0, "call_a", "f", "{\"x\":"), toolPiece(1, "call_b", "g", "{}"), toolPiece(0, QString(), QString(), "1}"),
                         finishWith("tool_calls")}));
        QVERIFY_GRAMMAR(events);
        QCOMPARE(writer.stats().lostToolPieces, std::uint64_t(1));
        QCOMPARE(outputOf(events).size(), 2);
    }

    void echoedParametersAndOtherChoices()
    {
        ResponseFrame f = frame();
        f.echo = QJsonObject{{"temperature", 0.2}, {"max_output_tokens", 64}, {"metadata", QJsonObject{{"k", "v"}}},
                             {"previous_response_id", "resp_prev"}, {"store", false},
                             // The response's own members are not the request's to set.
                             {"id", "resp_forged"}, {"status", "completed"}, {"model", "upstream-model"}};
        const QList<test::WireEvent> events = runEvents({text("a"), chunk(QJsonObject{{"content", "other choice"}}, QJsonValue::Null, 1)}, f);
        QVERIFY_GRAMMAR(events);
        const QJsonObject response = terminalResponse(events);
        QCOMPARE(response.value("id").toString(), QStringLiteral("resp_test"));
        QCOMPARE(response.value("model").toString(), QStringLiteral("gpt-test"));
        QCOMPARE(response.value("temperature").toDouble(), 0.2);
        QCOMPARE(response.value("max_output_tokens").toInt(), 64);
        QCOMPARE(response.value("metadata").toObject(), (QJsonObject{{"k", "v"}}));
        QCOMPARE(response.value("previous_response_id").toString(), QStringLiteral("resp_prev"));
        QCOMPARE(response.value("store").toBool(true), false);
        QVERIFY(!response.contains("output_text")); // an SDK convenience, not the API's
        QCOMPARE(outputOf(events).size(), 1);
        QCOMPARE(outputOf(events).at(0).toObject().value("content").toArray().at(0).toObject().value("text").toString(), QStringLiteral("a"));
    }

    void malformedChunksAreSkipped()
    {
        ResponsesStreamWriter writer(frame());
        QCOMPARE(writer.onChunk("not json"), QByteArray());
        QCOMPARE(writer.onChunk("[1,2]"), QByteArray());
        QCOMPARE(writer.stats().malformedChunks, std::uint64_t(2));
        QVERIFY(!writer.hasStarted());
        QVERIFY_GRAMMAR(test::parseEvents(run(writer, {text("ok"), finishWith("stop")})));
    }

    void grammarCheckCatchesBrokenStreams()
    {
        // The check every test above relies on finds what the SDK would throw on.
        const QList<test::WireEvent> good =
            runEvents({text("a"), toolPiece(0, "call_1", "f", "{}"), toolPiece(1, "call_2", "g", "{}"), finishWith("tool_calls")});
        QVERIFY_GRAMMAR(good);
        const auto broken = [&](const std::function<void(QList<test::WireEvent> &)> &change) {
            QList<test::WireEvent> events = good;
            change(events);
            return test::responsesGrammarViolation(events);
        };
        const auto indexOf = [&](const QByteArray &name, int outputIndex) {
            for (qsizetype i = 0; i < good.size(); ++i)
                if (good.at(i).name == name && good.at(i).data.value("output_index").toInt(-1) == outputIndex)
                    return int(i);
            return -1;
        };
        QVERIFY(broken([](auto &e) { e[3].data.insert("sequence_number", 7); }).contains("sequence_number"));
        QVERIFY(broken([](auto &e) {
                    e.swapItemsAt(0, 1);
                    e[0].data.insert("sequence_number", 0);
                    e[1].data.insert("sequence_number", 1);
                }).contains("response.created"));
        QVERIFY(broken([&](auto &e) { e[indexOf("response.output_text.delta", 0)].data.insert("item_id", "msg_other"); }).contains("item_id"));
        QVERIFY(broken([&](auto &e) {
                    QJsonObject item = e[indexOf("response.output_item.added", 2)].data.value("item").toObject();
                    item.insert("call_id", "call_1");
                    e[indexOf("response.output_item.added", 2)].data.insert("item", item);
                }).contains("call_id"));
        QVERIFY(broken([&](auto &e) {
                    const int done = indexOf("response.output_item.done", 1);
                    e.removeAt(done);
                    for (qsizetype i = done; i < e.size(); ++i)
                        e[i].data.insert("sequence_number", int(i));
                }).contains("is open"));
        QVERIFY(broken([](auto &e) { e.append(e.at(2)); }).contains("not the last"));
        QVERIFY(broken([](auto &e) {
                    QJsonObject response = e.last().data.value("response").toObject();
                    response.insert("status", "incomplete");
                    e.last().data.insert("response", response);
                }).contains("status"));
    }

    void responseBeforeTheEnd()
    {
        // response() is the object as it stands: the items done so far, still in progress.
        ResponsesStreamWriter writer(frame());
        QCOMPARE(writer.response().value("status").toString(), QStringLiteral("in_progress"));
        writer.onChunk(text("a"));
        QCOMPARE(writer.response().value("output").toArray().size(), 0);
        writer.onChunk(toolPiece(0, "call_1", "f", "{}"));
        QCOMPARE(writer.response().value("output").toArray().size(), 1);
        QCOMPARE(writer.response().value("status").toString(), QStringLiteral("in_progress"));
    }
};

QTEST_GUILESS_MAIN(tst_ResponsesStreamWriter)
#include "tst_ResponsesStreamWriter.moc"
