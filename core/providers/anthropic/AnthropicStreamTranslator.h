#pragma once

#include "providers/ProviderAdapter.h"

#include <QHash>
#include <QJsonObject>
#include <QString>

namespace sb {

// Anthropic Messages SSE → OpenAI chat.completion.chunk, one event at a time:
//   message_start        → a chunk with delta {"role":"assistant","content":""} (a preamble:
//                          StreamStep::preamble); input token count
//   content_block_start  → for tool_use, a tool_calls delta with id and name (index numbered per tool)
//   content_block_delta  → text_delta → content; input_json_delta → tool_calls[].function.arguments;
//                          thinking_delta → reasoning_content
//   message_delta        → a chunk with finish_reason (end_turn→stop, max_tokens→length,
//                          tool_use→tool_calls); output token count
//   message_stop         → finished; plus a usage chunk when the client asked for include_usage.
//                          With neither content nor a stop reason before it, PROVIDER_DOWN: an
//                          empty answer is not an answer
//   ping, content_block_stop, unknown types → nothing (Anthropic may add event types)
//   error                → StreamStep::error (overloaded_error → PROVIDER_DOWN, …)
// Usage comes from message_start (input and cache counts) and the final events (message_delta's
// cumulative counts); the usage chunk carries the cache counts in prompt_tokens_details.
class AnthropicStreamTranslator final : public StreamTranslator {
public:
    AnthropicStreamTranslator(QString clientModel, bool clientWantsUsage);

    StreamStep onEvent(const SseEvent &event) override;
    StreamStep onEnd() override;

private:
    QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason = QJsonValue(QJsonValue::Null)) const;
    QByteArray usageChunk() const;
    // Folds an event's Anthropic usage (message_start's or message_delta's) into m_usage.
    void mergeUsage(const QJsonObject &usage, bool atStart);
    StreamStep fail(OutcomeKind kind, const QString &code, const QString &message);

    QString m_clientModel;
    bool m_clientWantsUsage;
    QString m_id;
    QString m_model;
    TokenUsage m_usage;
    int m_inputTokens = -1; // Anthropic's input_tokens: the prompt without its cached parts
    QHash<int, int> m_toolIndexByBlock; // Anthropic content-block index → OpenAI tool_calls index
    int m_nextToolIndex = 0;
    bool m_stopped = false;
    bool m_failed = false;
    bool m_sawContent = false;    // a text, thinking or tool block carried something
    bool m_sawStopReason = false; // message_delta named why the answer ended
};

} // namespace sb
