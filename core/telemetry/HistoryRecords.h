#pragma once

#include "model/Outcome.h"

#include <QString>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace sb {

// The rows the console shows after a restart, so what broke can be looked up later. The engine fills them and hands
// them to the HistoryWriter; the HistoryReader gives them back. Times are wall-clock milliseconds
// since the Unix epoch (Clock::wallMillis()), durations are milliseconds, -1 means "not measured".

// One upstream attempt inside a request: which channel, which key, and what it came to.
struct AttemptRecord {
    int channelId = 0;
    QString channelName;
    int keyId = 0;                        // 0 when no key was used (a local provider)
    OutcomeKind outcome = OutcomeKind::Success;
    OutcomePhase phase = OutcomePhase::BeforeFirstByte;
    int httpStatus = 0;
    qint64 startedMs = 0;                 // wall clock
    int latencyMs = -1;
    int ttftMs = -1;
    QString message;                      // already free of secrets

    bool operator==(const AttemptRecord &) const = default;
};

enum class RequestStatus : std::uint8_t {
    Ok,         // the client got a complete answer
    Error,      // the client got an error (all attempts failed, or a non-retryable error)
    MidStream,  // the stream broke after bytes went out
    Cancelled,  // the client went away
};

struct RequestRecord {
    qint64 id = 0;                        // assigned by the database; 0 before it is written
    QString requestId;                    // the id the proxy gave the request (x-request-id)
    qint64 timeMs = 0;                    // when it arrived
    QString logicalModel;                 // what the caller asked for
    int channelId = 0;                    // the channel that answered (last attempt); 0 when none
    QString channelName;
    RequestStatus status = RequestStatus::Ok;
    OutcomeKind outcome = OutcomeKind::Success; // of the last attempt
    int httpStatus = 0;                   // what the client got
    int ttftMs = -1;
    int latencyMs = -1;
    int inputTokens = 0;
    int outputTokens = 0;
    int cacheReadTokens = 0;              // parts of inputTokens (which counts the whole prompt) read from / written to
    int cacheWriteTokens = 0;             // the provider's prompt cache; 0 when it reported none
    double costUsd = 0.0;
    bool costKnown = true;                // false: tokens were used but there is no price, or no usage was reported; costUsd is then 0 and means "unknown"
    QString autoTier;                     // the task-based tier ("small", "large") when the caller asked for `auto`; empty otherwise
    QString clientApi = QStringLiteral("openai_chat"); // the API the client called: "openai_chat", "anthropic_messages"
    bool failover = false;                // answered by another channel than the first one tried
    bool cacheHit = false;
    bool streamed = false;
    QString error;                        // what the client was told, when status != Ok
    std::vector<AttemptRecord> attempts;
};

enum class EventKind : std::uint8_t {
    CircuitTransition, // fromState/toState: "closed", "open", "half_open"
    Ejection,          // a channel left the routing pool
    Readmission,       // … and came back
    Failover,
    KeyCooldown,
    KeyDisabled,
    BucketRefusal,     // a provider's token bucket refused a request
    ConfigChange,
    Budget,            // a route's spend reached its alert or hard stop (channel 0; toState "over_soft_limit", "hard_stop")
    Other,
};
inline constexpr int EventKindCount = 10;
// Stable names: they are what the database stores and the console filters on.
inline constexpr std::array<const char *, EventKindCount> EventKindNames = {
    "circuit_transition", "ejection", "readmission", "failover", "key_cooldown",
    "key_disabled", "bucket_refusal", "config_change", "budget", "other"};
inline const char *toString(EventKind kind) { return EventKindNames[static_cast<std::size_t>(kind)]; }

struct EventRecord {
    qint64 id = 0;       // assigned by the database
    qint64 timeMs = 0;
    EventKind kind = EventKind::Other;
    int channelId = 0;   // 0 when the event is not about one channel
    int providerId = 0;
    int keyId = 0;
    QString fromState;
    QString toState;
    QString message;     // a sentence for the console, never containing a key
};

// One channel's health at one second: what the history charts redraw after a restart.
struct HealthSample {
    qint64 timeMs = 0;
    int channelId = 0;
    double score = 100.0;        // 0–100
    double errorRate = 0.0;      // 0–1, the 5-minute window
    double fastErrorRate = 0.0;  // 0–1, the 30-second fast signal
    double p95Ms = -1.0;
    QString state;               // circuit/pool state, e.g. "closed", "open", "half_open", "ejected"
};

// Health samples older than 24 h are rolled up to one row per channel and minute.
struct HealthMinute {
    qint64 minuteMs = 0;         // start of the minute
    int channelId = 0;
    int samples = 0;
    double scoreAvg = 0.0;
    double scoreMin = 0.0;
    double errorRateAvg = 0.0;
    double fastErrorRateMax = 0.0;
    double p95MaxMs = -1.0;
    QString state;               // the last state seen in that minute
};

} // namespace sb
