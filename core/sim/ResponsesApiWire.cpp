#include "sim/ResponsesApiWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sb::sim {

namespace {

constexpr int kHeadEvents = 4; // created, in_progress, output_item.added, content_part.added

QByteArray event(const char *type, int sequence, QJsonObject data)
{
    data.insert(QStringLiteral("type"), QLatin1String(type));
    data.insert(QStringLiteral("sequence_number"), sequence);
    return QByteArrayLiteral("event: ") + type + QByteArrayLiteral("\ndata: ") + QJsonDocument(data).toJson(QJsonDocument::Compact)
        + QByteArrayLiteral("\n\n");
}

QJsonObject outputText(const QByteArray &text)
{
    return QJsonObject{{"type", "output_text"}, {"text", QString::fromUtf8(text)}, {"annotations", QJsonArray()}, {"logprobs", QJsonArray()}};
}

QJsonObject message(const QByteArray &id, const char *status, const QJsonArray &content)
{
    return QJsonObject{{"id", ResponsesApiWire::messageId(id)}, {"type", "message"}, {"status", status}, {"role", "assistant"}, {"content", content}};
}

// The response object around an output, with the request's parameters as OpenAI repeats them.
QJsonObject response(const SimRequest &request, const QByteArray &id, qint64 created, const char *status, const QJsonArray &output,
                     const QJsonValue &usage, const QJsonValue &error = QJsonValue(QJsonValue::Null))
{
    return QJsonObject{{"id", ResponsesApiWire::responseId(id)},
                       {"object", "response"},
                       {"created_at", created},
                       {"status", status},
                       {"error", error},
                       {"incomplete_details", QJsonValue::Null},
                       {"instructions", QJsonValue::Null},
                       {"max_output_tokens", QJsonValue::Null},
                       {"model", request.model},
                       {"output", output},
                       {"parallel_tool_calls", true},
                       {"previous_response_id", QJsonValue::Null},
                       {"reasoning", QJsonObject{{"effort", QJsonValue::Null}, {"summary", QJsonValue::Null}}},
                       {"store", false},
                       {"temperature", 1.0},
                       {"text", QJsonObject{{"format", QJsonObject{{"type", "text"}}}}},
                       {"tool_choice", "auto"},
                       {"tools", QJsonArray()},
                       {"top_p", 1.0},
                       {"truncation", "disabled"},
                       {"usage", usage},
                       {"user", QJsonValue::Null},
                       {"metadata", QJsonObject()}};
}

QJsonObject usage(int prompt, int completion)
{
    return QJsonObject{{"input_tokens", prompt},
                       {"input_tokens_details", QJsonObject{{"cached_tokens", 0}}},
                       {"output_tokens", completion},
                       {"output_tokens_details", QJsonObject{{"reasoning_tokens", 0}}},
                       {"total_tokens", prompt + completion}};
}

} // namespace

QString ResponsesApiWire::responseId(const QByteArray &id)
{
    return QStringLiteral("resp_sim") + QString::fromLatin1(id);
}

QString ResponsesApiWire::messageId(const QByteArray &id)
{
    return QStringLiteral("msg_sim") + QString::fromLatin1(id);
}

QByteArray ResponsesApiWire::complete(const SimRequest &request, const QByteArray &id, qint64 created, const QByteArray &text, int completionTokens)
{
    const QJsonArray output{message(id, "completed", QJsonArray{outputText(text)})};
    return QJsonDocument(response(request, id, created, "completed", output, usage(request.promptTokens, completionTokens)))
        .toJson(QJsonDocument::Compact);
}

QByteArray ResponsesApiWire::streamHead(const SimRequest &request, const QByteArray &id, qint64 created)
{
    const QJsonObject started = response(request, id, created, "in_progress", QJsonArray(), QJsonValue::Null);
    return event("response.created", 0, QJsonObject{{"response", started}})
        + event("response.in_progress", 1, QJsonObject{{"response", started}})
        + event("response.output_item.added", 2, QJsonObject{{"output_index", 0}, {"item", message(id, "in_progress", QJsonArray())}})
        + event("response.content_part.added", 3,
                QJsonObject{{"item_id", messageId(id)}, {"output_index", 0}, {"content_index", 0}, {"part", outputText("")}});
}

QByteArray ResponsesApiWire::streamDelta(const QByteArray &id, const QByteArray &piece, int index)
{
    return event("response.output_text.delta", kHeadEvents + index,
                 QJsonObject{{"item_id", messageId(id)}, {"output_index", 0}, {"content_index", 0}, {"delta", QString::fromUtf8(piece)},
                             {"logprobs", QJsonArray()}});
}

QByteArray ResponsesApiWire::streamTail(const SimRequest &request, const QByteArray &id, qint64 created, const QByteArray &text,
                                        int completionTokens)
{
    const int first = kHeadEvents + completionTokens;
    const QJsonObject part = outputText(text);
    const QJsonObject item = message(id, "completed", QJsonArray{part});
    return event("response.output_text.done", first,
                 QJsonObject{{"item_id", messageId(id)}, {"output_index", 0}, {"content_index", 0}, {"text", QString::fromUtf8(text)},
                             {"logprobs", QJsonArray()}})
        + event("response.content_part.done", first + 1,
                QJsonObject{{"item_id", messageId(id)}, {"output_index", 0}, {"content_index", 0}, {"part", part}})
        + event("response.output_item.done", first + 2, QJsonObject{{"output_index", 0}, {"item", item}})
        + event("response.completed", first + 3,
                QJsonObject{{"response", response(request, id, created, "completed", QJsonArray{item}, usage(request.promptTokens, completionTokens))}});
}

QByteArray ResponsesApiWire::failedStream(const SimRequest &request, const QByteArray &id, qint64 created, bool rateLimited)
{
    const QJsonObject started = response(request, id, created, "in_progress", QJsonArray(), QJsonValue::Null);
    const QJsonObject error = rateLimited
        ? QJsonObject{{"code", "rate_limit_exceeded"}, {"message", "Rate limit reached for requests"}}
        : QJsonObject{{"code", "server_error"}, {"message", "The model failed to generate a response."}};
    return event("response.created", 0, QJsonObject{{"response", started}})
        + event("response.in_progress", 1, QJsonObject{{"response", started}})
        + event("response.failed", 2, QJsonObject{{"response", response(request, id, created, "failed", QJsonArray(), QJsonValue::Null, error)}});
}

QByteArray ResponsesApiWire::midStreamError(int tokensSent)
{
    return event("error", kHeadEvents + tokensSent,
                 QJsonObject{{"code", "server_error"},
                             {"message", "The server had an error while processing your request."},
                             {"param", QJsonValue::Null}});
}

} // namespace sb::sim
