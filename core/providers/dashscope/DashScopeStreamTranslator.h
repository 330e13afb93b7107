#pragma once

#include "providers/common/JsonEventStreamTranslator.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace sb {

// DashScope SSE (X-DashScope-SSE: enable, incremental_output true) → OpenAI chunks. Events are
// `event:result` with the generation so far, or `event:error` with {"code","message"} — an error can
// be the first and only event of an HTTP 200 stream. Intermediate events say finish_reason "null"
// (a string); the answer is complete at "stop", "length" or "tool_calls".
class DashScopeStreamTranslator final : public JsonEventStreamTranslator {
public:
    DashScopeStreamTranslator(QString model, bool includeUsage);

    // "stop"/"length"/"tool_calls" pass through; "null", null and "" mean "not yet".
    static QString finishReason(const QJsonValue &dashScopeReason);
    static TokenUsage usageFrom(const QJsonObject &usage);

private:
    std::optional<Outcome> errorIn(const SseEvent &event, const QJsonObject &root) const override;
    QString idIn(const QJsonObject &root) const override;
    std::optional<TokenUsage> usageIn(const QJsonObject &root) const override;
    QJsonObject deltaIn(const QJsonObject &root) override;
    QString finishReasonIn(const QJsonObject &root) const override;
};

} // namespace sb
