#pragma once

#include "providers/ProviderAdapter.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace sb {

// DashScope SSE (X-DashScope-SSE: enable, incremental_output true) → OpenAI chunks. Events are
// `event:result` with the generation so far, or `event:error` with {"code","message"} — an error can
// be the first and only event of an HTTP 200 stream. Intermediate events say finish_reason "null"
// (a string); the answer is complete at "stop", "length" or "tool_calls".
class DashScopeStreamTranslator final : public StreamTranslator {
public:
    DashScopeStreamTranslator(QString model, bool includeUsage);

    StreamStep onEvent(const SseEvent &event) override;
    StreamStep onEnd() override;

    // "stop"/"length"/"tool_calls" pass through; "null", null and "" mean "not yet".
    static QString finishReason(const QJsonValue &dashScopeReason);
    static TokenUsage usageFrom(const QJsonObject &usage);

private:
    QByteArray chunk(const QJsonObject &delta, const QJsonValue &finishReason);
    QByteArray usageChunk(const TokenUsage &usage) const;

    QString m_model;
    bool m_includeUsage = false;
    QString m_id = QStringLiteral("chatcmpl-dashscope");
    bool m_sentRole = false;
    bool m_finished = false;
    std::optional<TokenUsage> m_usage;
};

} // namespace sb
