#pragma once

#include "frontends/anthropic_messages/AnthropicRequest.h"

#include <QByteArray>

#include <optional>

namespace sb {

// The usual Messages request — text turns, a system prompt, max_tokens and the sampling fields —
// checked on its bytes, with the same rules AnthropicRequest::parse applies, so that a request
// going to an Anthropic channel (which gets the client's bytes) is never parsed into values: that
// parse was a tenth of what such a request cost. It says yes, with what the proxy reads of the
// request (model, stream, max_tokens, stop sequences), or "not sure": tools, images, thinking,
// escapes where a value is read, anything unusual, all of which go to the full parse.
std::optional<AnthropicRequest> quickCheckAnthropicRequest(const QByteArray &body);

} // namespace sb
