#include "frontends/anthropic_messages/AnthropicStreamWriter.h"

#include "common/json/JsonText.h"
#include "frontends/ChatMessageParts.h"
#include "frontends/anthropic_messages/AnthropicAnswer.h"
#include "providers/common/ProviderText.h"

#include <QJsonArray>

namespace sb {

namespace {

const QLatin1String kType("type"), kIndex("index");

} // namespace

AnthropicStreamWriter::AnthropicStreamWriter(QString model, QString messageId, QStringList stopSequences)
    : m_model(std::move(model))
    , m_messageId(std::move(messageId))
    , m_stopSequences(std::move(stopSequences))
{
    for (const QString &stop : std::as_const(m_stopSequences))
        m_longestStop = qMax(m_longestStop, stop.size());
}

void AnthropicStreamWriter::event(const char *type, const QByteArray &json, QByteArray &out)
{
    out += "event: ";
    out += type;
    out += "\ndata: ";
    out += json;
    out += "\n\n";
    ++m_stats.events;
}

void AnthropicStreamWriter::delta(const char *deltaType, const char *field, const QString &value, QByteArray &out)
{
    // Written by hand: this is the event of every token.
    QByteArray json;
    json.reserve(80 + value.size() * 3 / 2);
    json += R"({"type":"content_block_delta","index":)";
    appendJsonNumber(&json, m_index);
    json += R"(,"delta":{"type":")";
    json += deltaType;
    json += R"(",")";
    json += field;
    json += R"(":)";
    appendJsonString(&json, value);
    json += "}}";
    event("content_block_delta", json, out);
}

QJsonObject AnthropicStreamWriter::usageSoFar() const
{
    if (m_usage.isEmpty())
        return QJsonObject{{QStringLiteral("input_tokens"), 0}, {QStringLiteral("output_tokens"), 0}};
    return AnthropicAnswer::usage(m_usage);
}

void AnthropicStreamWriter::ensureStarted(QByteArray &out)
{
    if (m_started)
        return;
    m_started = true;
    const QJsonObject message{{QStringLiteral("id"), m_messageId},
                              {kType, QStringLiteral("message")},
                              {QStringLiteral("role"), QStringLiteral("assistant")},
                              {QStringLiteral("model"), m_model},
                              {QStringLiteral("content"), QJsonArray()},
                              {QStringLiteral("stop_reason"), QJsonValue(QJsonValue::Null)},
                              {QStringLiteral("stop_sequence"), QJsonValue(QJsonValue::Null)},
                              {QStringLiteral("usage"), usageSoFar()}};
    event("message_start", compactJson(QJsonObject{{kType, QStringLiteral("message_start")}, {QStringLiteral("message"), message}}), out);
}

void AnthropicStreamWriter::openBlock(Block kind, QByteArray &out)
{
    if (m_open == kind)
        return;
    ensureStarted(out);
    closeBlock(out);
    m_open = kind;
    m_index = m_nextIndex++;
    ++m_stats.blocks;
    const QJsonObject block = kind == Block::Thinking
        ? QJsonObject{{kType, QStringLiteral("thinking")}, {QStringLiteral("thinking"), QString()}, {QStringLiteral("signature"), QString()}}
        : QJsonObject{{kType, QStringLiteral("text")}, {QStringLiteral("text"), QString()}};
    event("content_block_start",
          compactJson(QJsonObject{{kType, QStringLiteral("content_block_start")}, {kIndex, m_index}, {QStringLiteral("content_block"), block}}),
          out);
}

void AnthropicStreamWriter::startPendingTool(QByteArray &out)
{
    m_toolPending = false;
    ensureStarted(out);
    m_open = Block::Tool;
    m_index = m_nextIndex++;
    ++m_stats.blocks;
    ++m_stats.toolCalls;
    m_sawToolUse = true;
    if (m_toolId.isEmpty())
        m_toolId = QStringLiteral("toolu_%1_%2").arg(m_messageId).arg(m_index);
    const QJsonObject block{{kType, QStringLiteral("tool_use")},
                            {QStringLiteral("id"), m_toolId},
                            {QStringLiteral("name"), m_toolName},
                            {QStringLiteral("input"), QJsonObject()}};
    event("content_block_start",
          compactJson(QJsonObject{{kType, QStringLiteral("content_block_start")}, {kIndex, m_index}, {QStringLiteral("content_block"), block}}),
          out);
    if (!m_pendingArguments.isEmpty()) {
        delta("input_json_delta", "partial_json", m_pendingArguments, out);
        m_pendingArguments.clear();
    }
}

void AnthropicStreamWriter::closeBlock(QByteArray &out)
{
    // A call whose name never came still gets its block: dropping it would lose the arguments.
    if (m_toolPending)
        startPendingTool(out);
    if (m_open == Block::None)
        return;
    QByteArray json(R"({"type":"content_block_stop","index":)");
    appendJsonNumber(&json, m_index);
    json += '}';
    event("content_block_stop", json, out);
    if (m_open == Block::Tool) {
        m_closedTools.append(m_toolIndex);
        m_toolIndex = -1;
        m_toolId.clear();
        m_toolName.clear();
    }
    m_open = Block::None;
}

void AnthropicStreamWriter::toolCallDelta(const QJsonObject &call, QByteArray &out)
{
    const bool toolOpen = m_open == Block::Tool || m_toolPending;
    const QJsonValue indexValue = call.value(kIndex);
    const int index = indexValue.isDouble() ? indexValue.toInt() : (toolOpen ? m_toolIndex : 0);
    const QString id = call.value(QLatin1String("id")).toString();
    const QJsonObject function = call.value(QLatin1String("function")).toObject();
    const QString name = function.value(QLatin1String("name")).toString();
    const QString arguments = function.value(QLatin1String("arguments")).toString();

    // Some servers number every parallel call 0 and tell them apart by id only; others repeat the
    // id (and name) on every piece of one call.
    const bool sameCall = toolOpen && index == m_toolIndex && (id.isEmpty() || id == m_toolId);
    if (!sameCall) {
        // A piece of a call whose block has already stopped cannot be sent any more (a block is never
        // reopened); OpenAI streams calls one after the other, so this does not happen there.
        if (id.isEmpty() && name.isEmpty() && m_closedTools.contains(index))
            return;
        closeBlock(out);
        m_toolIndex = index;
        m_toolId = id;
        m_toolName = name;
        m_pendingArguments.clear();
        m_toolPending = true;
    } else if (m_toolPending) {
        if (m_toolName.isEmpty())
            m_toolName = name;
        if (m_toolId.isEmpty())
            m_toolId = id;
    }
    if (m_toolPending) {
        m_pendingArguments += arguments;
        if (!m_toolName.isEmpty())
            startPendingTool(out);
        return;
    }
    if (!arguments.isEmpty())
        delta("input_json_delta", "partial_json", arguments, out);
}

void AnthropicStreamWriter::rememberText(const QString &text)
{
    if (m_longestStop == 0)
        return;
    m_textEnd += text;
    if (m_textEnd.size() > m_longestStop)
        m_textEnd = m_textEnd.right(m_longestStop);
}

QByteArray AnthropicStreamWriter::onChunk(const QByteArray &openAiChunkJson)
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
    if (errorValue.isObject()) {
        const QJsonObject e = errorValue.toObject();
        return error(AnthropicError::fromOpenAi(0, e.value(kType).toString(), e.value(QLatin1String("code")).toString(),
                                                e.value(QLatin1String("message")).toString()));
    }
    const QJsonValue usage = chunk.value(QLatin1String("usage"));
    if (usage.isObject() && !usage.toObject().isEmpty())
        m_usage = usage.toObject();

    // message_start waits for the first block: until content arrives the client has seen nothing,
    // so an upstream that fails right after its own start event still fails over unseen.
    QByteArray out;
    for (const QJsonValue &choiceValue : chunk.value(QLatin1String("choices")).toArray()) {
        const QJsonObject choice = choiceValue.toObject();
        // An Anthropic message has one answer; further choices (n > 1) have no place in it.
        if (choice.value(kIndex).toInt(0) != 0)
            continue;
        const QJsonObject delta = choice.value(QLatin1String("delta")).toObject();
        const QString reasoning = chatReasoning(delta);
        if (!reasoning.isEmpty()) {
            openBlock(Block::Thinking, out);
            this->delta("thinking_delta", "thinking", reasoning, out);
        }
        const QString content = delta.value(QLatin1String("content")).toString();
        if (!content.isEmpty()) {
            openBlock(Block::Text, out);
            this->delta("text_delta", "text", content, out);
            rememberText(content);
        }
        for (const QJsonValue &call : delta.value(QLatin1String("tool_calls")).toArray())
            toolCallDelta(call.toObject(), out);
        const QString finishReason = choice.value(QLatin1String("finish_reason")).toString();
        if (!finishReason.isEmpty()) {
            m_finishReason = finishReason;
            if (finishReason == QLatin1String("stop"))
                m_stopSequence = AnthropicAnswer::matchedStopSequence(choice, m_textEnd, m_stopSequences);
            closeBlock(out);
        }
    }
    return out;
}

QByteArray AnthropicStreamWriter::finish()
{
    if (m_finished)
        return QByteArray();
    QByteArray out;
    ensureStarted(out);
    closeBlock(out);
    m_finished = true;

    QString stopReason = AnthropicAnswer::stopReason(m_finishReason, m_sawToolUse);
    QJsonValue stopSequence(QJsonValue::Null);
    if (stopReason == QLatin1String("end_turn")) {
        const QString matched = m_stopSequence.isEmpty() ? AnthropicAnswer::matchedStopSequence(QJsonObject(), m_textEnd, m_stopSequences)
                                                         : m_stopSequence;
        if (!matched.isEmpty()) {
            stopReason = QStringLiteral("stop_sequence");
            stopSequence = matched;
        }
    }
    // message_delta's counts are cumulative; with the upstream's usage they are the final ones,
    // input included (the SDKs take input_tokens from here when it is present).
    const QJsonObject usage = m_usage.isEmpty() ? QJsonObject{{QStringLiteral("output_tokens"), 0}} : AnthropicAnswer::usage(m_usage);
    event("message_delta",
          compactJson(QJsonObject{{kType, QStringLiteral("message_delta")},
                                  {QStringLiteral("delta"),
                                   QJsonObject{{QStringLiteral("stop_reason"), stopReason}, {QStringLiteral("stop_sequence"), stopSequence}}},
                                  {QStringLiteral("usage"), usage}}),
          out);
    event("message_stop", R"({"type":"message_stop"})", out);
    return out;
}

QByteArray AnthropicStreamWriter::error(const AnthropicError &error)
{
    if (m_finished)
        return QByteArray();
    m_finished = true;
    QByteArray out;
    event("error", error.toJson(), out);
    return out;
}

} // namespace sb
