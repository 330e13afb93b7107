#include "providers/ernie/ErnieErrorMap.h"

#include "providers/common/EndpointNotFound.h"
#include "providers/common/InBodyError.h"
#include "providers/common/UpstreamOutcome.h"
#include "providers/common/ProviderText.h"
#include "providers/common/RetryAfter.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sb {

bool ErnieErrorMap::isError(const QJsonObject &body)
{
    return body.value(QLatin1String("error_code")).toInt(0) != 0;
}

OutcomeKind ErnieErrorMap::kindForCode(int errorCode)
{
    // Anything unknown blames the provider: retryable, and never a success.
    return kindOfCode(errorCode).value_or(OutcomeKind::ProviderDown);
}

std::optional<OutcomeKind> ErnieErrorMap::kindOfCode(int errorCode)
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
    // 3365xx are further rate limits.
    if (errorCode > 336000 && errorCode < 336200)
        return OutcomeKind::NonRetryableParamError;
    if (errorCode >= 336500 && errorCode < 336600)
        return OutcomeKind::RetryableRateLimit;
    return std::nullopt;
}

Outcome ErnieErrorMap::fromErrorBody(const QJsonObject &body, int httpStatus)
{
    const int code = body.value(QLatin1String("error_code")).toInt(0);
    const QString message = body.value(QLatin1String("error_msg")).toString();
    Outcome o;
    // Qianfan's errors come inside a 200, its code and message weighed together; one behind an
    // error status is read by its code alone.
    o.kind = httpStatus >= 400 ? kindForCode(code)
                               : judgeInBodyError(InBodyError{QString(), QString::number(code), message, std::nullopt, kindOfCode(code)});
    o.httpStatus = httpStatus;
    o.providerCode = QString::number(code);
    o.message = cleanProviderMessage(message);
    return o;
}

Outcome ErnieErrorMap::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body)
{
    if (auto notFound = endpointNotFoundOutcome(httpStatus, headers, body)) // a wrong base URL or path, not a model
        return *notFound;
    QJsonParseError parseError{};
    const QJsonObject root = QJsonDocument::fromJson(body, &parseError).object();
    if (isError(root)) {
        Outcome o = fromErrorBody(root, httpStatus);
        o.retryAfter = retryAfterFromHeaders(headers, &o.retryAfterFrom);
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

std::optional<QString> ErnieErrorMap::answerProblem(const QByteArray &body, bool embeddings)
{
    const QJsonObject root = QJsonDocument::fromJson(body).object();
    if (embeddings) {
        if (root.value(QLatin1String("data")).toArray().isEmpty())
            return QStringLiteral("an embeddings answer without data");
        return std::nullopt;
    }
    const QJsonValue result = root.value(QLatin1String("result"));
    if (!result.isString())
        return QStringLiteral("a chat answer without a result");
    // An empty result is an answer when it called a function, was refused, or says why it ended.
    if (result.toString().isEmpty() && !root.value(QLatin1String("function_call")).isObject()
        && !root.value(QLatin1String("need_clear_history")).toBool() && root.value(QLatin1String("finish_reason")).toString().isEmpty())
        return QStringLiteral("a chat answer with neither a result nor a finish reason");
    return std::nullopt;
}

} // namespace sb
