#pragma once

#include "common/HttpHeaders.h"

#include <QByteArrayView>

#include <chrono>
#include <optional>

namespace sb {

// How long a provider asked us to wait, from its response headers, in order of precision:
// "retry-after-ms" (OpenAI, Anthropic), then "Retry-After" as delta-seconds or as an HTTP-date.
// An HTTP-date is measured against the same response's "Date" header rather than our clock: core
// reads no wall clock of its own, and the server's Date is the clock that wrote Retry-After (so
// skew between the two machines cancels out). Without a Date header an HTTP-date is ignored.
// Results are clamped to [0, 1 h] so a silly value cannot park a key for a day.
// `from`, when given, is set to the header that gave the wait.
std::optional<std::chrono::milliseconds> retryAfterFromHeaders(const HttpHeaders &headers, const char **from = nullptr);

// OpenAI's x-ratelimit-reset-requests / -tokens hints: Go-style durations such as "1s", "6m0s",
// "20ms", "1h2m3.5s". Used only when the matching x-ratelimit-remaining-* is 0 (that limit is the
// one that bit).
std::optional<std::chrono::milliseconds> rateLimitResetFromHeaders(const HttpHeaders &headers, const char **from = nullptr);
// Google's JSON form of a protobuf Duration ("14s", "0.5s", "3.000000001s") is the same grammar.
std::optional<std::chrono::milliseconds> parseGoDuration(QByteArrayView text);

// The wait until an RFC 3339 instant ("2026-12-02T05:30:14Z", "…T05:30:14.25+01:00"), as Anthropic's
// anthropic-ratelimit-*-reset headers give it, measured against the response's Date header for the
// reason an HTTP-date is (nullopt without one); a reset already past is 0.
std::optional<std::chrono::milliseconds> waitUntilInstant(QByteArrayView rfc3339, const HttpHeaders &headers);

} // namespace sb
