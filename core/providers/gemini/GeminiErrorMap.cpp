#include "providers/gemini/GeminiErrorMap.h"

#include "providers/common/EndpointNotFound.h"
#include "providers/common/InBodyError.h"
#include "providers/common/UpstreamOutcome.h"
#include "providers/common/ProviderText.h"
#include "providers/common/RetryAfter.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sb {

namespace {

Outcome make(OutcomeKind kind, int status, QString code, QString message)
{
    Outcome o;
    o.kind = kind;
    o.httpStatus = status;
    o.providerCode = std::move(code);
    o.message = cleanProviderMessage(message);
    return o;
}

bool mentionsInvalidKey(const QJsonObject &error)
{
    // google.rpc.ErrorInfo carries reason API_KEY_INVALID; older responses only say so in the message.
    const QJsonArray details = error.value(QLatin1String("details")).toArray();
    for (const QJsonValue &d : details) {
        const QString reason = d.toObject().value(QLatin1String("reason")).toString();
        if (reason == QLatin1String("API_KEY_INVALID") || reason == QLatin1String("API_KEY_SERVICE_BLOCKED"))
            return true;
    }
    return error.value(QLatin1String("message")).toString().contains(QLatin1String("API key not valid"));
}

} // namespace

std::optional<std::chrono::milliseconds> GeminiErrorMap::parseDuration(const QString &text)
{
    // A protobuf Duration in JSON is seconds with an "s"; the shared reader knows that grammar.
    const QString t = text.trimmed();
    if (!t.endsWith(QLatin1Char('s')) || t.endsWith(QLatin1String("ms")) || t.startsWith(QLatin1Char('-')))
        return std::nullopt;
    return parseGoDuration(t.toLatin1());
}

Outcome GeminiErrorMap::fromError(const QJsonObject &error, int httpStatus,
                                  std::optional<std::chrono::milliseconds> retryAfter, const char *retryAfterFrom)
{
    const QString status = error.value(QLatin1String("status")).toString();
    const int code = error.value(QLatin1String("code")).toInt(httpStatus);
    const QString message = error.value(QLatin1String("message")).toString();

    std::optional<OutcomeKind> statusKind;
    if (status == QLatin1String("RESOURCE_EXHAUSTED"))
        statusKind = OutcomeKind::RetryableRateLimit;
    else if (status == QLatin1String("UNAUTHENTICATED") || status == QLatin1String("PERMISSION_DENIED"))
        statusKind = OutcomeKind::AuthError;
    else if (status == QLatin1String("INVALID_ARGUMENT"))
        statusKind = mentionsInvalidKey(error) ? OutcomeKind::AuthError : OutcomeKind::NonRetryableParamError;
    else if (status == QLatin1String("FAILED_PRECONDITION") || status == QLatin1String("NOT_FOUND")
             || status == QLatin1String("OUT_OF_RANGE") || status == QLatin1String("ALREADY_EXISTS"))
        statusKind = OutcomeKind::NonRetryableParamError;
    else if (status == QLatin1String("INTERNAL") || status == QLatin1String("UNAVAILABLE")
             || status == QLatin1String("DEADLINE_EXCEEDED") || status == QLatin1String("UNKNOWN")
             || status == QLatin1String("ABORTED") || status == QLatin1String("CANCELLED"))
        statusKind = OutcomeKind::ProviderDown;

    OutcomeKind kind;
    if (httpStatus >= 400) {
        kind = statusKind.value_or(outcomeKindForHttpStatus(httpStatus));
    } else {
        // Inside a 200 (a body or an SSE event) the gRPC status, the code Google would have sent as
        // the HTTP status and the message are weighed together.
        const bool hasCode = error.value(QLatin1String("code")).isDouble();
        const std::optional<OutcomeKind> codeKind = hasCode && code >= 400 ? std::optional(outcomeKindForHttpStatus(code)) : std::nullopt;
        kind = judgeInBodyError(InBodyError{status, hasCode ? QString::number(code) : QString(), message, statusKind, codeKind});
    }

    Outcome o = make(kind, httpStatus, status.isEmpty() ? QString::number(code) : status, message);
    o.retryAfter = retryAfter;
    o.retryAfterFrom = retryAfter ? retryAfterFrom : nullptr;
    const QJsonArray details = error.value(QLatin1String("details")).toArray();
    for (const QJsonValue &d : details) {
        const QJsonObject detail = d.toObject();
        if (detail.value(QLatin1String("@type")).toString().endsWith(QLatin1String("google.rpc.RetryInfo"))) {
            // Google's own word on the wait, more precise than any header.
            if (auto delay = parseDuration(detail.value(QLatin1String("retryDelay")).toString())) {
                o.retryAfter = delay;
                o.retryAfterFrom = "retryDelay";
            }
        }
    }
    return o;
}

Outcome GeminiErrorMap::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body)
{
    if (auto notFound = endpointNotFoundOutcome(httpStatus, headers, body)) // a wrong base URL or path, not a model
        return *notFound;
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    QJsonObject root;
    if (doc.isArray() && !doc.array().isEmpty())
        root = doc.array().first().toObject();
    else if (doc.isObject())
        root = doc.object();

    const QJsonValue error = root.value(QLatin1String("error"));
    if (error.isObject()) {
        const char *from = nullptr;
        const auto wait = retryAfterFromHeaders(headers, &from);
        return fromError(error.toObject(), httpStatus, wait, from);
    }

    if (httpStatus >= 200 && httpStatus < 300) {
        if (parseError.error != QJsonParseError::NoError || root.isEmpty())
            return make(OutcomeKind::ProviderDown, httpStatus, QString(),
                        QStringLiteral("Gemini answered %1 with a body that is not a generateContent response").arg(httpStatus));
        return Outcome::success(httpStatus);
    }

    return httpStatusOutcome(httpStatus, headers, QStringLiteral("Gemini answered HTTP %1 without an error object").arg(httpStatus));
}

std::optional<QString> GeminiErrorMap::answerProblem(const QByteArray &body, bool embeddings)
{
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    const QJsonObject root = (doc.isArray() && !doc.array().isEmpty()) ? doc.array().first().toObject() : doc.object();
    if (parseError.error != QJsonParseError::NoError || root.isEmpty())
        return QStringLiteral("a body that is not a Gemini response");
    if (embeddings) {
        if (root.value(QLatin1String("embeddings")).toArray().isEmpty())
            return QStringLiteral("an embeddings answer without embeddings");
        return std::nullopt;
    }
    const QJsonArray candidates = root.value(QLatin1String("candidates")).toArray();
    if (candidates.isEmpty()) {
        // A blocked prompt has no candidates at all, and says why: an answer (content_filter).
        if (!root.value(QLatin1String("promptFeedback")).toObject().value(QLatin1String("blockReason")).toString().isEmpty())
            return std::nullopt;
        return QStringLiteral("a generateContent answer without candidates");
    }
    const QJsonObject candidate = candidates.first().toObject();
    const QString finish = candidate.value(QLatin1String("finishReason")).toString();
    const bool finished = !finish.isEmpty() && finish != QLatin1String("FINISH_REASON_UNSPECIFIED");
    if (!finished && candidate.value(QLatin1String("content")).toObject().value(QLatin1String("parts")).toArray().isEmpty())
        return QStringLiteral("a candidate with neither content nor a finish reason");
    return std::nullopt;
}

} // namespace sb
