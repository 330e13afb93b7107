#include "frontends/openai_responses/ResponsesStreamWriter.h"

#include "common/json/JsonText.h"
#include "frontends/ChatMessageParts.h"
#include "frontends/openai_responses/ResponseObject.h"
#include "frontends/openai_responses/ResponsesAnswer.h"
#include "providers/common/ProviderText.h"

namespace sb {

namespace {

const QLatin1String kIndex("index"), kInProgress("in_progress");
const QString kCompleted = QStringLiteral("completed");
const QString kIncomplete = QStringLiteral("incomplete");

// The engine's in-band error ({"error": {message, type, code, status?}}) as an ApiError. A code
// some servers send as a number stays readable; a stream that broke is the upstream's failure.
ApiError inBandError(const QJsonObject &e)
{
    ApiError error;
    const QJsonValue status = e.value(QLatin1String("status"));
    error.status = status.isDouble() ? status.toInt() : 502;
    error.message = e.value(QLatin1String("message")).toString();
    error.type = e.value(QLatin1String("type")).toString(QStringLiteral("upstream_error"));
    const QJsonValue code = e.value(QLatin1String("code"));
    error.code = code.isDouble() ? QString::number(code.toInteger()) : code.toString();
    error.param = e.value(QLatin1String("param")).toString();
    return error;
}

} // namespace

ResponsesStreamWriter::ResponsesStreamWriter(ResponseFrame frame)
    : m_frame(std::move(frame))
    , m_response(ResponseObject::response(m_frame))
{
}

void ResponsesStreamWriter::write(const char *type, const QByteArray &json, QByteArray &out)
{
    out += "event: ";
    out += type;
    out += "\ndata: ";
    out += json;
    out += "\n\n";
    ++m_sequence;
    ++m_stats.events;
}

bool ResponsesStreamWriter::continueFrom(int nextSequence, const QStringList &upstreamItemIds)
{
    if (m_finished || qsizetype(m_stats.items) != upstreamItemIds.size())
        return false;
    m_sequence = nextSequence;
    for (qsizetype i = 0; i < m_output.size(); ++i) {
        QJsonObject item = m_output.at(i).toObject();
        item.insert(QStringLiteral("id"), upstreamItemIds.at(i));
        m_output.replace(i, item);
    }
    if (m_item.added && m_item.outputIndex >= 0 && m_item.outputIndex < upstreamItemIds.size())
        m_item.id = upstreamItemIds.at(m_item.outputIndex);
    return true;
}

void ResponsesStreamWriter::event(const char *type, QJsonObject data, QByteArray &out)
{
    data.insert(QStringLiteral("type"), QLatin1String(type));
    data.insert(QStringLiteral("sequence_number"), m_sequence);
    write(type, compactJson(data), out);
}

void ResponsesStreamWriter::itemEvent(const char *type, QJsonObject data, QByteArray &out)
{
    data.insert(QStringLiteral("item_id"), m_item.id);
    data.insert(QStringLiteral("output_index"), m_item.outputIndex);
    event(type, std::move(data), out);
}

void ResponsesStreamWriter::delta(const char *type, const char *indexName, int index, const QString &value, bool logprobs,
                                  QByteArray &out)
{
    // Written by hand: this is the event of every token.
    QByteArray json;
    json.reserve(120 + m_item.id.size() + value.size() * 3 / 2);
    json += R"({"type":")";
    json += type;
    json += R"(","sequence_number":)";
    appendJsonNumber(&json, m_sequence);
    json += R"(,"item_id":)";
    appendJsonString(&json, m_item.id);
    json += R"(,"output_index":)";
    appendJsonNumber(&json, m_item.outputIndex);
    if (indexName) {
        json += ",\"";
        json += indexName;
        json += "\":";
        appendJsonNumber(&json, index);
    }
    json += R"(,"delta":)";
    appendJsonString(&json, value);
    if (logprobs)
        json += R"(,"logprobs":[])";
    json += '}';
    write(type, json, out);
}

void ResponsesStreamWriter::lifecycle(const char *type, QByteArray &out)
{
    event(type, QJsonObject{{QStringLiteral("response"), m_response}}, out);
}

void ResponsesStreamWriter::ensureStarted(QByteArray &out)
{
    if (m_started)
        return;
    m_started = true;
    lifecycle("response.created", out);
    lifecycle("response.in_progress", out);
}

QJsonValue ResponsesStreamWriter::usageSoFar() const
{
    return m_usage.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(ResponsesAnswer::usage(m_usage));
}

bool ResponsesStreamWriter::isCustomTool() const
{
    return m_item.kind == Kind::Tool && m_frame.customTools.contains(m_item.name);
}

QJsonObject ResponsesStreamWriter::partObject() const
{
    return m_item.part == Part::Refusal ? ResponseObject::refusal(m_item.text) : ResponseObject::outputText(m_item.text);
}

QJsonObject ResponsesStreamWriter::itemObject(const QString &status) const
{
    // As added, an item is empty: its content follows in the events after.
    const bool empty = status == kInProgress;
    switch (m_item.kind) {
    case Kind::Reasoning:
        return ResponseObject::reasoning(m_item.id, status, empty ? QJsonArray() : QJsonArray{ResponseObject::summaryText(m_item.text)});
    case Kind::Message: {
        QJsonArray content = empty ? QJsonArray() : m_item.parts;
        if (!empty && m_item.part != Part::None)
            content.append(partObject());
        return ResponseObject::message(m_item.id, status, content);
    }
    case Kind::Tool:
        if (isCustomTool())
            return ResponseObject::customToolCall(m_item.id, status, m_item.callId, m_item.name,
                                                 empty ? QString() : ResponseObject::customToolInput(m_item.arguments));
        return ResponseObject::functionCall(m_item.id, status, m_item.callId, m_item.name, empty ? QString() : m_item.arguments);
    case Kind::None:
        break;
    }
    return QJsonObject();
}

void ResponsesStreamWriter::addItem(QByteArray &out)
{
    ensureStarted(out);
    m_item.added = true;
    m_item.outputIndex = int(m_output.size());
    ++m_stats.items;
    QLatin1String prefix("msg");
    if (m_item.kind == Kind::Reasoning) {
        prefix = QLatin1String("rs");
    } else if (m_item.kind == Kind::Tool) {
        prefix = isCustomTool() ? QLatin1String("ctc") : QLatin1String("fc");
        m_item.callId = ResponseObject::callId(m_frame, m_item.upstreamId, m_item.outputIndex, &m_callIds);
        ++m_stats.toolCalls;
    }
    m_item.id = ResponseObject::itemId(m_frame, prefix, m_item.outputIndex);
    event("response.output_item.added",
          QJsonObject{{QStringLiteral("output_index"), m_item.outputIndex}, {QStringLiteral("item"), itemObject(kInProgress)}}, out);
}

void ResponsesStreamWriter::closePart(QByteArray &out)
{
    if (m_item.part == Part::None)
        return;
    const int contentIndex = int(m_item.parts.size());
    if (m_item.part == Part::Text)
        itemEvent("response.output_text.done",
                  QJsonObject{{QStringLiteral("content_index"), contentIndex},
                              {QStringLiteral("text"), m_item.text},
                              {QStringLiteral("logprobs"), QJsonArray()}},
                  out);
    else
        itemEvent("response.refusal.done", QJsonObject{{QStringLiteral("content_index"), contentIndex}, {QStringLiteral("refusal"), m_item.text}},
                  out);
    itemEvent("response.content_part.done", QJsonObject{{QStringLiteral("content_index"), contentIndex}, {QStringLiteral("part"), partObject()}},
              out);
    m_item.parts.append(partObject());
    m_item.part = Part::None;
    m_item.text.clear();
}

void ResponsesStreamWriter::closeToolCall(QByteArray &out)
{
    // A call whose name never came is still sent: dropping it would lose the arguments.
    if (!m_item.added)
        addItem(out);
    if (isCustomTool()) {
        const QString input = ResponseObject::customToolInput(m_item.arguments);
        if (!input.isEmpty())
            delta("response.custom_tool_call_input.delta", nullptr, 0, input, false, out);
        itemEvent("response.custom_tool_call_input.done", QJsonObject{{QStringLiteral("input"), input}}, out);
    } else {
        itemEvent("response.function_call_arguments.done",
                  QJsonObject{{QStringLiteral("name"), m_item.name}, {QStringLiteral("arguments"), m_item.arguments}}, out);
    }
    m_closedTools.append(m_item.toolIndex);
}

void ResponsesStreamWriter::closeItem(const QString &status, QByteArray &out)
{
    switch (m_item.kind) {
    case Kind::None:
        return;
    case Kind::Reasoning:
        itemEvent("response.reasoning_summary_text.done", QJsonObject{{QStringLiteral("summary_index"), 0}, {QStringLiteral("text"), m_item.text}},
                  out);
        itemEvent("response.reasoning_summary_part.done",
                  QJsonObject{{QStringLiteral("summary_index"), 0}, {QStringLiteral("part"), ResponseObject::summaryText(m_item.text)}}, out);
        break;
    case Kind::Message:
        closePart(out);
        break;
    case Kind::Tool:
        closeToolCall(out);
        break;
    }
    const QJsonObject item = itemObject(status);
    event("response.output_item.done", QJsonObject{{QStringLiteral("output_index"), m_item.outputIndex}, {QStringLiteral("item"), item}}, out);
    m_output.append(item);
    m_response.insert(QStringLiteral("output"), m_output);
    m_item = Item();
}

void ResponsesStreamWriter::reasoningDelta(const QString &text, QByteArray &out)
{
    if (m_item.kind != Kind::Reasoning) {
        closeItem(kCompleted, out);
        m_item.kind = Kind::Reasoning;
        addItem(out);
        itemEvent("response.reasoning_summary_part.added",
                  QJsonObject{{QStringLiteral("summary_index"), 0}, {QStringLiteral("part"), ResponseObject::summaryText(QString())}}, out);
    }
    delta("response.reasoning_summary_text.delta", "summary_index", 0, text, false, out);
    m_item.text += text;
}

void ResponsesStreamWriter::messageDelta(Part part, const QString &text, QByteArray &out)
{
    if (m_item.kind != Kind::Message) {
        closeItem(kCompleted, out);
        m_item.kind = Kind::Message;
        addItem(out);
    }
    if (m_item.part != part) {
        closePart(out);
        m_item.part = part;
        itemEvent("response.content_part.added",
                  QJsonObject{{QStringLiteral("content_index"), int(m_item.parts.size())},
                              {QStringLiteral("part"), part == Part::Text ? ResponseObject::outputText(QString()) : ResponseObject::refusal(QString())}},
                  out);
    }
    if (part == Part::Text)
        delta("response.output_text.delta", "content_index", int(m_item.parts.size()), text, true, out);
    else
        delta("response.refusal.delta", "content_index", int(m_item.parts.size()), text, false, out);
    m_item.text += text;
}

void ResponsesStreamWriter::toolCallDelta(const QJsonObject &call, QByteArray &out)
{
    const bool toolOpen = m_item.kind == Kind::Tool;
    const QJsonValue indexValue = call.value(kIndex);
    const int index = indexValue.isDouble() ? indexValue.toInt() : (toolOpen ? m_item.toolIndex : 0);
    const QString id = call.value(QLatin1String("id")).toString();
    const QJsonObject function = call.value(QLatin1String("function")).toObject();
    const QString name = function.value(QLatin1String("name")).toString();
    const QString arguments = function.value(QLatin1String("arguments")).toString();

    // Some servers number every parallel call 0 and tell them apart by id only; others repeat the
    // id (and name) on every piece of one call.
    const bool sameCall = toolOpen && index == m_item.toolIndex && (id.isEmpty() || id == m_item.upstreamId);
    if (!sameCall) {
        // A piece of a call whose item is done cannot be sent any more; OpenAI streams calls one
        // after the other, so this does not happen there.
        if (id.isEmpty() && name.isEmpty() && m_closedTools.contains(index)) {
            if (!arguments.isEmpty())
                ++m_stats.lostToolPieces;
            return;
        }
        closeItem(kCompleted, out);
        m_item.kind = Kind::Tool;
        m_item.toolIndex = index;
        m_item.upstreamId = id;
        m_item.name = name;
    } else if (!m_item.added) {
        if (m_item.name.isEmpty())
            m_item.name = name;
        if (m_item.upstreamId.isEmpty())
            m_item.upstreamId = id;
    }
    m_item.arguments += arguments;
    if (!m_item.added) {
        // A custom tool's input is decoded from the whole arguments: its item waits for them.
        if (!m_item.name.isEmpty() && !isCustomTool()) {
            addItem(out);
            if (!m_item.arguments.isEmpty())
                delta("response.function_call_arguments.delta", nullptr, 0, m_item.arguments, false, out);
        }
        return;
    }
    if (!arguments.isEmpty())
        delta("response.function_call_arguments.delta", nullptr, 0, arguments, false, out);
}

QByteArray ResponsesStreamWriter::onChunk(const QByteArray &openAiChunkJson)
{
    if (m_finished)
        return QByteArray();
    ++m_stats.chunks;
    QJsonObject chunk;
    if (!parseJsonObject(openAiChunkJson, &chunk)) {
        ++m_stats.malformedChunks;
        return QByteArray();
    }
    const QJsonValue errorValue = chunk.value(QLatin1String("error"));
    if (errorValue.isObject())
        return fail(inBandError(errorValue.toObject()));
    const QJsonValue usage = chunk.value(QLatin1String("usage"));
    if (usage.isObject() && !usage.toObject().isEmpty())
        m_usage = usage.toObject();

    QByteArray out;
    for (const QJsonValue &choiceValue : chunk.value(QLatin1String("choices")).toArray()) {
        const QJsonObject choice = choiceValue.toObject();
        // A response has one answer; further choices (n > 1) have no place in it.
        if (choice.value(kIndex).toInt(0) != 0)
            continue;
        const QJsonObject delta = choice.value(QLatin1String("delta")).toObject();
        const QString reasoning = chatReasoning(delta);
        if (!reasoning.isEmpty())
            reasoningDelta(reasoning, out);
        const QString content = delta.value(QLatin1String("content")).toString();
        if (!content.isEmpty())
            messageDelta(Part::Text, content, out);
        const QString refusal = delta.value(QLatin1String("refusal")).toString();
        if (!refusal.isEmpty())
            messageDelta(Part::Refusal, refusal, out);
        for (const QJsonValue &call : delta.value(QLatin1String("tool_calls")).toArray())
            toolCallDelta(call.toObject(), out);
        const QString finishReason = choice.value(QLatin1String("finish_reason")).toString();
        if (!finishReason.isEmpty()) {
            // The item open when the answer was cut short is the one it cut.
            m_finishReason = finishReason;
            closeItem(ResponseObject::incompleteReason(finishReason).isEmpty() ? kCompleted : kIncomplete, out);
        }
    }
    return out;
}

QByteArray ResponsesStreamWriter::finish()
{
    if (m_finished)
        return QByteArray();
    QByteArray out;
    ensureStarted(out);
    const QString reason = ResponseObject::incompleteReason(m_finishReason);
    closeItem(reason.isEmpty() ? kCompleted : kIncomplete, out);
    m_finished = true;
    ResponseObject::conclude(&m_response, reason, m_output, usageSoFar());
    lifecycle(reason.isEmpty() ? "response.completed" : "response.incomplete", out);
    return out;
}

QByteArray ResponsesStreamWriter::fail(const ApiError &error)
{
    if (m_finished)
        return QByteArray();
    QByteArray out;
    ensureStarted(out);
    m_finished = true;
    QJsonArray output = m_output;
    if (m_item.added)
        output.append(itemObject(kIncomplete));
    ResponseObject::fail(&m_response, error, output);
    m_response.insert(QStringLiteral("usage"), usageSoFar());
    lifecycle("response.failed", out);
    return out;
}

} // namespace sb
