#pragma once

#include "common/HttpHeaders.h"
#include "model/Outcome.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <chrono>
#include <optional>

namespace sb {

// Error normalisation for the Anthropic Messages API. Errors arrive as
// {"type":"error","error":{"type":"…","message":"…"}} with an HTTP status, or as an SSE
// "event: error" inside a 200 stream (overloaded_error mid-stream is common under load):
//
//   overloaded_error (also HTTP 529), api_error, 5xx, 408   → PROVIDER_DOWN
//   rate_limit_error, 429 (retry-after honoured)            → RETRYABLE_RATE_LIMIT
//   authentication_error 401, permission_error 403,
//   billing_error 402                                       → AUTH_ERROR (the key/account, not the channel)
//   invalid_request_error 400, not_found_error 404,
//   request_too_large 413                                   → NON_RETRYABLE_PARAM_ERROR
//   200 with type "error", or whose first SSE event is an error → that error, its type and message
//                                                              weighed by judgeInBodyError
//   200 that is neither JSON nor SSE                         → PROVIDER_DOWN
//   200 to a request for a message that is not one (messageProblem) → PROVIDER_DOWN
class AnthropicErrorMap {
public:
    static Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body);
    // The error an object carries ({"type":"error","error":{…}}), if any.
    static std::optional<Outcome> errorInObject(const QJsonObject &object, int httpStatus, const HttpHeaders &headers);
    static std::optional<OutcomeKind> kindFromType(const QString &errorType);
    // What keeps a 2xx without an error from being a whole message: an event stream, not JSON, a
    // type other than "message", no content list, or an empty one without a stop reason (an empty
    // content list that ended for a reason is a legitimate answer). std::nullopt when it is one.
    static std::optional<QString> messageProblem(const HttpHeaders &headers, const QByteArray &body);
    // A 429's wait from the anthropic-ratelimit-*-reset headers (RFC 3339 instants against the Date
    // header) of the limits that are at 0, when no retry-after came; `from` names the header.
    static std::optional<std::chrono::milliseconds> rateLimitReset(const HttpHeaders &headers, const char **from = nullptr);
};

} // namespace sb
