#pragma once

#include "providers/ProviderAdapter.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace sb {

// The OpenAI objects built by the dialects whose wire format is not OpenAI's (gemini, dashscope,
// ernie), kept in one place so every dialect hands clients the same shape.

// {"prompt_tokens", "completion_tokens", "total_tokens"}, each count as the upstream reported it
// (an unknown one as 0), and prompt_tokens_details when the provider reported cache counts;
// unlike usageToOpenAi, no total is derived here — usageFrom already did.
QJsonObject openAiUsageCounts(const TokenUsage &usage);

// A chat.completion.chunk with one choice (index 0). The first chunk of a stream also carries
// the assistant role, as OpenAI sends it; finishReason is null until the finishing chunk.
QByteArray openAiChunk(const QString &id, qint64 created, const QString &model, const QJsonObject &delta,
                       const QJsonValue &finishReason, bool firstChunk);

// The extra chunk with empty choices and the usage, sent only when the client asked for
// stream_options.include_usage.
QByteArray openAiUsageChunk(const QString &id, qint64 created, const QString &model, const TokenUsage &usage);

// A chat.completion with one choice; the usage only when known.
QJsonObject openAiCompletion(const QString &id, qint64 created, const QString &model, const QJsonObject &message,
                             const QJsonValue &finishReason, const TokenUsage &usage);

// Whether an OpenAI request asked for the usage chunk (stream_options.include_usage).
bool includeUsageRequested(const QJsonObject &openAiBody);

} // namespace sb
