#pragma once

#include "common/json/ClientBody.h"
#include "frontends/anthropic_messages/AnthropicError.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace sb {

// An inbound Anthropic Messages request (POST /v1/messages), checked once at the door the way
// Anthropic documents it, so a bad one gets Anthropic's 400 naming the field (messages.1.content.0.
// tool_use_id: Field required …), and translated into the engine's OpenAI chat.completions body.
// What an OpenAI-style upstream cannot be given, and what the client gets instead, is the table in
// TRANSLATION.md beside this file.
struct AnthropicRequest {
    // count_tokens takes the same body without max_tokens.
    enum class Purpose { CreateMessage, CountTokens };

    QJsonObject openAiBody;
    QString model;
    bool stream = false;
    int maxTokens = 0;              // 0 for CountTokens
    QStringList stopSequences;      // all of them; the OpenAI body carries at most four
    int estimatedPromptTokens = 0;  // for the provider's tokens/min bucket: ~4 bytes a token
    QByteArray original;            // the client's bytes, for a pass-through to an Anthropic upstream
    QStringList dropped;            // what the translation left out, each named once, for the request log

    // The most stop sequences OpenAI's Chat Completions accepts; more would be a 400 there.
    static constexpr int MaxOpenAiStops = 4;

    static std::optional<AnthropicRequest> parse(const QByteArray &body, AnthropicError *error,
                                                 Purpose purpose = Purpose::CreateMessage);

    // What the proxy takes in: the request checked (on its bytes when it is the usual kind, see
    // AnthropicQuickCheck) and `body`, its OpenAI translation, made only when first asked for: a
    // request that an Anthropic channel answers never needs it. `request.openAiBody` stays empty.
    struct Prepared;
    static std::optional<Prepared> prepare(const QByteArray &body, AnthropicError *error);

    // About four bytes a token for English, as ChatRequest estimates; the bucket only needs an
    // order of magnitude.
    static int estimateTokens(qsizetype bytes);
};

struct AnthropicRequest::Prepared {
    AnthropicRequest request;
    ClientBody body;
};

} // namespace sb
