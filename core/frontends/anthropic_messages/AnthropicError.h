#pragma once

#include <QByteArray>
#include <QString>

namespace sb {

// An error in the shape Anthropic's Messages API gives its clients,
// {"type":"error","error":{"type":…,"message":…}}, so that the Anthropic SDKs (and Claude Code)
// raise their typed exceptions and retry exactly where they would against Anthropic itself.
// The types are Anthropic's documented ones: invalid_request_error 400, authentication_error 401,
// billing_error 402, permission_error 403, not_found_error 404, request_too_large 413,
// rate_limit_error 429, api_error 500, timeout_error 504, overloaded_error 529.
struct AnthropicError {
    int status = 400;
    QString type = QStringLiteral("invalid_request_error");
    QString message; // a sentence that says what to do

    // Exactly {"type":"error","error":{"type":…,"message":…}}, in that member order.
    QByteArray toJson() const;
    // The same as a stream's error event: "event: error\ndata: {…}\n\n".
    QByteArray toEvent() const;

    static AnthropicError invalidRequest(const QString &message);

    // The engine's OpenAI-shaped errors (ARCHITECTURE.md, "Errors and outcomes") in Anthropic's
    // words. `status` may be 0 for an error that has none of its own (a stream's error payload); the
    // type and code then decide. Every channel failed or none was available (502/503) is 529
    // overloaded_error, which the SDKs retry with backoff; a timeout is 504 timeout_error.
    static AnthropicError fromOpenAi(int status, const QString &openAiType, const QString &openAiCode,
                                     const QString &message);
};

} // namespace sb
