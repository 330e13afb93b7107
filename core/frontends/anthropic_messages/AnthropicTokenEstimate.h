#pragma once

#include "frontends/anthropic_messages/AnthropicError.h"

#include <QByteArray>
#include <QJsonObject>

#include <optional>

namespace sb {

// POST /v1/messages/count_tokens answered without asking an upstream: {"input_tokens": N}.
// N is an estimate, not a tokenizer's count: about four bytes of text a token, as the rest of the
// proxy estimates (ChatRequest), plus a flat cost per image and per PDF page. Enough
// for a client deciding whether a prompt fits; it can be off by a factor for non-Latin scripts.
class AnthropicTokenEstimate {
public:
    static constexpr int BytesPerToken = 4;
    // Anthropic's vision guide: an image within the size limits costs at most about 1,600 tokens.
    static constexpr int ImageTokens = 1600;
    // Anthropic's PDF guide: a page costs about 1,500 to 3,000 tokens; the upper end, so a client
    // that trusts the estimate does not overflow its context.
    static constexpr int PdfPageTokens = 3000;

    // The request is checked as for /v1/messages, except that max_tokens is not required.
    static std::optional<int> count(const QByteArray &body, AnthropicError *error);
    // The estimate of what the translated OpenAI body would send.
    static int estimate(const QJsonObject &openAiBody);
    // {"input_tokens":N}
    static QByteArray toJson(int inputTokens);
    // Pages of a PDF, counted by its page objects; at least 1.
    static int pdfPages(const QByteArray &pdf);
};

} // namespace sb
