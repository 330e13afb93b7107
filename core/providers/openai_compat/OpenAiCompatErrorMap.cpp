#include "providers/openai_compat/OpenAiCompatErrorMap.h"

#include "common/json/JsonLiterals.h"
#include "common/json/JsonObjectScan.h"
#include "providers/common/EndpointNotFound.h"
#include "providers/common/InBodyError.h"
#include "providers/common/ProviderText.h"
#include "providers/common/RetryAfter.h"
#include "stream/SseParser.h"

#include <QJsonDocument>
#include <QStringList>

#include <algorithm>

namespace sb {

namespace {

bool containsAny(const QString &text, std::initializer_list<const char *> words)
{
    for (const char *w : words)
        if (text.contains(QLatin1String(w)))
            return true;
    return false;
}

std::optional<OutcomeKind> kindFromStatusNumber(int status)
{
    if (status == 401 || status == 403 || status == 402)
        return OutcomeKind::AuthError;
    if (status == 429)
        return OutcomeKind::RetryableRateLimit;
    if (status == 408 || status >= 500)
        return OutcomeKind::ProviderDown;
    if (status >= 400)
        return OutcomeKind::NonRetryableParamError;
    return std::nullopt;
}

QString codeText(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    if (value.isDouble())
        return QString::number(value.toInteger());
    return QString();
}

OutcomeKind combine(int status, std::optional<OutcomeKind> fromCode)
{
    if (status == 401 || status == 403 || status == 402)
        return OutcomeKind::AuthError;
    if (status == 429) {
        if (fromCode == OutcomeKind::AuthError || fromCode == OutcomeKind::ProviderDown)
            return *fromCode; // quota exhausted, or Ark's ServerOverloaded
        return OutcomeKind::RetryableRateLimit;
    }
    if (status == 408 || status >= 500)
        return OutcomeKind::ProviderDown;
    if (status >= 400) {
        if (fromCode && *fromCode != OutcomeKind::Success)
            return *fromCode;
        return OutcomeKind::NonRetryableParamError;
    }
    return OutcomeKind::ProviderDown; // 1xx/3xx reaching us: nothing usable came back (2xx: judgeInBodyError)
}

Outcome make(OutcomeKind kind, int status, const HttpHeaders &headers, QString code, QString message)
{
    Outcome o;
    o.kind = kind;
    o.httpStatus = status;
    o.providerCode = std::move(code);
    o.message = cleanProviderMessage(message);
    o.retryAfter = retryAfterFromHeaders(headers, &o.retryAfterFrom);
    if (!o.retryAfter && kind == OutcomeKind::RetryableRateLimit)
        o.retryAfter = rateLimitResetFromHeaders(headers, &o.retryAfterFrom);
    return o;
}

bool looksLikeEventStream(const HttpHeaders &headers, const QByteArray &body)
{
    if (headers.value("content-type").contains("text/event-stream"))
        return true;
    // A view: every answer passes here, and a copy of its start was an allocation.
    const QByteArrayView start = QByteArrayView(body).first(std::min<qsizetype>(body.size(), 16)).trimmed();
    return start.startsWith("data:") || start.startsWith("event:") || start.startsWith(':');
}

} // namespace

std::optional<OutcomeKind> OpenAiCompatErrorMap::kindFromCode(const QString &rawCode)
{
    const QString code = rawCode.toLower();
    if (code.isEmpty())
        return std::nullopt;
    bool isNumber = false;
    const int number = code.toInt(&isNumber);
    if (isNumber)
        return kindFromStatusNumber(number);
    // Order matters: "insufficient_quota" is not a rate limit, "invalid_api_key" is not a bad parameter.
    if (containsAny(code, {"insufficient_quota", "quota_exceeded", "billing", "balance", "arrearage", "overdue",
                           "account_deactivated", "payment"}))
        return OutcomeKind::AuthError;
    if (containsAny(code, {"rate_limit", "ratelimit", "limit_requests", "limit_burst", "throttl", "too_many_requests",
                           "toomanyrequests", "requests_per", "tokens_per"}))
        return OutcomeKind::RetryableRateLimit;
    if (containsAny(code, {"overload", "server_error", "internal", "service_unavailable", "serviceunavailable",
                           "api_error", "timeout", "closedendpoint", "unavailable", "bad_gateway"}))
        return OutcomeKind::ProviderDown;
    if (containsAny(code, {"invalid_api_key", "api_key", "authentication", "unauthorized", "permission",
                           "accessdenied", "access_denied", "forbidden", "invalid_authentication"}))
        return OutcomeKind::AuthError;
    if (containsAny(code, {"invalid", "not_found", "notfound", "context_length", "missing", "bad_request",
                           "badrequest", "sensitive", "data_inspection", "content_filter", "unsupported",
                           "too_large", "exceeded"}))
        return OutcomeKind::NonRetryableParamError;
    return std::nullopt;
}

std::optional<Outcome> OpenAiCompatErrorMap::errorInObject(const QJsonObject &object, int httpStatus,
                                                         const HttpHeaders &headers)
{
    QString code, type, message;
    const QJsonValue error = object.value(QLatin1String("error"));
    if (error.isObject()) {
        const QJsonObject e = error.toObject();
        code = codeText(e.value(QLatin1String("code")));
        type = codeText(e.value(QLatin1String("type")));
        message = e.value(QLatin1String("message")).toString();
    } else if (error.isString()) {
        message = error.toString(); // Ollama: {"error":"model 'x' not found"}
    } else if (object.value(QLatin1String("object")).toString() == QLatin1String("error")) {
        code = codeText(object.value(QLatin1String("code"))); // vLLM
        type = codeText(object.value(QLatin1String("type")));
        message = object.value(QLatin1String("message")).toString();
    } else {
        return std::nullopt;
    }
    const QString providerCode = !code.isEmpty() ? code : type;
    if (httpStatus >= 200 && httpStatus < 300) {
        // No status to go by: the type, the code and the message are weighed together.
        const OutcomeKind kind = judgeInBodyError(InBodyError{type, code, message, kindFromCode(type), kindFromCode(code)});
        return make(kind, httpStatus, headers, providerCode, message);
    }
    std::optional<OutcomeKind> fromCode = kindFromCode(code);
    if (!fromCode)
        fromCode = kindFromCode(type);
    if (!fromCode && !message.isEmpty() && code.isEmpty() && type.isEmpty())
        fromCode = kindFromCode(message.left(200)); // a bare message is all some local servers give
    return make(combine(httpStatus, fromCode), httpStatus, headers, providerCode, message);
}

bool OpenAiCompatErrorMap::isCleanAnswer(int httpStatus, const HttpHeaders &headers, const QByteArray &body,
                                         JsonObjectScan *scan)
{
    if (httpStatus < 200 || httpStatus >= 300 || looksLikeEventStream(headers, body) || !scan->scan(body))
        return false;
    if (scan->find("error"))
        return false;
    if (const JsonObjectScan::Member *object = scan->find("object")) {
        const QByteArrayView raw = object->valueIn(body);
        if (raw == "\"error\"" || jsonliteral::hasEscape(raw))
            return false;
    }
    return true;
}

Outcome OpenAiCompatErrorMap::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body,
                                       QJsonObject *parsedObject)
{
    if (auto notFound = endpointNotFoundOutcome(httpStatus, headers, body)) // a wrong base URL or path, not a model
        return *notFound;
    const bool ok = httpStatus >= 200 && httpStatus < 300;

    if (ok && looksLikeEventStream(headers, body)) {
        // A stream: judged by its first event carrying data (a 200 whose first event is an error
        // is that error). Later events are the stream translator's business.
        SseParser parser;
        auto events = parser.feed(body);
        auto tail = parser.finish();
        events.insert(events.end(), tail.begin(), tail.end());
        for (const SseEvent &event : events) {
            if (event.data.trimmed() == "[DONE]")
                break;
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
    const bool isObject = parseJsonObject(body, &object);
    if (isObject) {
        if (auto error = errorInObject(object, httpStatus, headers))
            return *error;
    }
    if (ok) {
        if (isObject) {
            if (parsedObject)
                *parsedObject = std::move(object);
            return Outcome::success(httpStatus);
        }
        if (QJsonDocument::fromJson(body).isArray())
            return Outcome::success(httpStatus);
        return make(OutcomeKind::ProviderDown, httpStatus, headers, QStringLiteral("malformed_body"),
                    body.trimmed().isEmpty() ? QStringLiteral("The provider answered 200 with an empty body.")
                                             : QStringLiteral("The provider answered 200 with a body that is not JSON."));
    }
    // Not JSON at all (an HTML page from a proxy, plain text): the status alone decides.
    const QString text = QString::fromUtf8(body.left(300));
    return make(combine(httpStatus, std::nullopt), httpStatus, headers, QString(),
                text.isEmpty() ? QStringLiteral("HTTP %1").arg(httpStatus) : text);
}

} // namespace sb
