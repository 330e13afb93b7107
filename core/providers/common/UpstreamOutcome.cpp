#include "providers/common/UpstreamOutcome.h"

#include "providers/common/RetryAfter.h"

namespace sb {

OutcomeKind outcomeKindForHttpStatus(int status)
{
    if (status == 429)
        return OutcomeKind::RetryableRateLimit;
    if (status == 401 || status == 403)
        return OutcomeKind::AuthError;
    if (status == 408 || status >= 500)
        return OutcomeKind::ProviderDown;
    if (status >= 400)
        return OutcomeKind::NonRetryableParamError;
    return OutcomeKind::ProviderDown;
}

Outcome httpStatusOutcome(int status, const HttpHeaders &headers, const QString &message)
{
    Outcome o;
    o.kind = outcomeKindForHttpStatus(status);
    o.httpStatus = status;
    o.providerCode = QString::number(status);
    o.message = message;
    o.retryAfter = retryAfterFromHeaders(headers, &o.retryAfterFrom);
    return o;
}

Outcome brokenStreamOutcome(const QString &message)
{
    Outcome o;
    o.kind = OutcomeKind::ProviderDown;
    o.httpStatus = 200;
    o.message = message;
    return o;
}

Outcome malformedAnswerOutcome(int httpStatus, const QString &problem)
{
    Outcome o;
    o.kind = OutcomeKind::ProviderDown;
    o.httpStatus = httpStatus;
    o.providerCode = QStringLiteral("malformed_answer");
    o.message = QStringLiteral("The provider answered HTTP %1 with %2, which is not an answer.").arg(httpStatus).arg(problem);
    return o;
}

} // namespace sb
