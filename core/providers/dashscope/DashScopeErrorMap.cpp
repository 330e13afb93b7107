#include "providers/dashscope/DashScopeErrorMap.h"

#include "providers/common/UpstreamOutcome.h"
#include "providers/common/ProviderText.h"
#include "providers/common/RetryAfter.h"

#include <QJsonDocument>

namespace sb {

bool DashScopeErrorMap::isError(const QJsonObject &body)
{
    const QJsonValue code = body.value(QLatin1String("code"));
    return (code.isString() && !code.toString().isEmpty()) || (code.isDouble() && code.toInt() != 200);
}

OutcomeKind DashScopeErrorMap::kindForCode(const QString &code, int httpStatus)
{
    // Throttling, Throttling.RateQuota (RPM/TPM), Throttling.AllocationQuota (token quota),
    // Throttling.BurstRate: another key or a pause helps.
    if (code.startsWith(QLatin1String("Throttling")))
        return OutcomeKind::RetryableRateLimit;
    // The key is wrong, lacks the model, or its account is in arrears: rotate the key.
    if (code == QLatin1String("InvalidApiKey") || code.startsWith(QLatin1String("AccessDenied"))
        || code == QLatin1String("Arrearage") || code == QLatin1String("Unauthorized")
        || code == QLatin1String("Forbidden"))
        return OutcomeKind::AuthError;
    // The request (or its content, DataInspectionFailed) is the problem: no channel will accept it.
    if (code.startsWith(QLatin1String("InvalidParameter")) || code.startsWith(QLatin1String("DataInspection"))
        || code == QLatin1String("InvalidURL") || code == QLatin1String("ModelNotFound")
        || code == QLatin1String("NotFound") || code.startsWith(QLatin1String("BadRequest"))
        || code.startsWith(QLatin1String("InvalidFile")) || code == QLatin1String("InvalidSchema")
        || code == QLatin1String("UnsupportedOperation"))
        return OutcomeKind::NonRetryableParamError;
    if (code.startsWith(QLatin1String("InternalError")) || code == QLatin1String("SystemError")
        || code.startsWith(QLatin1String("ServiceUnavailable")) || code == QLatin1String("ModelServiceFailed")
        || code == QLatin1String("ModelUnavailable") || code == QLatin1String("RequestTimeOut"))
        return OutcomeKind::ProviderDown;
    return outcomeKindForHttpStatus(httpStatus >= 400 ? httpStatus : 0);
}

Outcome DashScopeErrorMap::fromErrorBody(const QJsonObject &body, int httpStatus)
{
    const QJsonValue codeValue = body.value(QLatin1String("code"));
    const QString code = codeValue.isDouble() ? QString::number(codeValue.toInt()) : codeValue.toString();
    Outcome o;
    o.kind = kindForCode(code, httpStatus);
    o.httpStatus = httpStatus;
    o.providerCode = code;
    o.message = cleanProviderMessage(body.value(QLatin1String("message")).toString());
    return o;
}

Outcome DashScopeErrorMap::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body)
{
    QJsonParseError parseError{};
    const QJsonObject root = QJsonDocument::fromJson(body, &parseError).object();
    if (isError(root)) {
        Outcome o = fromErrorBody(root, httpStatus);
        o.retryAfter = retryAfterFromHeaders(headers);
        return o;
    }
    if (httpStatus >= 200 && httpStatus < 300) {
        if (parseError.error != QJsonParseError::NoError || !root.value(QLatin1String("output")).isObject()) {
            Outcome o;
            o.kind = OutcomeKind::ProviderDown;
            o.httpStatus = httpStatus;
            o.message = QStringLiteral("DashScope answered %1 with a body that has no output").arg(httpStatus);
            return o;
        }
        return Outcome::success(httpStatus);
    }
    return httpStatusOutcome(httpStatus, headers, QStringLiteral("DashScope answered HTTP %1 without an error code").arg(httpStatus));
}

Outcome DashScopeErrorMap::classifyListing(int httpStatus, const HttpHeaders &headers, const QByteArray &body)
{
    const QJsonObject root = QJsonDocument::fromJson(body).object();
    if (httpStatus >= 200 && httpStatus < 300 && !isError(root))
        return Outcome::success(httpStatus);
    return classify(httpStatus, headers, body);
}

} // namespace sb
