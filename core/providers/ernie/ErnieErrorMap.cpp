#include "providers/ernie/ErnieErrorMap.h"

#include "providers/common/UpstreamOutcome.h"
#include "providers/common/ProviderText.h"
#include "providers/common/RetryAfter.h"

#include <QJsonDocument>

namespace sb {

bool ErnieErrorMap::isError(const QJsonObject &body)
{
    return body.value(QLatin1String("error_code")).toInt(0) != 0;
}

OutcomeKind ErnieErrorMap::kindForCode(int errorCode)
{
    switch (errorCode) {
    case 4:      // cluster-wide request limit reached
    case 17:     // daily request limit of the app
    case 18:     // QPS limit
    case 19:     // total request limit of the app
    case 336501: // RPM limit
    case 336502: // TPM limit
        return OutcomeKind::RetryableRateLimit;
    case 6:   // no permission to access data
    case 13:  // could not get a service token
    case 14:  // IAM certification failed
    case 15:  // app does not exist or could not be created
    case 110: // access token invalid
    case 111: // access token expired
        return OutcomeKind::AuthError;
    case 3:   // unsupported API method
    case 100: // invalid parameter
        return OutcomeKind::NonRetryableParamError;
    case 1:      // unknown error
    case 2:      // service temporarily unavailable
    case 336000: // internal error
    case 336100: // internal error, try again
        return OutcomeKind::ProviderDown;
    default:
        break;
    }
    // 3360xx/3361xx are request faults (bad argument, JSON, length, function definitions, content);
    // 3365xx are further rate limits. Anything else unknown blames the provider: retryable, and
    // never a success.
    if (errorCode > 336000 && errorCode < 336200)
        return OutcomeKind::NonRetryableParamError;
    if (errorCode >= 336500 && errorCode < 336600)
        return OutcomeKind::RetryableRateLimit;
    return OutcomeKind::ProviderDown;
}

Outcome ErnieErrorMap::fromErrorBody(const QJsonObject &body, int httpStatus)
{
    const int code = body.value(QLatin1String("error_code")).toInt(0);
    Outcome o;
    o.kind = kindForCode(code);
    o.httpStatus = httpStatus;
    o.providerCode = QString::number(code);
    o.message = cleanProviderMessage(body.value(QLatin1String("error_msg")).toString());
    return o;
}

Outcome ErnieErrorMap::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body)
{
    QJsonParseError parseError{};
    const QJsonObject root = QJsonDocument::fromJson(body, &parseError).object();
    if (isError(root)) {
        Outcome o = fromErrorBody(root, httpStatus);
        o.retryAfter = retryAfterFromHeaders(headers);
        return o;
    }
    if (httpStatus >= 200 && httpStatus < 300) {
        // Chat answers carry "result", embeddings "data"; anything unreadable is the provider's fault.
        if (parseError.error != QJsonParseError::NoError
            || (!root.contains(QLatin1String("result")) && !root.contains(QLatin1String("data")))) {
            Outcome o;
            o.kind = OutcomeKind::ProviderDown;
            o.httpStatus = httpStatus;
            o.message = QStringLiteral("ERNIE answered %1 with a body that has no result").arg(httpStatus);
            return o;
        }
        return Outcome::success(httpStatus);
    }
    return httpStatusOutcome(httpStatus, headers, QStringLiteral("ERNIE answered HTTP %1 without an error code").arg(httpStatus));
}

} // namespace sb
