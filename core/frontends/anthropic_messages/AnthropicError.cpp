#include "frontends/anthropic_messages/AnthropicError.h"

#include "common/json/JsonText.h"

#include <initializer_list>

namespace sb {

namespace {

AnthropicError make(int status, const char *type, const QString &message)
{
    return AnthropicError{status, QLatin1String(type), message};
}

bool isOneOf(const QString &value, std::initializer_list<const char *> words)
{
    for (const char *word : words)
        if (value == QLatin1String(word))
            return true;
    return false;
}

} // namespace

QByteArray AnthropicError::toJson() const
{
    QByteArray out;
    out.reserve(48 + type.size() + message.size() * 3 / 2);
    out += R"({"type":"error","error":{"type":)";
    appendJsonString(&out, type);
    out += R"(,"message":)";
    appendJsonString(&out, message);
    out += "}}";
    return out;
}

QByteArray AnthropicError::toEvent() const
{
    return "event: error\ndata: " + toJson() + "\n\n";
}

AnthropicError AnthropicError::invalidRequest(const QString &message)
{
    return make(400, "invalid_request_error", message);
}

AnthropicError AnthropicError::fromOpenAi(int status, const QString &openAiType, const QString &openAiCode,
                                          const QString &message)
{
    // The code says more than the status where the engine reuses one status for several causes:
    // 502 is both "every channel failed" and "the provider refused our key", and a stream's error
    // payload carries the outcome's name as its code and no status at all.
    if (isOneOf(openAiCode, {"upstream_timeout", "deadline_exceeded", "timeout"}) || openAiType == QLatin1String("timeout"))
        return make(504, "timeout_error", message);
    // Switchboard's own key was refused: waiting (what overloaded_error tells a client) does not
    // help, and the message says which key to fix.
    if (isOneOf(openAiCode, {"upstream_auth_error", "auth_error"}))
        return make(500, "api_error", message);
    if (isOneOf(openAiCode, {"rate_limited", "retryable_rate_limit", "insufficient_quota", "rate_limit_exceeded"})
        || openAiType == QLatin1String("rate_limit_error"))
        return make(429, "rate_limit_error", message);
    if (openAiCode == QLatin1String("non_retryable_param_error"))
        return make(400, "invalid_request_error", message);
    if (openAiCode == QLatin1String("request_too_large"))
        return make(413, "request_too_large", message);

    switch (status) {
    case 400: return make(400, "invalid_request_error", message);
    case 401: return make(401, "authentication_error", message);
    case 402: return make(402, "billing_error", message);
    case 403: return make(403, "permission_error", message);
    case 404: return make(404, "not_found_error", message);
    case 413: return make(413, "request_too_large", message);
    case 429: return make(429, "rate_limit_error", message);
    case 500: return make(500, "api_error", message);
    case 502:
    case 503:
    case 529: return make(529, "overloaded_error", message);
    case 504: return make(504, "timeout_error", message);
    default: break;
    }
    // Anthropic: "We may also use this error type for other 4XX status codes".
    if (status > 400 && status < 500)
        return make(status, "invalid_request_error", message);
    if (status > 500 && status < 600)
        return make(status, "api_error", message);

    // No usable status: the type decides.
    if (isOneOf(openAiType, {"invalid_request_error", "invalid_request"}))
        return make(400, "invalid_request_error", message);
    if (isOneOf(openAiType, {"authentication_error"}) || openAiCode == QLatin1String("invalid_api_key"))
        return make(401, "authentication_error", message);
    if (isOneOf(openAiType, {"permission_error"}))
        return make(403, "permission_error", message);
    if (isOneOf(openAiType, {"not_found_error"}) || isOneOf(openAiCode, {"model_not_found", "unknown_url"}))
        return make(404, "not_found_error", message);
    if (isOneOf(openAiType, {"upstream_error", "service_unavailable", "overloaded_error"}))
        return make(529, "overloaded_error", message);
    return make(500, "api_error", message);
}

} // namespace sb
