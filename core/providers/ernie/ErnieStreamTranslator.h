#pragma once

#include "providers/ProviderAdapter.h"

#include <QJsonObject>
#include <QString>

namespace sb {

// Qianfan v1 SSE ("data: {...}" per sentence, the last with "is_end": true and the usage) → OpenAI
// chunks. An event carrying error_code is that error, first or mid-stream.
class ErnieStreamTranslator final : public StreamTranslator {
public:
    ErnieStreamTranslator(QString model, bool includeUsage);

    StreamStep onEvent(const SseEvent &event) override;
    StreamStep onEnd() override;

    // normal/stop→"stop", length→"length", content_filter→"content_filter", function_call→"tool_calls".
    static QString finishReason(const QString &ernieReason);
    static TokenUsage usageFrom(const QJsonObject &usage);
    // ERNIE's single function_call → an OpenAI tool call (with `index` for stream deltas).
    static QJsonObject toolCall(const QJsonObject &functionCall, const QString &id, int index);

private:
    QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason);
    QByteArray usageChunk(const TokenUsage &usage) const;

    QString m_model;
    bool m_includeUsage = false;
    QString m_id = QStringLiteral("chatcmpl-ernie");
    bool m_sentRole = false;
    bool m_finished = false;
    bool m_calledTool = false;
};

} // namespace sb
