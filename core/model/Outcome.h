#pragma once

#include <QString>

#include <chrono>
#include <cstdint>
#include <optional>

namespace sb {

// What one upstream attempt came to. Every dialect's ErrorMap reduces status + headers + body (or
// the first SSE events) to one of these, so the engine reasons about four provider states
// (ARCHITECTURE.md, "Errors and outcomes") plus key-level and local-origin failures, never about wire details.
enum class OutcomeKind : std::uint8_t {
    Success,
    RetryableRateLimit,     // 429, or a rate limit buried in a 200 body: cool the key, try elsewhere
    NonRetryableParamError, // the request itself is wrong: retrying anywhere cannot help
    ProviderDown,           // 5xx, overloaded, error event: the channel is unhealthy
    AuthError,              // the key is bad: disable the key, not the channel
    Timeout,                // local: the attempt's budget ran out
    ConnectFailed,          // local: refused, reset, DNS, TLS
};
inline constexpr int OutcomeKindCount = 7;

// What an outcome proves about the channel's own configuration, beside its kind: an endpoint that
// does not exist (a wrong base URL or path), a host name that does not resolve, a TLS handshake that
// fails, every key of the provider refused. Such a channel cannot answer until someone fixes it, so it
// is marked misconfigured and skipped (ARCHITECTURE.md, "Errors and outcomes").
enum class Misconfiguration : std::uint8_t { None, EndpointNotFound, NameNotResolved, TlsFailed, KeysRefused };

// Who produced the outcome: the provider answered, or we gave up locally.
enum class OutcomeOrigin : std::uint8_t { Upstream, Local };

// Whether any byte had reached the client when it happened; only BeforeFirstByte can fail over.
enum class OutcomePhase : std::uint8_t { BeforeFirstByte, MidStream };

struct Outcome {
    OutcomeKind kind = OutcomeKind::Success;
    OutcomeOrigin origin = OutcomeOrigin::Upstream;
    OutcomePhase phase = OutcomePhase::BeforeFirstByte;
    int httpStatus = 0;                                // as received; 0 when there was no response
    std::optional<std::chrono::milliseconds> retryAfter; // the provider's own hint (a header or the body), if any
    QString providerCode;                              // e.g. "Throttling", "RESOURCE_EXHAUSTED", "18"
    QString message;                                   // human-readable, never containing a key
    const char *retryAfterFrom = nullptr;              // where retryAfter came from ("Retry-After", "retryDelay", …), for the log
    Misconfiguration misconfiguration = Misconfiguration::None;
    // "POST https://host/v1/chat/completions", query left off (it may carry a key): the request a
    // misconfiguration answered, filled in by the proxy so the console can say what to fix.
    QString endpoint{};

    static Outcome success(int status = 200)
    {
        Outcome o;
        o.httpStatus = status;
        return o;
    }
    static Outcome local(OutcomeKind kind, QString message)
    {
        Outcome o;
        o.kind = kind;
        o.origin = OutcomeOrigin::Local;
        o.message = std::move(message);
        return o;
    }

    bool isSuccess() const { return kind == OutcomeKind::Success; }
    // Worth another attempt on some channel (possibly after a key rotation).
    bool isRetryable() const;
    // Evidence that the channel itself is unhealthy (feeds health score and circuit breaker).
    bool isChannelFailure() const;
};

const char *toString(OutcomeKind kind);     // "SUCCESS", "RETRYABLE_RATE_LIMIT", …
std::optional<OutcomeKind> outcomeKindFromString(QStringView text);
const char *toString(OutcomeOrigin origin); // "upstream" / "local"
const char *toString(OutcomePhase phase);   // "before_first_byte" / "mid_stream"
const char *toString(Misconfiguration cause); // "none", "endpoint_not_found", "name_not_resolved", "tls_failed", "keys_refused"

} // namespace sb
