#include "providers/gemini/GeminiErrorMap.h"

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
    QString t = text.trimmed();
    if (!t.endsWith(QLatin1Char('s')))
        return std::nullopt;
    t.chop(1);
    bool ok = false;
    const double seconds = t.toDouble(&ok);
    if (!ok || seconds < 0 || seconds > 86400.0 * 7)
        return std::nullopt;
    return std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0 + 0.5));
}

Outcome GeminiErrorMap::fromError(const QJsonObject &error, int httpStatus,
                                  std::optional<std::chrono::milliseconds> retryAfter)
{
    const QString status = error.value(QLatin1String("status")).toString();
    const int code = error.value(QLatin1String("code")).toInt(httpStatus);
    const QString message = error.value(QLatin1String("message")).toString();
    const int effectiveStatus = httpStatus >= 400 ? httpStatus : code;

    OutcomeKind kind;
    if (status == QLatin1String("RESOURCE_EXHAUSTED"))
        kind = OutcomeKind::RetryableRateLimit;
    else if (status == QLatin1String("UNAUTHENTICATED") || status == QLatin1String("PERMISSION_DENIED"))
        kind = OutcomeKind::AuthError;
    else if (status == QLatin1String("INVALID_ARGUMENT"))
        kind = mentionsInvalidKey(error) ? OutcomeKind::AuthError : OutcomeKind::NonRetryableParamError;
    else if (status == QLatin1String("FAILED_PRECONDITION") || status == QLatin1String("NOT_FOUND")
             || status == QLatin1String("OUT_OF_RANGE") || status == QLatin1String("ALREADY_EXISTS"))
        kind = OutcomeKind::NonRetryableParamError;
    else if (status == QLatin1String("INTERNAL") || status == QLatin1String("UNAVAILABLE")
             || status == QLatin1String("DEADLINE_EXCEEDED") || status == QLatin1String("UNKNOWN")
             || status == QLatin1String("ABORTED") || status == QLatin1String("CANCELLED"))
        kind = OutcomeKind::ProviderDown;
    else
        kind = effectiveStatus >= 400 ? outcomeKindForHttpStatus(effectiveStatus) : OutcomeKind::ProviderDown;

    Outcome o = make(kind, httpStatus, status.isEmpty() ? QString::number(code) : status, message);
    o.retryAfter = retryAfter;
    const QJsonArray details = error.value(QLatin1String("details")).toArray();
    for (const QJsonValue &d : details) {
        const QJsonObject detail = d.toObject();
        if (detail.value(QLatin1String("@type")).toString().endsWith(QLatin1String("google.rpc.RetryInfo"))) {
            if (auto delay = parseDuration(detail.value(QLatin1String("retryDelay")).toString()))
                o.retryAfter = delay;
        }
    }
    return o;
}

Outcome GeminiErrorMap::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body)
{
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    QJsonObject root;
    if (doc.isArray() && !doc.array().isEmpty())
        root = doc.array().first().toObject();
    else if (doc.isObject())
        root = doc.object();

    const QJsonValue error = root.value(QLatin1String("error"));
    if (error.isObject())
        return fromError(error.toObject(), httpStatus, retryAfterFromHeaders(headers));

    if (httpStatus >= 200 && httpStatus < 300) {
        if (parseError.error != QJsonParseError::NoError || root.isEmpty())
            return make(OutcomeKind::ProviderDown, httpStatus, QString(),
                        QStringLiteral("Gemini answered %1 with a body that is not a generateContent response").arg(httpStatus));
        return Outcome::success(httpStatus);
    }

    return httpStatusOutcome(httpStatus, headers, QStringLiteral("Gemini answered HTTP %1 without an error object").arg(httpStatus));
}

} // namespace sb
