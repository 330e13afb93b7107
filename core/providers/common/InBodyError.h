#pragma once

#include "model/Outcome.h"

#include <QString>

#include <optional>

namespace sb {

// An error a provider reported without an HTTP error status to go by: inside a 2xx body, or as the
// first or a later event of a 200 stream. Only its own fields say whose fault it is, and they
// disagree more often than one would hope: an in-stream error of type "server_overloaded" whose code
// reads "invalid_request_error" is the provider's trouble, not the caller's bad request. Each dialect
// maps its fields into this and judgeInBodyError() weighs them together, in one place
// (ARCHITECTURE.md, "Errors and outcomes").
struct InBodyError {
    QString type;    // the word that names the kind: OpenAI's and Anthropic's error.type, Gemini's status
    QString code;    // the provider's code: OpenAI's error.code, DashScope's code, ERNIE's error_code, Gemini's code
    QString message; // free text, read only for what makes an error retryable
    // What the dialect's own tables make of its type and its code, when they know them (Anthropic's
    // api_error, DashScope's Throttling.*, ERNIE's 336xxx, Gemini's gRPC statuses): evidence beside
    // the words, never a verdict on its own.
    std::optional<OutcomeKind> typeKind;
    std::optional<OutcomeKind> codeKind;
};

// The verdict, first match wins:
//   1. the type or code says the account is out of money (billing, balance, insufficient_quota,
//      arrearage)                                                          → AUTH_ERROR (the key is set aside)
//   2. any field says rate limit (rate, quota, throttl…, too many requests, qps/rpm/tpm, exhausted)
//                                                                          → RETRYABLE_RATE_LIMIT
//   3. any field points at the provider (overloaded, busy, server, timeout, unavailable, internal,
//      capacity, upstream, gateway, deadline)                              → PROVIDER_DOWN
//   4. any field says the key or account is refused (auth…, permission, forbidden, api key, access
//      token, access denied)                                               → AUTH_ERROR
//   5. the type or code says the request is wrong (invalid…, parameter, argument, context_length,
//      not found, unsupported, content filter, too large) and nothing above matched
//                                                                          → NON_RETRYABLE_PARAM_ERROR
//   6. nothing recognised                                                  → PROVIDER_DOWN
// Only an identifier (type, code or the dialect's reading of them) can make an error the caller's:
// a message is free text, and a wrong "it was you" returns the caller a 400 that another channel
// would have answered, where a wrong "it was the provider" costs one more attempt.
OutcomeKind judgeInBodyError(const InBodyError &error);

} // namespace sb
