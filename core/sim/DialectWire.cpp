#include "sim/DialectWire.h"

#include "sim/ContinuationRequest.h"
#include "sim/ResponsesApiWire.h"
#include "sim/SseWire.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>
#include <QTimeZone>
#include <QUrlQuery>

#include <algorithm>

namespace sb::sim {

namespace {

using namespace wire;

QByteArray bearer(const HttpHeaders &headers)
{
    const QByteArray auth = headers.value("authorization");
    if (auth.startsWith("Bearer ") || auth.startsWith("bearer "))
        return auth.mid(7).trimmed();
    return auth.trimmed();
}

QByteArray queryValue(const QByteArray &query, const char *name)
{
    return QUrlQuery(QString::fromLatin1(query)).queryItemValue(QLatin1String(name), QUrl::FullyDecoded).toUtf8();
}

QJsonObject geminiCandidate(const QByteArray &text, const char *finish)
{
    QJsonObject c{{"content", QJsonObject{{"parts", QJsonArray{QJsonObject{{"text", QString::fromUtf8(text)}}}}, {"role", "model"}}},
                  {"index", 0}};
    if (finish)
        c.insert(QStringLiteral("finishReason"), QLatin1String(finish));
    return c;
}

QJsonObject dashScopeOutput(const SimRequest &request, const QByteArray &text, const char *finish)
{
    if (request.textResultFormat)
        return QJsonObject{{"text", QString::fromUtf8(text)}, {"finish_reason", finish}};
    return QJsonObject{{"choices", QJsonArray{QJsonObject{
                                       {"message", QJsonObject{{"role", "assistant"}, {"content", QString::fromUtf8(text)}}},
                                       {"finish_reason", finish}}}}};
}

QJsonObject dashScopeUsage(int prompt, int completion)
{
    return QJsonObject{{"input_tokens", prompt}, {"output_tokens", completion}, {"total_tokens", prompt + completion}};
}

const char *reasonPhrase(int status)
{
    switch (status) {
    case 401:
        return "Unauthorized";
    case 429:
        return "Too Many Requests";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    default:
        return "Error";
    }
}

} // namespace

std::optional<Dialect> dialectFromString(QStringView text)
{
    if (text == QLatin1String("openai_compat"))
        return Dialect::OpenAiCompat;
    if (text == QLatin1String("anthropic"))
        return Dialect::Anthropic;
    if (text == QLatin1String("gemini"))
        return Dialect::Gemini;
    if (text == QLatin1String("dashscope"))
        return Dialect::DashScope;
    if (text == QLatin1String("ernie"))
        return Dialect::Ernie;
    return std::nullopt;
}

SimRequest DialectWire::parse(const QByteArray &method, const QByteArray &path, const QByteArray &query,
                              const HttpHeaders &headers, const QByteArray &body) const
{
    SimRequest r;
    r.promptTokens = std::max<int>(1, static_cast<int>(body.size() / 4)); // about four bytes a token
    if (method == "GET") {
        r.kind = SimRequest::Kind::Probe;
    } else if (method != "POST") {
        return r;
    }
    const QJsonObject json = QJsonDocument::fromJson(body).object();
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
        r.apiKey = bearer(headers);
        if (r.kind != SimRequest::Kind::Probe && path.endsWith("/chat/completions"))
            r.kind = SimRequest::Kind::Chat;
        if (r.kind != SimRequest::Kind::Probe && path.endsWith("/embeddings")) {
            r.kind = SimRequest::Kind::Embeddings;
            const QJsonValue input = json.value(QLatin1String("input"));
            if (input.isString())
                r.inputs << input.toString();
            for (const QJsonValue &v : input.toArray())
                r.inputs << v.toString();
        }
        if (r.kind != SimRequest::Kind::Probe && path.endsWith("/responses")) {
            r.kind = SimRequest::Kind::Chat;
            r.responses = true;
        }
        r.stream = json.value(QLatin1String("stream")).toBool();
        r.model = json.value(QLatin1String("model")).toString();
        break;
    case Dialect::Anthropic:
        r.apiKey = headers.contains("x-api-key") ? headers.value("x-api-key") : bearer(headers);
        if (r.kind != SimRequest::Kind::Probe && path.endsWith("/messages"))
            r.kind = SimRequest::Kind::Chat;
        r.stream = json.value(QLatin1String("stream")).toBool();
        r.model = json.value(QLatin1String("model")).toString();
        break;
    case Dialect::Gemini: {
        r.apiKey = headers.contains("x-goog-api-key") ? headers.value("x-goog-api-key") : queryValue(query, "key");
        const qsizetype colon = path.lastIndexOf(':');
        const qsizetype models = path.lastIndexOf("models/");
        if (r.kind != SimRequest::Kind::Probe && colon > 0) {
            const QByteArray verb = path.mid(colon + 1);
            if (verb == "batchEmbedContents" || verb == "embedContent") {
                r.kind = SimRequest::Kind::Embeddings;
                const QJsonArray requests = verb == "embedContent" ? QJsonArray{json} : json.value(QLatin1String("requests")).toArray();
                for (const QJsonValue &one : requests) {
                    QString text;
                    for (const QJsonValue &part : one.toObject().value(QLatin1String("content")).toObject().value(QLatin1String("parts")).toArray())
                        text += part.toObject().value(QLatin1String("text")).toString();
                    r.inputs << text;
                }
            }
            if (verb == "generateContent" || verb == "streamGenerateContent") {
                r.kind = SimRequest::Kind::Chat;
                r.stream = verb == "streamGenerateContent";
                if (models >= 0)
                    r.model = QString::fromUtf8(path.mid(models + 7, colon - models - 7));
            }
        }
        break;
    }
    case Dialect::DashScope: {
        r.apiKey = bearer(headers);
        if (r.kind != SimRequest::Kind::Probe && path.endsWith("/generation"))
            r.kind = SimRequest::Kind::Chat;
        if (r.kind != SimRequest::Kind::Probe && path.endsWith("/text-embedding/text-embedding")) {
            r.kind = SimRequest::Kind::Embeddings;
            for (const QJsonValue &v : json.value(QLatin1String("input")).toObject().value(QLatin1String("texts")).toArray())
                r.inputs << v.toString();
        }
        const QJsonObject parameters = json.value(QLatin1String("parameters")).toObject();
        r.stream = headers.value("x-dashscope-sse").compare("enable", Qt::CaseInsensitive) == 0
            || headers.value("accept").contains("text/event-stream") || parameters.value(QLatin1String("stream")).toBool();
        r.model = json.value(QLatin1String("model")).toString();
        r.textResultFormat = parameters.value(QLatin1String("result_format")).toString() == QLatin1String("text");
        break;
    }
    case Dialect::Ernie: {
        r.apiKey = queryValue(query, "access_token");
        if (r.apiKey.isEmpty())
            r.apiKey = bearer(headers);
        if (path.endsWith("/oauth/2.0/token")) {
            r.kind = SimRequest::Kind::Token;
            r.apiKey = queryValue(query, "client_id");
        } else if (r.kind != SimRequest::Kind::Probe && path.contains("/wenxinworkshop/chat/")) {
            r.kind = SimRequest::Kind::Chat;
            r.model = QString::fromUtf8(path.mid(path.lastIndexOf('/') + 1));
        }
        r.stream = json.value(QLatin1String("stream")).toBool();
        break;
    }
    }
    if (r.kind == SimRequest::Kind::Chat && !r.responses) {
        r.partial = partialAnswerOf(json);
        r.tool = firstToolOf(json);
        r.toolResult = endsWithToolResult(json);
    }
    return r;
}

SimReply DialectWire::complete(const SimRequest &request, const QByteArray &id, const QByteArray &text, int completionTokens) const
{
    SimReply reply;
    reply.headers.add("content-type", "application/json");
    const int prompt = request.promptTokens;
    const QString content = QString::fromUtf8(text);
    if (request.responses) {
        reply.body = ResponsesApiWire::complete(request, id, created(), text, completionTokens);
        return reply;
    }
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
        reply.body = compact(QJsonObject{
            {"id", QString::fromLatin1("chatcmpl-" + id)},
            {"object", "chat.completion"},
            {"created", created()},
            {"model", request.model},
            {"choices", QJsonArray{QJsonObject{{"index", 0},
                                               {"message", QJsonObject{{"role", "assistant"}, {"content", content}}},
                                               {"finish_reason", "stop"}}}},
            {"usage", openAiUsage(prompt, completionTokens)}});
        break;
    case Dialect::Anthropic:
        reply.body = compact(QJsonObject{{"id", QString::fromLatin1("msg_" + id)},
                                         {"type", "message"},
                                         {"role", "assistant"},
                                         {"model", request.model},
                                         {"content", QJsonArray{QJsonObject{{"type", "text"}, {"text", content}}}},
                                         {"stop_reason", "end_turn"},
                                         {"stop_sequence", QJsonValue::Null},
                                         {"usage", QJsonObject{{"input_tokens", prompt}, {"output_tokens", completionTokens}}}});
        break;
    case Dialect::Gemini:
        reply.body = compact(QJsonObject{
            {"candidates", QJsonArray{geminiCandidate(text, "STOP")}},
            {"usageMetadata", QJsonObject{{"promptTokenCount", prompt},
                                          {"candidatesTokenCount", completionTokens},
                                          {"totalTokenCount", prompt + completionTokens}}},
            {"modelVersion", request.model}});
        break;
    case Dialect::DashScope:
        reply.body = compact(QJsonObject{{"output", dashScopeOutput(request, text, "stop")},
                                         {"usage", dashScopeUsage(prompt, completionTokens)},
                                         {"request_id", QString::fromLatin1(id)}});
        break;
    case Dialect::Ernie:
        reply.body = compact(QJsonObject{{"id", QString::fromLatin1("as-" + id)},
                                         {"object", "chat.completion"},
                                         {"created", created()},
                                         {"result", content},
                                         {"is_truncated", false},
                                         {"need_clear_history", false},
                                         {"finish_reason", "normal"},
                                         {"usage", openAiUsage(prompt, completionTokens)}});
        break;
    }
    return reply;
}

HttpHeaders DialectWire::streamHeaders() const
{
    HttpHeaders h;
    h.add("content-type", m_dialect == Dialect::DashScope ? "text/event-stream;charset=UTF-8" : "text/event-stream");
    h.add("cache-control", "no-cache");
    return h;
}

QByteArray DialectWire::streamHead(const SimRequest &request, const QByteArray &id) const
{
    if (request.responses)
        return ResponsesApiWire::streamHead(request, id, created());
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
        return dataEvent(openAiChunk(created(), id, request.model, QJsonObject{{"role", "assistant"}, {"content", ""}}, QJsonValue::Null));
    case Dialect::Anthropic:
        return namedEvent("message_start",
                          QJsonObject{{"type", "message_start"},
                                      {"message", QJsonObject{{"id", QString::fromLatin1("msg_" + id)},
                                                              {"type", "message"},
                                                              {"role", "assistant"},
                                                              {"content", QJsonArray{}},
                                                              {"model", request.model},
                                                              {"stop_reason", QJsonValue::Null},
                                                              {"stop_sequence", QJsonValue::Null},
                                                              {"usage", QJsonObject{{"input_tokens", request.promptTokens},
                                                                                    {"output_tokens", 1}}}}}})
            + namedEvent("content_block_start",
                         QJsonObject{{"type", "content_block_start"},
                                     {"index", 0},
                                     {"content_block", QJsonObject{{"type", "text"}, {"text", ""}}}})
            + namedEvent("ping", QJsonObject{{"type", "ping"}});
    case Dialect::Gemini:
    case Dialect::DashScope:
    case Dialect::Ernie:
        return {};
    }
    return {};
}

QByteArray DialectWire::streamDelta(const SimRequest &request, const QByteArray &id, const QByteArray &piece, int index) const
{
    if (request.responses)
        return ResponsesApiWire::streamDelta(id, piece, index);
    const QString text = QString::fromUtf8(piece);
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
        return dataEvent(openAiChunk(created(), id, request.model, QJsonObject{{"content", text}}, QJsonValue::Null));
    case Dialect::Anthropic:
        return namedEvent("content_block_delta",
                          QJsonObject{{"type", "content_block_delta"},
                                      {"index", 0},
                                      {"delta", QJsonObject{{"type", "text_delta"}, {"text", text}}}});
    case Dialect::Gemini:
        // Gemini's SSE ends its events with CRLF pairs.
        return dataEvent(QJsonObject{{"candidates", QJsonArray{geminiCandidate(piece, nullptr)}},
                                     {"usageMetadata", QJsonObject{{"promptTokenCount", request.promptTokens},
                                                                   {"candidatesTokenCount", index + 1},
                                                                   {"totalTokenCount", request.promptTokens + index + 1}}},
                                     {"modelVersion", request.model}},
                         "\r\n\r\n");
    case Dialect::DashScope:
        return QByteArrayLiteral("id:") + QByteArray::number(index + 1) + QByteArrayLiteral("\nevent:result\n:HTTP_STATUS/200\ndata:")
            + compact(QJsonObject{{"output", dashScopeOutput(request, piece, "null")},
                                  {"usage", dashScopeUsage(request.promptTokens, index + 1)},
                                  {"request_id", QString::fromLatin1(id)}})
            + QByteArrayLiteral("\n\n");
    case Dialect::Ernie:
        return dataEvent(QJsonObject{{"id", QString::fromLatin1("as-" + id)},
                                     {"object", "chat.completion"},
                                     {"created", created()},
                                     {"sentence_id", index},
                                     {"is_end", false},
                                     {"is_truncated", false},
                                     {"result", text},
                                     {"need_clear_history", false},
                                     {"usage", openAiUsage(request.promptTokens, 0)}});
    }
    return {};
}

QByteArray DialectWire::streamTail(const SimRequest &request, const QByteArray &id, int completionTokens, const QByteArray &text) const
{
    if (request.responses)
        return ResponsesApiWire::streamTail(request, id, created(), text, completionTokens);
    switch (m_dialect) {
    case Dialect::OpenAiCompat: {
        QJsonObject usageChunk = openAiChunk(created(), id, request.model, QJsonObject{}, QJsonValue::Null);
        usageChunk.insert(QStringLiteral("choices"), QJsonArray{});
        usageChunk.insert(QStringLiteral("usage"), openAiUsage(request.promptTokens, completionTokens));
        return dataEvent(openAiChunk(created(), id, request.model, QJsonObject{}, QStringLiteral("stop"))) + dataEvent(usageChunk)
            + QByteArrayLiteral("data: [DONE]\n\n");
    }
    case Dialect::Anthropic:
        return namedEvent("content_block_stop", QJsonObject{{"type", "content_block_stop"}, {"index", 0}})
            + namedEvent("message_delta",
                         QJsonObject{{"type", "message_delta"},
                                     {"delta", QJsonObject{{"stop_reason", "end_turn"}, {"stop_sequence", QJsonValue::Null}}},
                                     {"usage", QJsonObject{{"output_tokens", completionTokens}}}})
            + namedEvent("message_stop", QJsonObject{{"type", "message_stop"}});
    case Dialect::Gemini:
        return dataEvent(QJsonObject{{"candidates", QJsonArray{geminiCandidate("", "STOP")}},
                                     {"usageMetadata", QJsonObject{{"promptTokenCount", request.promptTokens},
                                                                   {"candidatesTokenCount", completionTokens},
                                                                   {"totalTokenCount", request.promptTokens + completionTokens}}},
                                     {"modelVersion", request.model}},
                         "\r\n\r\n");
    case Dialect::DashScope:
        return QByteArrayLiteral("id:") + QByteArray::number(completionTokens + 1)
            + QByteArrayLiteral("\nevent:result\n:HTTP_STATUS/200\ndata:")
            + compact(QJsonObject{{"output", dashScopeOutput(request, "", "stop")},
                                  {"usage", dashScopeUsage(request.promptTokens, completionTokens)},
                                  {"request_id", QString::fromLatin1(id)}})
            + QByteArrayLiteral("\n\n");
    case Dialect::Ernie:
        return dataEvent(QJsonObject{{"id", QString::fromLatin1("as-" + id)},
                                     {"object", "chat.completion"},
                                     {"created", created()},
                                     {"sentence_id", completionTokens},
                                     {"is_end", true},
                                     {"is_truncated", false},
                                     {"result", ""},
                                     {"need_clear_history", false},
                                     {"finish_reason", "normal"},
                                     {"usage", openAiUsage(request.promptTokens, completionTokens)}});
    }
    return {};
}

QByteArray DialectWire::jsonBody(int status, const char *type, const char *message) const
{
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
        return compact(QJsonObject{
            {"error", QJsonObject{{"message", message}, {"type", type}, {"param", QJsonValue::Null}, {"code", type}}}});
    case Dialect::Anthropic:
        return compact(QJsonObject{{"type", "error"}, {"error", QJsonObject{{"type", type}, {"message", message}}}});
    case Dialect::Gemini:
        return compact(QJsonObject{{"error", QJsonObject{{"code", status}, {"message", message}, {"status", type}}}});
    case Dialect::DashScope:
        return compact(QJsonObject{{"code", type}, {"message", message}, {"request_id", "sim"}});
    case Dialect::Ernie:
        return compact(QJsonObject{{"error_code", QString::fromLatin1(type).toInt()}, {"error_msg", message}});
    }
    return {};
}

SimReply DialectWire::httpError(int status, int retryAfterSeconds) const
{
    SimReply reply;
    reply.status = status;
    reply.headers.add("content-type", "application/json");
    if (status == 429 && retryAfterSeconds > 0)
        reply.headers.add("retry-after", QByteArray::number(retryAfterSeconds));
    const char *type = "server_error";
    const char *message = reasonPhrase(status);
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
        type = status == 429 ? "rate_limit_exceeded" : "server_error";
        message = status == 429 ? "Rate limit reached for requests" : "The server had an error while processing your request.";
        break;
    case Dialect::Anthropic:
        type = status == 429 ? "rate_limit_error" : status == 503 ? "overloaded_error" : "api_error";
        message = status == 429 ? "Number of requests has exceeded your rate limit" : status == 503 ? "Overloaded" : "Internal server error";
        break;
    case Dialect::Gemini:
        type = status == 429 ? "RESOURCE_EXHAUSTED" : status == 503 ? "UNAVAILABLE" : "INTERNAL";
        message = status == 429 ? "Resource has been exhausted (e.g. check quota)." : status == 503 ? "The model is overloaded. Please try again later." : "An internal error has occurred.";
        break;
    case Dialect::DashScope:
        type = status == 429 ? "Throttling.RateQuota" : status == 503 ? "ServiceUnavailable" : "InternalError";
        message = status == 429 ? "Requests rate limit exceeded, please try again later." : "An internal error has occured, please try again later.";
        break;
    case Dialect::Ernie:
        type = status == 429 ? "336501" : "336100";
        message = status == 429 ? "Rate limit reached for RPM" : "internal error";
        break;
    }
    reply.body = jsonBody(status, type, message);
    return reply;
}

SimReply DialectWire::rateLimitHint(int waitSeconds) const
{
    waitSeconds = std::max(1, waitSeconds);
    SimReply reply = httpError(429);
    // Date and reset from one reading of the clock, in whole seconds, so that the wait they make
    // together is exactly waitSeconds.
    const QDateTime now = QDateTime::fromMSecsSinceEpoch(m_clock->wallMillis() / 1000 * 1000, QTimeZone::utc());
    switch (m_dialect) {
    case Dialect::OpenAiCompat: {
        // Go's time.Duration text, as OpenAI writes it: "14s", "1m30s", "1h0m5s".
        const int h = waitSeconds / 3600, m = waitSeconds % 3600 / 60, s = waitSeconds % 60;
        QByteArray duration = QByteArray::number(s) + 's';
        if (h > 0 || m > 0)
            duration.prepend(QByteArray::number(m) + 'm');
        if (h > 0)
            duration.prepend(QByteArray::number(h) + 'h');
        reply.headers.add("x-ratelimit-limit-requests", "60");
        reply.headers.add("x-ratelimit-remaining-requests", "0");
        reply.headers.add("x-ratelimit-reset-requests", duration);
        reply.headers.add("x-ratelimit-limit-tokens", "150000");
        reply.headers.add("x-ratelimit-remaining-tokens", "149000");
        reply.headers.add("x-ratelimit-reset-tokens", "400ms"); // not the limit that refused
        break;
    }
    case Dialect::Anthropic:
        reply.headers.add("date", QLocale::c().toString(now, QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'")).toLatin1());
        reply.headers.add("anthropic-ratelimit-requests-limit", "50");
        reply.headers.add("anthropic-ratelimit-requests-remaining", "0");
        reply.headers.add("anthropic-ratelimit-requests-reset", now.addSecs(waitSeconds).toString(Qt::ISODate).toLatin1());
        reply.headers.add("anthropic-ratelimit-tokens-remaining", "40000");
        reply.headers.add("anthropic-ratelimit-tokens-reset", now.addSecs(1).toString(Qt::ISODate).toLatin1());
        break;
    case Dialect::Gemini: {
        QJsonObject error = QJsonDocument::fromJson(reply.body).object().value(QStringLiteral("error")).toObject();
        error.insert(QStringLiteral("details"),
                     QJsonArray{QJsonObject{{"@type", "type.googleapis.com/google.rpc.QuotaFailure"},
                                            {"violations", QJsonArray{QJsonObject{{"quotaMetric", "generativelanguage.googleapis.com/generate_content_requests"}}}}},
                                QJsonObject{{"@type", "type.googleapis.com/google.rpc.RetryInfo"},
                                            {"retryDelay", QStringLiteral("%1s").arg(waitSeconds)}}});
        reply.body = compact(QJsonObject{{"error", error}});
        break;
    }
    case Dialect::DashScope:
    case Dialect::Ernie:
        reply.headers.add("retry-after", QByteArray::number(waitSeconds));
        break;
    }
    return reply;
}

SimReply DialectWire::unknownKey() const
{
    SimReply reply;
    reply.status = 401;
    reply.headers.add("content-type", "application/json");
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
        reply.body = jsonBody(401, "invalid_api_key", "Incorrect API key provided.");
        break;
    case Dialect::Anthropic:
        reply.body = jsonBody(401, "authentication_error", "invalid x-api-key");
        break;
    case Dialect::Gemini:
        reply.status = 403;
        reply.body = jsonBody(403, "PERMISSION_DENIED", "API key not valid. Please pass a valid API key.");
        break;
    case Dialect::DashScope:
        reply.body = jsonBody(401, "InvalidApiKey", "Invalid API-key provided.");
        break;
    case Dialect::Ernie:
        reply.status = 200; // Qianfan reports token errors inside a 200 body
        reply.body = jsonBody(200, "110", "Access token invalid or no longer valid");
        break;
    }
    return reply;
}

SimReply DialectWire::keyRateLimited(int retryAfterSeconds) const
{
    if (m_dialect == Dialect::Ernie)
        return bodyRateLimit(); // Qianfan's QPS limit is error_code 18 in a 200 body
    return httpError(429, retryAfterSeconds);
}

SimReply DialectWire::providerParamError() const
{
    // Each is a provider's real refusal of something the caller may never have sent, or a limit
    // another provider does not have.
    SimReply reply;
    reply.status = 400;
    reply.headers.add("content-type", "application/json");
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
        reply.body = compact(QJsonObject{
            {"error", QJsonObject{{"message", "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                                              "'max_completion_tokens' instead."},
                                  {"type", "invalid_request_error"},
                                  {"param", "max_tokens"},
                                  {"code", "unsupported_parameter"}}}});
        break;
    case Dialect::Anthropic:
        reply.body = jsonBody(400, "invalid_request_error",
                              "max_tokens: 16384 > 8192, which is the maximum allowed number of output tokens for this model");
        break;
    case Dialect::Gemini:
        reply.body = jsonBody(400, "INVALID_ARGUMENT",
                              "Invalid JSON payload received. Unknown name \"frequency_penalty\" at 'generation_config': Cannot find field.");
        break;
    case Dialect::DashScope:
        reply.body = jsonBody(400, "InvalidParameter", "Range of parameters.max_tokens should be [1, 2000]");
        break;
    case Dialect::Ernie:
        reply.status = 200; // Qianfan reports request faults inside a 200 body
        reply.body = jsonBody(200, "336003", "the field `penalty_score` should be in [1.0, 2.0]");
        break;
    }
    return reply;
}

SimReply DialectWire::bodyRateLimit() const
{
    SimReply reply;
    reply.headers.add("content-type", "application/json");
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
        reply.body = jsonBody(429, "rate_limit_exceeded", "Rate limit reached for requests");
        break;
    case Dialect::Anthropic:
        reply.body = jsonBody(429, "rate_limit_error", "Number of requests has exceeded your rate limit");
        break;
    case Dialect::Gemini:
        reply.body = jsonBody(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).");
        break;
    case Dialect::DashScope:
        reply.body = jsonBody(429, "Throttling.RateQuota", "Requests rate limit exceeded, please try again later.");
        break;
    case Dialect::Ernie:
        reply.body = jsonBody(200, "18", "Open api qps request limit reached");
        break;
    }
    return reply;
}

QByteArray DialectWire::rateLimitEvent(const QByteArray &id) const
{
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
    case Dialect::Ernie:
        return QByteArrayLiteral("data: ") + bodyRateLimit().body + QByteArrayLiteral("\n\n");
    case Dialect::Gemini:
        return QByteArrayLiteral("data: ") + bodyRateLimit().body + QByteArrayLiteral("\r\n\r\n");
    case Dialect::Anthropic:
        return QByteArrayLiteral("event: error\ndata: ") + bodyRateLimit().body + QByteArrayLiteral("\n\n");
    case Dialect::DashScope:
        return QByteArrayLiteral("id:1\nevent:error\n:HTTP_STATUS/429\ndata:")
            + compact(QJsonObject{{"code", "Throttling.RateQuota"},
                                  {"message", "Requests rate limit exceeded, please try again later."},
                                  {"request_id", QString::fromLatin1(id)}})
            + QByteArrayLiteral("\n\n");
    }
    return {};
}

QByteArray DialectWire::errorEvent(const QByteArray &id) const
{
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
        return QByteArrayLiteral("data: ") + jsonBody(500, "server_error", "The server had an error while processing your request.")
            + QByteArrayLiteral("\n\n");
    case Dialect::Anthropic:
        return QByteArrayLiteral("event: error\ndata: ") + jsonBody(529, "overloaded_error", "Overloaded") + QByteArrayLiteral("\n\n");
    case Dialect::Gemini:
        return QByteArrayLiteral("data: ") + jsonBody(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")
            + QByteArrayLiteral("\r\n\r\n");
    case Dialect::DashScope:
        return QByteArrayLiteral("id:1\nevent:error\n:HTTP_STATUS/500\ndata:")
            + compact(QJsonObject{{"code", "InternalError"},
                                  {"message", "An internal error has occured, please try again later."},
                                  {"request_id", QString::fromLatin1(id)}})
            + QByteArrayLiteral("\n\n");
    case Dialect::Ernie:
        return QByteArrayLiteral("data: ") + jsonBody(200, "336100", "internal error") + QByteArrayLiteral("\n\n");
    }
    return {};
}

QByteArray DialectWire::firstEventError(const SimRequest &request, const QByteArray &id) const
{
    return request.responses ? ResponsesApiWire::failedStream(request, id, created(), false) : errorEvent(id);
}

QByteArray DialectWire::firstEventRateLimit(const SimRequest &request, const QByteArray &id) const
{
    return request.responses ? ResponsesApiWire::failedStream(request, id, created(), true) : rateLimitEvent(id);
}

QByteArray DialectWire::midStreamError(const SimRequest &request, const QByteArray &id, int tokensSent) const
{
    return request.responses ? ResponsesApiWire::midStreamError(tokensSent) : errorEvent(id);
}

SimReply DialectWire::probe(const QStringList &models, bool down) const
{
    if (down)
        return httpError(503);
    SimReply reply;
    reply.headers.add("content-type", "application/json");
    QJsonArray list;
    for (const QString &m : models) {
        switch (m_dialect) {
        case Dialect::Anthropic:
            list.append(QJsonObject{{"type", "model"}, {"id", m}, {"display_name", m}, {"created_at", "2025-01-01T00:00:00Z"}});
            break;
        case Dialect::Gemini:
            list.append(QJsonObject{{"name", QStringLiteral("models/") + m},
                                    {"displayName", m},
                                    {"supportedGenerationMethods", QJsonArray{"generateContent", "streamGenerateContent"}}});
            break;
        default:
            list.append(QJsonObject{{"id", m}, {"object", "model"}, {"created", 1735689600}, {"owned_by", "switchboard-sim"}});
            break;
        }
    }
    switch (m_dialect) {
    case Dialect::Anthropic:
        reply.body = compact(QJsonObject{{"data", list}, {"has_more", false}});
        break;
    case Dialect::Gemini:
        reply.body = compact(QJsonObject{{"models", list}});
        break;
    default:
        reply.body = compact(QJsonObject{{"object", "list"}, {"data", list}});
        break;
    }
    return reply;
}

std::vector<double> DialectWire::bagOfWords(const QString &text)
{
    constexpr int kDimensions = 64;
    std::vector<double> v(kDimensions, 0.0);
    for (const QString &word : text.toLower().split(QRegularExpression(QStringLiteral("[^a-z]+")), Qt::SkipEmptyParts))
        v[qHash(word, 7) % kDimensions] += 1.0;
    return v;
}

SimReply DialectWire::embeddings(const SimRequest &request) const
{
    SimReply reply;
    reply.headers.add("content-type", "application/json");
    auto vectorOf = [](const QString &text) {
        QJsonArray out;
        for (double x : bagOfWords(text))
            out.append(x);
        return out;
    };
    const int tokens = request.promptTokens;
    switch (m_dialect) {
    case Dialect::Gemini: {
        QJsonArray list;
        for (const QString &text : request.inputs)
            list.append(QJsonObject{{"values", vectorOf(text)}});
        reply.body = compact(QJsonObject{{"embeddings", list}});
        break;
    }
    case Dialect::DashScope: {
        QJsonArray list;
        for (int i = 0; i < request.inputs.size(); ++i)
            list.append(QJsonObject{{"text_index", i}, {"embedding", vectorOf(request.inputs.at(i))}});
        reply.body = compact(QJsonObject{{"output", QJsonObject{{"embeddings", list}}},
                                         {"usage", QJsonObject{{"total_tokens", tokens}}},
                                         {"request_id", "sim-embeddings"}});
        break;
    }
    default: {
        QJsonArray data;
        for (int i = 0; i < request.inputs.size(); ++i)
            data.append(QJsonObject{{"object", "embedding"}, {"index", i}, {"embedding", vectorOf(request.inputs.at(i))}});
        reply.body = compact(QJsonObject{{"object", "list"}, {"data", data}, {"model", "sim-embed"},
                                         {"usage", QJsonObject{{"prompt_tokens", tokens}, {"total_tokens", tokens}}}});
        break;
    }
    }
    return reply;
}

SimReply DialectWire::wrongPath()
{
    SimReply reply;
    reply.status = 404;
    reply.headers.add("content-type", "text/html");
    reply.body = QByteArrayLiteral("<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n"
                                   "<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n");
    return reply;
}

SimReply DialectWire::unknownModel(const QString &model) const
{
    SimReply reply;
    reply.status = 404;
    reply.headers.add("content-type", "application/json");
    const QString name = model.isEmpty() ? QStringLiteral("unknown") : model;
    switch (m_dialect) {
    case Dialect::OpenAiCompat:
        reply.body = compact(QJsonObject{{"error", QJsonObject{{"message", QStringLiteral("The model `%1` does not exist or you do not have access to it.").arg(name)},
                                                               {"type", "invalid_request_error"},
                                                               {"param", QJsonValue::Null},
                                                               {"code", "model_not_found"}}}});
        break;
    case Dialect::Anthropic:
        reply.body = compact(QJsonObject{{"type", "error"},
                                         {"error", QJsonObject{{"type", "not_found_error"}, {"message", QStringLiteral("model: %1").arg(name)}}}});
        break;
    case Dialect::Gemini:
        reply.body = compact(QJsonObject{{"error", QJsonObject{{"code", 404},
                                                               {"message", QStringLiteral("models/%1 is not found for API version v1beta, or is not "
                                                                                          "supported for generateContent.").arg(name)},
                                                               {"status", "NOT_FOUND"}}}});
        break;
    case Dialect::DashScope:
        reply.body = compact(QJsonObject{{"code", "ModelNotFound"}, {"message", QStringLiteral("Model not exist: %1").arg(name)}, {"request_id", "sim"}});
        break;
    case Dialect::Ernie:
        reply.body = compact(QJsonObject{{"error_code", 336003}, {"error_msg", QStringLiteral("the model %1 does not exist").arg(name)}});
        break;
    }
    return reply;
}

} // namespace sb::sim
