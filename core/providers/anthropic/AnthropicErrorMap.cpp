#include "providers/anthropic/AnthropicErrorMap.h"

#include "common/json/JsonObjectScan.h"
#include "common/json/JsonWalk.h"
#include "providers/common/EndpointNotFound.h"
#include "providers/common/InBodyError.h"
#include "providers/common/ProviderText.h"
#include "providers/common/RetryAfter.h"
#include "stream/SseParser.h"

#include <QJsonArray>

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
    return OutcomeKind::ProviderDown; // 2xx errors: judgeInBodyError
}

bool looksLikeEventStream(const HttpHeaders &headers, const QByteArray &body)
{
    const QByteArray start = body.left(16).trimmed();
    return headers.value("content-type").contains("text/event-stream") || start.startsWith("event:")
           || start.startsWith("data:") || start.startsWith(':');
}

bool isNonEmptyString(QByteArrayView raw)
{
    return raw.size() > 2 && raw.front() == '"';
}

// The hot path's look at a message: its top-level members only, no value built. True when it
// certainly is one; false leaves it to the parsed object.
bool scannedMessageIsWellFormed(const QByteArray &body)
{
    JsonObjectScan scan;
    if (!scan.scan(body))
        return false;
    const JsonObjectScan::Member *type = scan.find("type");
    const JsonObjectScan::Member *content = scan.find("content");
    if (!type || type->valueIn(body) != "\"message\"" || !content)
        return false;
    const QByteArrayView blocks = content->valueIn(body);
    if (blocks.isEmpty() || blocks.front() != '[')
        return false;
    if (const qsizetype first = jsonwalk::skipSpace(blocks, 1); first < blocks.size() && blocks[first] != ']')
        return true;
    const JsonObjectScan::Member *stop = scan.find("stop_reason");
    return stop && isNonEmptyString(stop->valueIn(body));
}

Outcome make(OutcomeKind kind, int status, const HttpHeaders &headers, QString code, const QString &message)
{
    Outcome o;
    o.kind = kind;
    o.httpStatus = status;
    o.providerCode = std::move(code);
    o.message = cleanProviderMessage(message);
    o.retryAfter = retryAfterFromHeaders(headers, &o.retryAfterFrom);
    if (!o.retryAfter && kind == OutcomeKind::RetryableRateLimit)
        o.retryAfter = AnthropicErrorMap::rateLimitReset(headers, &o.retryAfterFrom);
    return o;
}

} // namespace

std::optional<std::chrono::milliseconds> AnthropicErrorMap::rateLimitReset(const HttpHeaders &headers, const char **from)
{
    // Each limit says when it refills as an RFC 3339 instant; the one at 0 is the one that refused.
    // Without any at 0 the resets say when a full bucket is back, which is not when a request fits.
    static constexpr struct {
        const char *remaining, *reset;
    } kLimits[] = {
        {"anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset"},
        {"anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset"},
        {"anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset"},
        {"anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset"},
    };
    std::optional<std::chrono::milliseconds> wait;
    for (const auto &limit : kLimits) {
        if (headers.value(limit.remaining).trimmed() != "0")
            continue;
        if (auto until = waitUntilInstant(headers.value(limit.reset), headers); until && (!wait || *until > *wait)) {
            wait = until;
            if (from)
                *from = limit.reset;
        }
    }
    return wait;
}

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
    const QString message = e.value(QLatin1String("message")).toString();
    // Inside a 200 (a body or an event) there is no status to go by: the type and the message
    // are weighed together.
    const OutcomeKind kind = httpStatus >= 200 && httpStatus < 300
                                 ? judgeInBodyError(InBodyError{type, QString(), message, kindFromType(type), std::nullopt})
                                 : combine(httpStatus, kindFromType(type));
    return make(kind, httpStatus, headers, type, message);
}

Outcome AnthropicErrorMap::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body)
{
    if (auto notFound = endpointNotFoundOutcome(httpStatus, headers, body)) // a wrong base URL or path, not a model
        return *notFound;
    const bool ok = httpStatus >= 200 && httpStatus < 300;
    if (ok && looksLikeEventStream(headers, body)) {
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

std::optional<QString> AnthropicErrorMap::messageProblem(const HttpHeaders &headers, const QByteArray &body)
{
    if (looksLikeEventStream(headers, body))
        return QStringLiteral("an event stream to a request for a whole message");
    if (scannedMessageIsWellFormed(body))
        return std::nullopt;
    QJsonObject object;
    if (!parseJsonObject(body, &object))
        return QStringLiteral("a body that is not one JSON object");
    if (object.value(QLatin1String("type")).toString() != QLatin1String("message"))
        return QStringLiteral("an object whose type is not \"message\"");
    const QJsonValue content = object.value(QLatin1String("content"));
    if (!content.isArray())
        return QStringLiteral("a message without content");
    const QJsonValue stop = object.value(QLatin1String("stop_reason"));
    if (content.toArray().isEmpty() && !(stop.isString() && !stop.toString().isEmpty()))
        return QStringLiteral("a message with neither content nor a stop reason");
    return std::nullopt;
}

} // namespace sb
