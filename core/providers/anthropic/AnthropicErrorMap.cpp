#include "providers/anthropic/AnthropicErrorMap.h"

#include "providers/common/ProviderText.h"
#include "providers/common/RetryAfter.h"
#include "stream/SseParser.h"

namespace sb {

namespace {

OutcomeKind combine(int status, std::optional<OutcomeKind> fromType)
{
    if (status == 401 || status == 403 || status == 402)
        return OutcomeKind::AuthError;
    if (status == 429)
        return fromType == OutcomeKind::AuthError ? OutcomeKind::AuthError : OutcomeKind::RetryableRateLimit;
    if (status == 408 || status >= 500) // 529 is Anthropic's "overloaded"
        return OutcomeKind::ProviderDown;
    if (status >= 400)
        return fromType && *fromType != OutcomeKind::Success ? *fromType : OutcomeKind::NonRetryableParamError;
    if (status >= 200 && status < 300)
        return fromType.value_or(OutcomeKind::ProviderDown);
    return OutcomeKind::ProviderDown;
}

Outcome make(OutcomeKind kind, int status, const HttpHeaders &headers, QString code, const QString &message)
{
    Outcome o;
    o.kind = kind;
    o.httpStatus = status;
    o.providerCode = std::move(code);
    o.message = cleanProviderMessage(message);
    o.retryAfter = retryAfterFromHeaders(headers);
    return o;
}

} // namespace

std::optional<OutcomeKind> AnthropicErrorMap::kindFromType(const QString &type)
{
    if (type == QLatin1String("overloaded_error") || type == QLatin1String("api_error")
        || type == QLatin1String("timeout_error"))
        return OutcomeKind::ProviderDown;
    if (type == QLatin1String("rate_limit_error"))
        return OutcomeKind::RetryableRateLimit;
    if (type == QLatin1String("authentication_error") || type == QLatin1String("permission_error")
        || type == QLatin1String("billing_error"))
        return OutcomeKind::AuthError;
    if (type == QLatin1String("invalid_request_error") || type == QLatin1String("not_found_error")
        || type == QLatin1String("request_too_large"))
        return OutcomeKind::NonRetryableParamError;
    return std::nullopt;
}

std::optional<Outcome> AnthropicErrorMap::errorInObject(const QJsonObject &object, int httpStatus,
                                                      const HttpHeaders &headers)
{
    const QJsonValue error = object.value(QLatin1String("error"));
    if (object.value(QLatin1String("type")).toString() != QLatin1String("error") && !error.isObject())
        return std::nullopt;
    const QJsonObject e = error.toObject();
    const QString type = e.value(QLatin1String("type")).toString();
    return make(combine(httpStatus, kindFromType(type)), httpStatus, headers, type,
                e.value(QLatin1String("message")).toString());
}

Outcome AnthropicErrorMap::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body)
{
    const bool ok = httpStatus >= 200 && httpStatus < 300;
    const QByteArray start = body.left(16).trimmed();
    const bool isStream = headers.value("content-type").contains("text/event-stream") || start.startsWith("event:")
                          || start.startsWith("data:") || start.startsWith(':');
    if (ok && isStream) {
        SseParser parser;
        auto events = parser.feed(body);
        auto tail = parser.finish();
        events.insert(events.end(), tail.begin(), tail.end());
        for (const SseEvent &event : events) {
            if (event.event == "ping")
                continue;
            QJsonObject object;
            if (!parseJsonObject(event.data, &object))
                return make(OutcomeKind::ProviderDown, httpStatus, headers, QStringLiteral("malformed_event"),
                            QStringLiteral("The provider's stream started with an event that is not JSON."));
            if (auto error = errorInObject(object, httpStatus, headers))
                return *error;
            break;
        }
        return Outcome::success(httpStatus);
    }

    QJsonObject object;
    if (parseJsonObject(body, &object)) {
        if (auto error = errorInObject(object, httpStatus, headers))
            return *error;
        if (ok)
            return Outcome::success(httpStatus);
    } else if (ok) {
        return make(OutcomeKind::ProviderDown, httpStatus, headers, QStringLiteral("malformed_body"),
                    QStringLiteral("The provider answered 200 with a body that is not JSON."));
    }
    const QString text = QString::fromUtf8(body.left(300));
    return make(combine(httpStatus, std::nullopt), httpStatus, headers, QString(),
                text.isEmpty() ? QStringLiteral("HTTP %1").arg(httpStatus) : text);
}

} // namespace sb
