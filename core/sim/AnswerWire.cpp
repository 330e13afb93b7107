// DialectWire's forms of an answer with reasoning or a tool call (SimAnswer), in the two dialects
// that simulate them: OpenAI's chunk deltas (reasoning_content, tool_calls) and Anthropic's
// content blocks (thinking, text, tool_use). Text-only answers take the token forms unchanged.
#include "sim/DialectWire.h"

#include "sim/SseWire.h"

namespace sb::sim {

namespace {

using namespace wire;
using Kind = SimAnswer::Kind;

QString toolCallId(Dialect dialect, const QByteArray &id)
{
    return QString::fromLatin1((dialect == Dialect::Anthropic ? "toolu_" : "call_") + id);
}

QString signature(const QByteArray &id)
{
    return QStringLiteral("sim-signature-") + QString::fromLatin1(id);
}

bool firstOfKind(const SimAnswer &answer, int index)
{
    return index == 0 || answer.pieces[static_cast<std::size_t>(index - 1)].kind != answer.pieces[static_cast<std::size_t>(index)].kind;
}

Kind kindAt(const SimAnswer &answer, int index)
{
    return answer.pieces.empty() ? Kind::Text : answer.pieces[static_cast<std::size_t>(index)].kind;
}

QJsonObject anthropicBlock(Kind kind, const SimAnswer &answer, const QByteArray &id)
{
    switch (kind) {
    case Kind::Reasoning:
        return QJsonObject{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}};
    case Kind::Text:
        return QJsonObject{{"type", "text"}, {"text", ""}};
    case Kind::ToolArguments:
        return QJsonObject{{"type", "tool_use"}, {"id", toolCallId(Dialect::Anthropic, id)}, {"name", answer.toolName}, {"input", QJsonObject()}};
    }
    return {};
}

QByteArray anthropicBlockStart(int block, Kind kind, const SimAnswer &answer, const QByteArray &id)
{
    return namedEvent("content_block_start",
                      QJsonObject{{"type", "content_block_start"}, {"index", block}, {"content_block", anthropicBlock(kind, answer, id)}});
}

QByteArray anthropicBlockStop(int block, Kind kind, const QByteArray &id)
{
    QByteArray out;
    if (kind == Kind::Reasoning) // a thinking block is signed before it closes
        out += namedEvent("content_block_delta",
                          QJsonObject{{"type", "content_block_delta"},
                                      {"index", block},
                                      {"delta", QJsonObject{{"type", "signature_delta"}, {"signature", signature(id)}}}});
    return out + namedEvent("content_block_stop", QJsonObject{{"type", "content_block_stop"}, {"index", block}});
}

QJsonObject anthropicDelta(const SimAnswer::Piece &piece)
{
    const QString text = QString::fromUtf8(piece.bytes);
    switch (piece.kind) {
    case Kind::Reasoning:
        return QJsonObject{{"type", "thinking_delta"}, {"thinking", text}};
    case Kind::Text:
        return QJsonObject{{"type", "text_delta"}, {"text", text}};
    case Kind::ToolArguments:
        return QJsonObject{{"type", "input_json_delta"}, {"partial_json", text}};
    }
    return {};
}

QJsonObject openAiDelta(const SimAnswer &answer, int index, const QByteArray &id)
{
    const SimAnswer::Piece &piece = answer.pieces[static_cast<std::size_t>(index)];
    const QString text = QString::fromUtf8(piece.bytes);
    switch (piece.kind) {
    case Kind::Reasoning:
        return QJsonObject{{"reasoning_content", text}};
    case Kind::Text:
        return QJsonObject{{"content", text}};
    case Kind::ToolArguments: {
        QJsonObject call{{"index", 0}, {"function", QJsonObject{{"arguments", text}}}};
        if (firstOfKind(answer, index)) { // the call's first delta names it
            call.insert(QStringLiteral("id"), toolCallId(Dialect::OpenAiCompat, id));
            call.insert(QStringLiteral("type"), QStringLiteral("function"));
            call.insert(QStringLiteral("function"), QJsonObject{{"name", answer.toolName}, {"arguments", text}});
        }
        return QJsonObject{{"tool_calls", QJsonArray{call}}};
    }
    }
    return {};
}

} // namespace

SimReply DialectWire::complete(const SimRequest &request, const QByteArray &id, const SimAnswer &answer) const
{
    const QByteArray text = answer.joined(Kind::Text);
    if (answer.textOnly() || (m_dialect != Dialect::OpenAiCompat && m_dialect != Dialect::Anthropic) || request.responses)
        return complete(request, id, text, answer.size());
    SimReply reply;
    reply.headers.add("content-type", "application/json");
    const QString reasoning = QString::fromUtf8(answer.joined(Kind::Reasoning));
    const QByteArray arguments = answer.joined(Kind::ToolArguments);
    if (m_dialect == Dialect::OpenAiCompat) {
        QJsonObject message{{"role", "assistant"}, {"content", text.isEmpty() && answer.callsTool() ? QJsonValue() : QString::fromUtf8(text)}};
        if (!reasoning.isEmpty())
            message.insert(QStringLiteral("reasoning_content"), reasoning);
        if (answer.callsTool())
            message.insert(QStringLiteral("tool_calls"),
                           QJsonArray{QJsonObject{{"id", toolCallId(m_dialect, id)},
                                                  {"type", "function"},
                                                  {"function", QJsonObject{{"name", answer.toolName}, {"arguments", QString::fromUtf8(arguments)}}}}});
        reply.body = compact(QJsonObject{
            {"id", QString::fromLatin1("chatcmpl-" + id)},
            {"object", "chat.completion"},
            {"created", created()},
            {"model", request.model},
            {"choices", QJsonArray{QJsonObject{{"index", 0}, {"message", message}, {"finish_reason", answer.callsTool() ? "tool_calls" : "stop"}}}},
            {"usage", openAiUsage(request.promptTokens, answer.size())}});
        return reply;
    }
    QJsonArray content;
    if (!reasoning.isEmpty())
        content.append(QJsonObject{{"type", "thinking"}, {"thinking", reasoning}, {"signature", signature(id)}});
    if (!text.isEmpty())
        content.append(QJsonObject{{"type", "text"}, {"text", QString::fromUtf8(text)}});
    if (answer.callsTool())
        content.append(QJsonObject{{"type", "tool_use"},
                                   {"id", toolCallId(m_dialect, id)},
                                   {"name", answer.toolName},
                                   {"input", QJsonDocument::fromJson(arguments).object()}});
    reply.body = compact(QJsonObject{{"id", QString::fromLatin1("msg_" + id)},
                                     {"type", "message"},
                                     {"role", "assistant"},
                                     {"model", request.model},
                                     {"content", content},
                                     {"stop_reason", answer.callsTool() ? "tool_use" : "end_turn"},
                                     {"stop_sequence", QJsonValue::Null},
                                     {"usage", QJsonObject{{"input_tokens", request.promptTokens}, {"output_tokens", answer.size()}}}});
    return reply;
}

QByteArray DialectWire::streamHead(const SimRequest &request, const QByteArray &id, const SimAnswer &answer) const
{
    if (answer.textOnly() || m_dialect != Dialect::Anthropic || request.responses)
        return streamHead(request, id); // OpenAI's role chunk opens every answer alike
    const QByteArray head = streamHead(request, id);
    // The token form opens a text block: this one opens the block of the answer's first piece.
    const qsizetype blockStart = head.indexOf("event: content_block_start");
    return head.left(blockStart) + anthropicBlockStart(0, kindAt(answer, 0), answer, id)
        + namedEvent("ping", QJsonObject{{"type", "ping"}});
}

QByteArray DialectWire::streamPiece(const SimRequest &request, const QByteArray &id, const SimAnswer &answer, int index) const
{
    const SimAnswer::Piece &piece = answer.pieces[static_cast<std::size_t>(index)];
    if (answer.textOnly() || request.responses || (m_dialect != Dialect::OpenAiCompat && m_dialect != Dialect::Anthropic))
        return piece.kind == Kind::Text ? streamDelta(request, id, piece.bytes, index) : QByteArray();
    if (m_dialect == Dialect::OpenAiCompat)
        return dataEvent(openAiChunk(created(), id, request.model, openAiDelta(answer, index, id), QJsonValue::Null));
    const int block = answer.blockOf(index);
    QByteArray out;
    if (index > 0 && firstOfKind(answer, index))
        out += anthropicBlockStop(block - 1, kindAt(answer, index - 1), id) + anthropicBlockStart(block, piece.kind, answer, id);
    return out
        + namedEvent("content_block_delta", QJsonObject{{"type", "content_block_delta"}, {"index", block}, {"delta", anthropicDelta(piece)}});
}

QByteArray DialectWire::streamTail(const SimRequest &request, const QByteArray &id, const SimAnswer &answer) const
{
    if (answer.textOnly() || request.responses || (m_dialect != Dialect::OpenAiCompat && m_dialect != Dialect::Anthropic))
        return streamTail(request, id, answer.size(), answer.joined(Kind::Text));
    if (m_dialect == Dialect::OpenAiCompat) {
        QJsonObject usageChunk = openAiChunk(created(), id, request.model, QJsonObject{}, QJsonValue::Null);
        usageChunk.insert(QStringLiteral("choices"), QJsonArray{});
        usageChunk.insert(QStringLiteral("usage"), openAiUsage(request.promptTokens, answer.size()));
        return dataEvent(openAiChunk(created(), id, request.model, QJsonObject{}, answer.callsTool() ? "tool_calls" : "stop"))
            + dataEvent(usageChunk) + QByteArrayLiteral("data: [DONE]\n\n");
    }
    const int last = std::max(0, answer.size() - 1);
    return anthropicBlockStop(answer.blockOf(last), kindAt(answer, last), id)
        + namedEvent("message_delta",
                     QJsonObject{{"type", "message_delta"},
                                 {"delta", QJsonObject{{"stop_reason", answer.callsTool() ? "tool_use" : "end_turn"}, {"stop_sequence", QJsonValue::Null}}},
                                 {"usage", QJsonObject{{"output_tokens", answer.size()}}}})
        + namedEvent("message_stop", QJsonObject{{"type", "message_stop"}});
}

} // namespace sb::sim
