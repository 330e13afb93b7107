#pragma once

#include "providers/common/JsonEventStreamTranslator.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QString>

namespace sb {

// streamGenerateContent?alt=sse → OpenAI chat.completion.chunk payloads. Every Gemini event is a
// whole GenerateContentResponse, so each one becomes its chunks at once; the stream is complete only
// when a candidate carries a finishReason (or the prompt itself was blocked).
class GeminiStreamTranslator final : public JsonEventStreamTranslator {
public:
    GeminiStreamTranslator(QString model, bool includeUsage);

    // Shared with GeminiAdapter::chatResponse so both paths agree.
    // STOP→"stop" ("tool_calls" when the answer called functions), MAX_TOKENS→"length",
    // SAFETY and the other blocking reasons→"content_filter".
    static QString openAiFinishReason(const QString &geminiReason, bool calledTools);
    // Text and functionCall parts → the text and OpenAI tool_calls; `nextToolIndex` numbers calls
    // across a whole stream. Thought parts (reasoning summaries) are not part of the answer.
    static void translateParts(const QJsonArray &parts, QString *text, QJsonArray *toolCalls, int *nextToolIndex);
    static TokenUsage usageFrom(const QJsonObject &usageMetadata);

private:
    QJsonObject eventObject(const QJsonDocument &document) const override;
    std::optional<Outcome> errorIn(const SseEvent &event, const QJsonObject &root) const override;
    QString idIn(const QJsonObject &root) const override;
    std::optional<TokenUsage> usageIn(const QJsonObject &root) const override;
    QJsonObject deltaIn(const QJsonObject &root) override;
    QString finishReasonIn(const QJsonObject &root) const override;

    int m_nextToolIndex = 0;
};

} // namespace sb
