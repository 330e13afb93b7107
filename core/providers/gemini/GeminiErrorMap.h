#pragma once

#include "common/HttpHeaders.h"
#include "model/Outcome.h"

#include <QByteArray>
#include <QJsonObject>

#include <chrono>
#include <optional>

namespace sb {

// Google's Generative Language API reports errors as {"error":{"code","status","message","details"}},
// sometimes wrapped in a JSON array (streamGenerateContent without alt=sse). The gRPC status string
// decides the outcome; the HTTP status is only the fallback because a bad API key arrives as
// 400 INVALID_ARGUMENT and must not be blamed on the caller.
class GeminiErrorMap {
public:
    static Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body);
    // The inner {"code","status","message","details"} object of an error, from a body or an SSE event.
    static Outcome fromError(const QJsonObject &error, int httpStatus,
                             std::optional<std::chrono::milliseconds> retryAfter = std::nullopt);
    // "30s", "1.5s" (google.protobuf.Duration in JSON) → milliseconds.
    static std::optional<std::chrono::milliseconds> parseDuration(const QString &text);
};

} // namespace sb
