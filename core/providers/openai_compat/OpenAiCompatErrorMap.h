#pragma once

#include "common/HttpHeaders.h"
#include "model/Outcome.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>

#include <optional>

namespace sb {

class JsonObjectScan;

// Error normalisation for OpenAI and the servers that copy its API (DeepSeek, Doubao/Volcengine
// Ark, Qwen compatible mode, vLLM, Ollama, llama.cpp). They share the {"error":{message,type,code}}
// envelope but not the codes, so the map reads the status first and the code/type words second:
//
//   401/403                     → AUTH_ERROR
//   402 (DeepSeek "Insufficient Balance"), 429 insufficient_quota, Arrearage, AccountOverdueError
//                               → AUTH_ERROR: an empty wallet is not transient, so the key is set
//                                 aside (and other keys/providers tried) instead of cooling and
//                                 retrying the same key every few seconds.
//   429                         → RETRYABLE_RATE_LIMIT (ServerOverloaded → PROVIDER_DOWN)
//   408, 5xx                    → PROVIDER_DOWN
//   other 4xx                   → NON_RETRYABLE_PARAM_ERROR, unless the code says rate limit,
//                                 auth, quota or a closed endpoint
//   2xx with an error object    → its type, code and message weighed together by judgeInBodyError
//                                 (unclear → PROVIDER_DOWN); never SUCCESS
//   2xx that is not JSON/SSE    → PROVIDER_DOWN
class OpenAiCompatErrorMap {
public:
    // For a success whose body is a JSON object, *parsedObject (when given) receives that object, so
    // the caller converting the answer need not parse it again; it stays empty otherwise.
    static Outcome classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body,
                            QJsonObject *parsedObject = nullptr);

    // The error carried by a parsed body or stream event, if it carries one: {"error":{…}},
    // {"error":"text"} (Ollama) or {"object":"error",…} (vLLM).
    static std::optional<Outcome> errorInObject(const QJsonObject &object, int httpStatus, const HttpHeaders &headers);

    // True when the answer is a success that classify() would call one without parsing anything:
    // a 2xx, not an event stream, one JSON object `scan` accepts, and no member that could carry
    // an error ("error" of any value, "object" other than a plain word that is not "error").
    // False says nothing about the answer; classify() decides.
    static bool isCleanAnswer(int httpStatus, const HttpHeaders &headers, const QByteArray &body, JsonObjectScan *scan);
    // What the provider's code/type words say, when they say anything we recognise.
    static std::optional<OutcomeKind> kindFromCode(const QString &code);
};

} // namespace sb
