#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace sb {

// A buffered OpenAI chat.completion (what the engine answers with, whatever the upstream's dialect)
// as the Anthropic Messages API's "message" object: content blocks (a thinking block first when the
// upstream reasoned, then text, then one tool_use block per tool call), stop_reason and usage.
class AnthropicAnswer {
public:
    // `model` is the name the client asked for; `messageId` the "msg_…" id the caller chose;
    // `stopSequences` the request's, to tell a stop on one of them (stop_reason "stop_sequence").
    static QByteArray fromChatCompletion(const QJsonObject &completion, const QString &model, const QString &messageId,
                                         const QStringList &stopSequences = {});

    // Shared with AnthropicStreamWriter.
    // finish_reason → stop_reason: stop → end_turn, length → max_tokens, tool_calls and
    // function_call → tool_use, content_filter → refusal. Tool calls with a plain "stop" (some
    // OpenAI-compatible servers say so) are still a tool_use turn: the client must run the tools.
    static QString stopReason(const QString &finishReason, bool hasToolUse);
    // Which of the request's stop sequences ended the answer, or an empty string. OpenAI does not
    // say; vLLM ("stop_reason") and SGLang ("matched_stop") put it in the choice, and a server that
    // keeps the sequence in the text ends the text with it.
    static QString matchedStopSequence(const QJsonObject &choice, const QString &textEnd, const QStringList &stopSequences);
    // OpenAI usage → Anthropic usage. Cached prompt tokens (prompt_tokens_details.cached_tokens, or
    // DeepSeek's prompt_cache_hit_tokens) become cache_read_input_tokens and tokens written to the
    // cache (prompt_tokens_details.cache_write_tokens, what an Anthropic upstream's
    // cache_creation_input_tokens became in the engine) cache_creation_input_tokens; both leave
    // input_tokens, as Anthropic counts them. Without a write count it is 0: OpenAI caches for free.
    static QJsonObject usage(const QJsonObject &openAiUsage);
    // A tool call's arguments (a JSON string) as the "input" object Anthropic requires; {} when they
    // are empty or not a JSON object.
    static QJsonObject toolInput(const QString &arguments);
};

} // namespace sb
