#pragma once

#include "common/HttpHeaders.h"
#include "model/Outcome.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <chrono>
#include <optional>

namespace sb {

// Google's Generative Language API reports errors as {"error":{"code","status","message","details"}},
// sometimes wrapped in a JSON array (streamGenerateContent without alt=sse). The gRPC status string
// decides the outcome; the HTTP status is only the fallback because a bad API key arrives as
// 400 INVALID_ARGUMENT and must not be blamed on the caller. An error inside a 200 (a body, an SSE
// event) has no HTTP status to fall back on: its status, code and message go to judgeInBodyError.
class GeminiErrorMap {
public:
    static Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body);
    // The inner {"code","status","message","details"} object of an error, from a body or an SSE event.
    static Outcome fromError(const QJsonObject &error, int httpStatus,
                             std::optional<std::chrono::milliseconds> retryAfter = std::nullopt, const char *retryAfterFrom = nullptr);
    // What keeps a 2xx without an error from being a generateContent answer (no candidates and no
    // blocked prompt, a candidate with neither parts nor a finish reason) or, when `embeddings`, a
    // batchEmbedContents one (no embeddings); std::nullopt when it is one.
    static std::optional<QString> answerProblem(const QByteArray &body, bool embeddings);
    // "30s", "1.5s" (google.protobuf.Duration in JSON, the RetryInfo detail's retryDelay) → milliseconds, at most 1 h.
    static std::optional<std::chrono::milliseconds> parseDuration(const QString &text);
};

} // namespace sb
