#pragma once

#include "common/HttpHeaders.h"
#include "model/Outcome.h"

#include <QString>

namespace sb {

// What the HTTP status alone says, for dialects whose bodies name no error we know: 429 → rate
// limit, 401/403 → the key, 408/5xx → the provider, other 4xx → the request. Anything else (an
// unknown error inside a 2xx, a non-2xx we cannot read) is the provider's fault, never a success.
OutcomeKind outcomeKindForHttpStatus(int status);

// A non-2xx answer without an error body the dialect can read: the status is the code, and the
// provider's Retry-After is honoured.
Outcome httpStatusOutcome(int status, const HttpHeaders &headers, const QString &message);

// A stream that broke its dialect's protocol (an event that is not JSON, an end without the end
// marker) inside an HTTP 200: the provider is down for this request, whatever the status said.
Outcome brokenStreamOutcome(const QString &message);

// A 2xx that is not an answer in the dialect's shape (no choices, no candidates, an event stream
// to a request for a whole answer, `{}`): PROVIDER_DOWN, the provider's failure like a 5xx, never
// an empty success. `problem` says what was wrong ("a chat answer without choices").
Outcome malformedAnswerOutcome(int httpStatus, const QString &problem);

} // namespace sb
