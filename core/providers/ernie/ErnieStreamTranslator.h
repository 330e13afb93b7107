#pragma once

#include "providers/common/JsonEventStreamTranslator.h"

#include <QJsonObject>
#include <QString>

namespace sb {

// Qianfan v1 SSE ("data: {...}" per sentence, the last with "is_end": true and the usage) → OpenAI
// chunks. An event carrying error_code is that error, first or mid-stream.
class ErnieStreamTranslator final : public JsonEventStreamTranslator {
public:
    ErnieStreamTranslator(QString model, bool includeUsage);

    // normal/stop→"stop", length→"length", content_filter→"content_filter", function_call→"tool_calls".
    static QString finishReason(const QString &ernieReason);
    static TokenUsage usageFrom(const QJsonObject &usage);
    // ERNIE's single function_call → an OpenAI tool call (with `index` for stream deltas).
    static QJsonObject toolCall(const QJsonObject &functionCall, const QString &id, int index);

private:
    std::optional<Outcome> errorIn(const SseEvent &event, const QJsonObject &root) const override;
    QString idIn(const QJsonObject &root) const override;
    qint64 createdIn(const QJsonObject &root) const override;
    std::optional<TokenUsage> usageIn(const QJsonObject &root) const override;
    QJsonObject deltaIn(const QJsonObject &root) override;
    QString finishReasonIn(const QJsonObject &root) const override;

    bool m_calledTool = false;
};

} // namespace sb
