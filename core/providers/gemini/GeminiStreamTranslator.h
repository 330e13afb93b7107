#pragma once

#include "providers/ProviderAdapter.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QString>

namespace sb {

// streamGenerateContent?alt=sse → OpenAI chat.completion.chunk payloads. Every Gemini event is a
// whole GenerateContentResponse, so each one becomes its chunks at once; the stream is complete only
// when a candidate carries a finishReason (or the prompt itself was blocked).
class GeminiStreamTranslator final : public StreamTranslator {
public:
    GeminiStreamTranslator(QString model, bool includeUsage);

    StreamStep onEvent(const SseEvent &event) override;
    StreamStep onEnd() override;

    // Shared with GeminiAdapter::chatResponse so both paths agree.
    // STOP→"stop" ("tool_calls" when the answer called functions), MAX_TOKENS→"length",
    // SAFETY and the other blocking reasons→"content_filter".
    static QString openAiFinishReason(const QString &geminiReason, bool calledTools);
    // Text and functionCall parts → the text and OpenAI tool_calls; `nextToolIndex` numbers calls
    // across a whole stream. Thought parts (reasoning summaries) are not part of the answer.
    static void translateParts(const QJsonArray &parts, QString *text, QJsonArray *toolCalls, int *nextToolIndex);
    static TokenUsage usageFrom(const QJsonObject &usageMetadata);

private:
    QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason);
    QByteArray usageChunk(const TokenUsage &usage) const;

    QString m_model;
    bool m_includeUsage = false;
    QString m_id = QStringLiteral("chatcmpl-gemini");
    bool m_sentRole = false;
    bool m_finished = false;
    int m_nextToolIndex = 0;
    std::optional<TokenUsage> m_usage;
};

} // namespace sb
