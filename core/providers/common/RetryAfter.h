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
std::optional<std::chrono::milliseconds> retryAfterFromHeaders(const HttpHeaders &headers);

// OpenAI's x-ratelimit-reset-requests / -tokens hints: Go-style durations such as "1s", "6m0s",
// "20ms", "1h2m3.5s". Used only when the matching x-ratelimit-remaining-* is 0 (that limit is the
// one that bit).
std::optional<std::chrono::milliseconds> rateLimitResetFromHeaders(const HttpHeaders &headers);
std::optional<std::chrono::milliseconds> parseGoDuration(QByteArrayView text);

} // namespace sb
