#include "proxy/ClientErrors.h"

#include "routing/Router.h"

#include <algorithm>
#include <cmath>

namespace sb {

namespace clienterrors {

ApiError refusal(const RouteRefusal &refusal)
{
    ApiError error;
    error.status = refusal.httpStatus;
    error.message = refusal.message;
    switch (error.status) {
    case 404:
        error.type = QStringLiteral("invalid_request_error");
        error.code = QStringLiteral("model_not_found");
        error.param = QStringLiteral("model");
        break;
    case 429:
        error.type = QStringLiteral("rate_limit_error");
        error.code = QStringLiteral("rate_limited");
        break;
    default:
        error.type = QStringLiteral("service_unavailable");
        error.code = QStringLiteral("no_channel_available");
        break;
    }
    return error;
}

ApiError noChannel(const QString &why)
{
    ApiError error;
    error.status = 503;
    error.type = QStringLiteral("service_unavailable");
    error.code = QStringLiteral("no_channel_available");
    error.message = why.isEmpty() ? QStringLiteral("No channel could take the request.") : why;
    return error;
}

bool namesUntriedChannels(const Outcome &last)
{
    return last.kind != OutcomeKind::NonRetryableParamError && last.kind != OutcomeKind::AuthError;
}

ApiError afterFailure(const Outcome &o, const FailureSummary &summary, std::optional<Clock::Duration> *retryAfter)
{
    ApiError error;
    const QString detail = o.message.isEmpty() ? QLatin1String(toString(o.kind)) : o.message;
    const QString attempts = QStringLiteral("%1 attempt%2").arg(summary.attempts).arg(summary.attempts == 1 ? "" : "s");
    switch (o.kind) {
    case OutcomeKind::NonRetryableParamError:
        error.status = (o.httpStatus >= 400 && o.httpStatus < 500 && o.httpStatus != 429) ? o.httpStatus : 400;
        error.type = QStringLiteral("invalid_request_error");
        error.code = o.providerCode.isEmpty() ? QStringLiteral("invalid_request") : o.providerCode;
        error.message = QStringLiteral("The provider rejected the request: %1").arg(detail);
        break;
    case OutcomeKind::RetryableRateLimit:
        error.status = 429;
        error.type = QStringLiteral("rate_limit_error");
        error.code = QStringLiteral("rate_limited");
        error.message = QStringLiteral("Every channel for \"%1\" is rate limited (%2: %3). Retry after the indicated time.")
                            .arg(summary.model, attempts, detail);
        *retryAfter = o.retryAfter ? Clock::Duration(*o.retryAfter) : Clock::Duration(std::chrono::seconds(1));
        break;
    case OutcomeKind::Timeout:
        error.status = 504;
        error.type = QStringLiteral("timeout");
        error.code = QStringLiteral("upstream_timeout");
        error.message = QStringLiteral("No channel for \"%1\" answered in time (%2; last: %3).").arg(summary.model, attempts, detail);
        break;
    case OutcomeKind::AuthError:
        error.status = 502;
        error.type = QStringLiteral("upstream_error");
        error.code = QStringLiteral("upstream_auth_error");
        error.message = QStringLiteral("The provider refused Switchboard's API key (%1). Fix the key in Providers.").arg(detail);
        break;
    default:
        error.status = 502;
        error.type = QStringLiteral("upstream_error");
        error.code = QStringLiteral("upstream_unavailable");
        error.message = QStringLiteral("Every channel for \"%1\" failed (%2; last: %3).").arg(summary.model, attempts, detail);
        break;
    }
    if (!summary.stoppedBecause.isEmpty() && o.kind != OutcomeKind::NonRetryableParamError)
        error.message += QStringLiteral(" Stopped retrying: %1.").arg(summary.stoppedBecause);
    // "Every channel failed" after four attempts on one channel is only true with the others'
    // open circuit or cooling keys named.
    if (namesUntriedChannels(o) && !summary.untried.isEmpty() && !error.message.contains(summary.untried.first()))
        error.message += QStringLiteral(" Not tried: %1.").arg(summary.untried.join(QStringLiteral("; ")));
    if (summary.deadlineReached && o.kind != OutcomeKind::NonRetryableParamError) {
        error.status = 504;
        error.type = QStringLiteral("timeout");
        error.code = QStringLiteral("deadline_exceeded");
    }
    return error;
}

ApiError midStream(const Outcome &outcome)
{
    ApiError error;
    error.status = 502;
    error.type = QStringLiteral("upstream_error");
    error.code = QLatin1String(toString(outcome.kind)).toString().toLower();
    error.message = QStringLiteral("The upstream stream broke after the answer had started (%1). The partial answer above is incomplete; retry the request.")
                        .arg(outcome.message.isEmpty() ? QLatin1String(toString(outcome.kind)) : outcome.message);
    return error;
}

QByteArray retryAfterSeconds(Clock::Duration wait)
{
    const double seconds = std::ceil(toSeconds(wait));
    return QByteArray::number(std::max(1, static_cast<int>(seconds)));
}

} // namespace clienterrors

} // namespace sb
