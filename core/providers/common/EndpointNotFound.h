#pragma once

#include "common/HttpHeaders.h"
#include "model/Outcome.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace sb {

// A 404 for the endpoint itself, told apart from a 404 for the model the request named. Every
// dialect reports an unknown model in its own JSON error, and every one of those names the model
// (OpenAI's `model_not_found`, Anthropic's not_found_error "model: …", Gemini's NOT_FOUND
// "models/x is not found", DashScope's ModelNotFound, Ollama's "model 'x' not found"); a wrong
// base URL or path gets the web server's own page instead: HTML, plain text, or JSON that says
// nothing of a model ({"detail": "Not Found"}). So a 404 whose body is not JSON, or is JSON
// without the word "model" anywhere, is the endpoint's: PROVIDER_DOWN with code
// `endpoint_not_found` (another channel may answer) and Misconfiguration::EndpointNotFound, so
// the channel is set aside until its configuration is fixed (ARCHITECTURE.md, "Errors and outcomes").
// Each dialect's ErrorMap asks this first; nullopt for anything else.
std::optional<Outcome> endpointNotFoundOutcome(int httpStatus, const HttpHeaders &headers, const QByteArray &body);

// A short excerpt of what an upstream said, for an operator's sentence: an HTML page's title (or
// its text), a JSON error's message, else the text; whitespace folded, at most `maxChars`, and
// anything that looks like a credential masked.
QString upstreamExcerpt(const QByteArray &body, int maxChars = 120);

} // namespace sb
