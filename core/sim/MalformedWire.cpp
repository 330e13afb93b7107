#include "sim/MalformedWire.h"

#include "sim/SseWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sb::sim {

namespace {

using namespace wire;

QJsonObject promptUsage(const SimRequest &request)
{
    return QJsonObject{{"prompt_tokens", request.promptTokens}, {"completion_tokens", 0}, {"total_tokens", request.promptTokens}};
}

} // namespace

QByteArray MalformedWire::answerWithoutAnswer(const SimRequest &request, const QByteArray &id) const
{
    switch (m_wire.dialect()) {
    case Dialect::OpenAiCompat:
        return compact(QJsonObject{{"id", QString::fromLatin1("chatcmpl-" + id)},
                                   {"object", "chat.completion"},
                                   {"created", 1735689600},
                                   {"model", request.model},
                                   {"usage", promptUsage(request)}});
    case Dialect::Anthropic:
        return compact(QJsonObject{{"id", QString::fromLatin1("msg_" + id)},
                                   {"type", "message"},
                                   {"role", "assistant"},
                                   {"model", request.model},
                                   {"usage", QJsonObject{{"input_tokens", request.promptTokens}, {"output_tokens", 0}}}});
    case Dialect::Gemini:
        return compact(QJsonObject{{"usageMetadata", QJsonObject{{"promptTokenCount", request.promptTokens},
                                                                 {"totalTokenCount", request.promptTokens}}},
                                   {"modelVersion", request.model}});
    case Dialect::DashScope:
        return compact(QJsonObject{{"usage", QJsonObject{{"input_tokens", request.promptTokens}, {"output_tokens", 0}}},
                                   {"request_id", QString::fromLatin1(id)}});
    case Dialect::Ernie:
        return compact(QJsonObject{{"id", QString::fromLatin1("as-" + id)},
                                   {"object", "chat.completion"},
                                   {"created", 1735689600},
                                   {"usage", promptUsage(request)}});
    }
    return {};
}

QByteArray MalformedWire::emptyAnswer(const SimRequest &request, const QByteArray &id) const
{
    switch (m_wire.dialect()) {
    case Dialect::OpenAiCompat:
        return compact(QJsonObject{
            {"id", QString::fromLatin1("chatcmpl-" + id)},
            {"object", "chat.completion"},
            {"created", 1735689600},
            {"model", request.model},
            {"choices", QJsonArray{QJsonObject{{"index", 0},
                                               {"message", QJsonObject{{"role", "assistant"}, {"content", ""}}},
                                               {"finish_reason", QJsonValue::Null}}}},
            {"usage", promptUsage(request)}});
    case Dialect::Anthropic:
        return compact(QJsonObject{{"id", QString::fromLatin1("msg_" + id)},
                                   {"type", "message"},
                                   {"role", "assistant"},
                                   {"model", request.model},
                                   {"content", QJsonArray{}},
                                   {"stop_reason", QJsonValue::Null},
                                   {"stop_sequence", QJsonValue::Null},
                                   {"usage", QJsonObject{{"input_tokens", request.promptTokens}, {"output_tokens", 0}}}});
    case Dialect::Gemini:
        return compact(QJsonObject{
            {"candidates", QJsonArray{QJsonObject{{"content", QJsonObject{{"parts", QJsonArray{}}, {"role", "model"}}}, {"index", 0}}}},
            {"modelVersion", request.model}});
    case Dialect::DashScope:
        return compact(QJsonObject{
            {"output", QJsonObject{{"choices", QJsonArray{QJsonObject{{"message", QJsonObject{{"role", "assistant"}, {"content", ""}}},
                                                                      {"finish_reason", "null"}}}}}},
            {"request_id", QString::fromLatin1(id)}});
    case Dialect::Ernie:
        return compact(QJsonObject{{"id", QString::fromLatin1("as-" + id)},
                                   {"object", "chat.completion"},
                                   {"created", 1735689600},
                                   {"result", ""},
                                   {"is_truncated", false},
                                   {"need_clear_history", false},
                                   {"usage", promptUsage(request)}});
    }
    return {};
}

QByteArray MalformedWire::emptyStream(const SimRequest &request, const QByteArray &id) const
{
    switch (m_wire.dialect()) {
    case Dialect::OpenAiCompat:
        return m_wire.streamHead(request, id) + QByteArrayLiteral("data: [DONE]\n\n");
    case Dialect::Anthropic:
        return m_wire.streamHead(request, id)
            + namedEvent("content_block_stop", QJsonObject{{"type", "content_block_stop"}, {"index", 0}})
            + namedEvent("message_delta", QJsonObject{{"type", "message_delta"},
                                                      {"delta", QJsonObject{{"stop_reason", QJsonValue::Null}}},
                                                      {"usage", QJsonObject{{"output_tokens", 0}}}})
            + namedEvent("message_stop", QJsonObject{{"type", "message_stop"}});
    case Dialect::Gemini:
        return QByteArrayLiteral("data: ")
            + compact(QJsonObject{{"candidates", QJsonArray{QJsonObject{{"content", QJsonObject{{"parts", QJsonArray{}}, {"role", "model"}}},
                                                                        {"index", 0}}}},
                                  {"modelVersion", request.model}})
            + QByteArrayLiteral("\r\n\r\n");
    case Dialect::DashScope:
        return QByteArrayLiteral("id:1\nevent:result\n:HTTP_STATUS/200\ndata:") + emptyAnswer(request, id) + QByteArrayLiteral("\n\n");
    case Dialect::Ernie:
        return QByteArrayLiteral("data: ")
            + compact(QJsonObject{{"id", QString::fromLatin1("as-" + id)},
                                  {"object", "chat.completion"},
                                  {"created", 1735689600},
                                  {"sentence_id", 0},
                                  {"is_end", false},
                                  {"result", ""},
                                  {"need_clear_history", false}})
            + QByteArrayLiteral("\n\n");
    }
    return {};
}

QByteArray MalformedWire::disagreeingErrorBody(const QByteArray &id) const
{
    switch (m_wire.dialect()) {
    case Dialect::OpenAiCompat:
        return compact(QJsonObject{{"error", QJsonObject{{"message", "The server is overloaded, please retry your request."},
                                                         {"type", "server_overloaded"},
                                                         {"param", QJsonValue::Null},
                                                         {"code", "invalid_request_error"}}}});
    case Dialect::Anthropic:
        return compact(QJsonObject{{"type", "error"},
                                   {"error", QJsonObject{{"type", "invalid_request_error"},
                                                         {"message", "Overloaded: the server is busy, please retry."}}}});
    case Dialect::Gemini:
        return compact(QJsonObject{{"error", QJsonObject{{"code", 503},
                                                         {"message", "The model is overloaded. Please try again later."},
                                                         {"status", "INVALID_ARGUMENT"}}}});
    case Dialect::DashScope:
        return compact(QJsonObject{{"code", "InvalidParameter"},
                                   {"message", "Model service is overloaded, please try again later."},
                                   {"request_id", QString::fromLatin1(id)}});
    case Dialect::Ernie:
        return compact(QJsonObject{{"error_code", 336003}, {"error_msg", "the service is busy, please try again later"}});
    }
    return {};
}

QByteArray MalformedWire::disagreeingErrorEvent(const QByteArray &id) const
{
    return asErrorEvent(disagreeingErrorBody(id), 400);
}

QByteArray MalformedWire::invalidRequestBody(const QByteArray &id) const
{
    switch (m_wire.dialect()) {
    case Dialect::OpenAiCompat:
        return compact(QJsonObject{{"error", QJsonObject{{"message", "This model's maximum context length is 128000 tokens. However, "
                                                                     "your messages resulted in 130000 tokens."},
                                                         {"type", "invalid_request_error"},
                                                         {"param", "messages"},
                                                         {"code", "context_length_exceeded"}}}});
    case Dialect::Anthropic:
        return compact(QJsonObject{{"type", "error"},
                                   {"error", QJsonObject{{"type", "invalid_request_error"},
                                                         {"message", "prompt is too long: 210000 tokens > 200000 maximum"}}}});
    case Dialect::Gemini:
        return compact(QJsonObject{{"error", QJsonObject{{"code", 400},
                                                         {"message", "The input token count (1200000) exceeds the maximum number of "
                                                                     "tokens allowed (1048576)."},
                                                         {"status", "INVALID_ARGUMENT"}}}});
    case Dialect::DashScope:
        return compact(QJsonObject{{"code", "InvalidParameter"},
                                   {"message", "Range of input length should be [1, 30720]"},
                                   {"request_id", QString::fromLatin1(id)}});
    case Dialect::Ernie:
        return compact(QJsonObject{{"error_code", 336007}, {"error_msg", "the max length of current question is 11200"}});
    }
    return {};
}

QByteArray MalformedWire::invalidRequestEvent(const QByteArray &id) const
{
    return asErrorEvent(invalidRequestBody(id), 400);
}

QByteArray MalformedWire::htmlPage()
{
    return QByteArrayLiteral("<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head>"
                             "<body><h1>Welcome to nginx!</h1></body></html>\n");
}

QByteArray MalformedWire::asErrorEvent(const QByteArray &body, int status) const
{
    switch (m_wire.dialect()) {
    case Dialect::OpenAiCompat:
    case Dialect::Ernie:
        return QByteArrayLiteral("data: ") + body + QByteArrayLiteral("\n\n");
    case Dialect::Gemini:
        return QByteArrayLiteral("data: ") + body + QByteArrayLiteral("\r\n\r\n");
    case Dialect::Anthropic:
        return QByteArrayLiteral("event: error\ndata: ") + body + QByteArrayLiteral("\n\n");
    case Dialect::DashScope:
        return QByteArrayLiteral("id:1\nevent:error\n:HTTP_STATUS/") + QByteArray::number(status) + QByteArrayLiteral("\ndata:") + body
            + QByteArrayLiteral("\n\n");
    }
    return {};
}

} // namespace sb::sim
