#include "providers/dashscope/DashScopeErrorMap.h"

#include "providers/common/EndpointNotFound.h"
#include "providers/common/InBodyError.h"
#include "providers/common/UpstreamOutcome.h"
#include "providers/common/ProviderText.h"
#include "providers/common/RetryAfter.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sb {

bool DashScopeErrorMap::isError(const QJsonObject &body)
{
    const QJsonValue code = body.value(QLatin1String("code"));
    return (code.isString() && !code.toString().isEmpty()) || (code.isDouble() && code.toInt() != 200);
}

OutcomeKind DashScopeErrorMap::kindForCode(const QString &code, int httpStatus)
{
    return kindOfCode(code).value_or(outcomeKindForHttpStatus(httpStatus >= 400 ? httpStatus : 0));
}

std::optional<OutcomeKind> DashScopeErrorMap::kindOfCode(const QString &code)
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
    return std::nullopt;
}

Outcome DashScopeErrorMap::fromErrorBody(const QJsonObject &body, int httpStatus)
{
    const QJsonValue codeValue = body.value(QLatin1String("code"));
    const QString code = codeValue.isDouble() ? QString::number(codeValue.toInt()) : codeValue.toString();
    const QString message = body.value(QLatin1String("message")).toString();
    Outcome o;
    // Inside a 200 (a body or an event:error) the code and the message are weighed together.
    o.kind = httpStatus >= 400 ? kindForCode(code, httpStatus)
                               : judgeInBodyError(InBodyError{QString(), code, message, std::nullopt, kindOfCode(code)});
    o.httpStatus = httpStatus;
    o.providerCode = code;
    o.message = cleanProviderMessage(message);
    return o;
}

Outcome DashScopeErrorMap::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body)
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

std::optional<QString> DashScopeErrorMap::answerProblem(const QByteArray &body, bool embeddings)
{
    const QJsonObject output = QJsonDocument::fromJson(body).object().value(QLatin1String("output")).toObject();
    if (output.isEmpty())
        return QStringLiteral("a body without output");
    if (embeddings) {
        if (output.value(QLatin1String("embeddings")).toArray().isEmpty())
            return QStringLiteral("an embeddings output without embeddings");
        return std::nullopt;
    }
    const auto finished = [](const QJsonValue &reason) {
        // "null" (a string) is DashScope's "not yet"; any other word ends the answer.
        return reason.isString() && !reason.toString().isEmpty() && reason.toString() != QLatin1String("null");
    };
    const QJsonArray choices = output.value(QLatin1String("choices")).toArray();
    if (choices.isEmpty()) { // result_format "text"
        if (!output.value(QLatin1String("text")).toString().isEmpty() || finished(output.value(QLatin1String("finish_reason"))))
            return std::nullopt;
        return QStringLiteral("an output with neither choices nor text");
    }
    const QJsonObject choice = choices.first().toObject();
    const QJsonValue message = choice.value(QLatin1String("message"));
    if (!message.isObject())
        return QStringLiteral("a choice without a message");
    const QJsonObject m = message.toObject();
    if (m.value(QLatin1String("content")).toString().isEmpty() && m.value(QLatin1String("reasoning_content")).toString().isEmpty()
        && m.value(QLatin1String("tool_calls")).toArray().isEmpty() && !finished(choice.value(QLatin1String("finish_reason"))))
        return QStringLiteral("a choice with neither content nor a finish reason");
    return std::nullopt;
}

} // namespace sb
