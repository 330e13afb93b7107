#pragma once

#include "model/TokenUsage.h"

#include <QByteArray>

#include <optional>

namespace sb {

// The usual Anthropic message — text blocks only, a plain stop reason — written straight into
// OpenAI's chat completion bytes, with the values AnthropicAdapter::chatResponse gives it, and
// its usage read into *usage. std::nullopt for anything else (tool calls, thinking, an error, an
// escaped key, …), which the parsing path reads. Without "created", which the caller writes. The
// text goes out as the provider's own string literal: the same value, its escapes as it wrote them.
std::optional<QByteArray> quickChatCompletion(const QByteArray &message, TokenUsage *usage);

} // namespace sb
