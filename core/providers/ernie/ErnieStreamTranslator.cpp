#include "providers/ernie/ErnieStreamTranslator.h"

#include "providers/ernie/ErnieErrorMap.h"

#include "providers/common/OpenAiChunk.h"
#include "providers/common/ProviderText.h"
#include "providers/common/UpstreamOutcome.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sb {

ErnieStreamTranslator::ErnieStreamTranslator(QString model, bool includeUsage)
    : m_model(std::move(model)), m_includeUsage(includeUsage)
{
}

QString ErnieStreamTranslator::finishReason(const QString &ernieReason)
{
    if (ernieReason == QLatin1String("length"))
        return QStringLiteral("length");
    if (ernieReason == QLatin1String("content_filter"))
        return QStringLiteral("content_filter");
    if (ernieReason == QLatin1String("function_call"))
        return QStringLiteral("tool_calls");
    return QStringLiteral("stop");
}

TokenUsage ErnieStreamTranslator::usageFrom(const QJsonObject &usage)
{
    TokenUsage u;
    u.promptTokens = usage.value(QLatin1String("prompt_tokens")).toInt(-1);
    u.completionTokens = usage.value(QLatin1String("completion_tokens")).toInt(-1);
    u.totalTokens = usage.value(QLatin1String("total_tokens")).toInt(-1);
    if (u.totalTokens < 0 && u.promptTokens >= 0 && u.completionTokens >= 0)
        u.totalTokens = u.promptTokens + u.completionTokens;
    return u;
}

QJsonObject ErnieStreamTranslator::toolCall(const QJsonObject &functionCall, const QString &id, int index)
{
    return QJsonObject{{QStringLiteral("index"), index},
                       {QStringLiteral("id"), id},
                       {QStringLiteral("type"), QStringLiteral("function")},
                       {QStringLiteral("function"),
                        QJsonObject{{QStringLiteral("name"), functionCall.value(QLatin1String("name"))},
                                    {QStringLiteral("arguments"), functionCall.value(QLatin1String("arguments")).toString()}}}};
}

QByteArray ErnieStreamTranslator::chunk(const QJsonObject &delta, const QJsonValue &finishReason)
{
    const bool first = !m_sentRole;
    m_sentRole = true;
    return openAiChunk(m_id, m_created, m_model, delta, finishReason, first);
}

QByteArray ErnieStreamTranslator::usageChunk(const TokenUsage &usage) const
{
    return openAiUsageChunk(m_id, m_created, m_model, usage);
}

StreamStep ErnieStreamTranslator::onEvent(const SseEvent &event)
{
    StreamStep step;
    if (m_finished)
        return step;
    // A character an upstream cut between two events becomes U+FFFD rather than killing the stream.
    const QByteArray data = sanitizeUtf8(event.data).trimmed();
    if (data.isEmpty())
        return step;

    QJsonParseError parseError{};
    const QJsonObject root = QJsonDocument::fromJson(data, &parseError).object();
    if (parseError.error != QJsonParseError::NoError || root.isEmpty()) {
        step.error = brokenStreamOutcome(QStringLiteral("ERNIE sent a stream event that is not JSON"));
        return step;
    }
    if (ErnieErrorMap::isError(root)) {
        step.error = ErnieErrorMap::fromErrorBody(root, 200);
        return step;
    }

    if (!m_sentRole) {
        if (const QString id = root.value(QLatin1String("id")).toString(); !id.isEmpty())
            m_id = id;
        // ERNIE stamps its events: keep the upstream's time, like the pass-through dialects.
        if (const auto created = root.value(QLatin1String("created")).toInteger(0); created > 0)
            m_created = created;
    }

    QJsonObject delta;
    if (const QString text = root.value(QLatin1String("result")).toString(); !text.isEmpty())
        delta.insert(QStringLiteral("content"), text);
    if (root.value(QLatin1String("function_call")).isObject()) {
        m_calledTool = true;
        delta.insert(QStringLiteral("tool_calls"),
                     QJsonArray{toolCall(root.value(QLatin1String("function_call")).toObject(), QStringLiteral("call_0"), 0)});
    }
    if (!delta.isEmpty())
        step.chunks.push_back(chunk(delta, QJsonValue::Null));

    if (root.value(QLatin1String("is_end")).toBool()) {
        // need_clear_history means the conversation was refused for its content.
        QString finish = finishReason(root.value(QLatin1String("finish_reason")).toString());
        if (root.value(QLatin1String("need_clear_history")).toBool())
            finish = QStringLiteral("content_filter");
        else if (m_calledTool)
            finish = QStringLiteral("tool_calls");
        step.chunks.push_back(chunk(QJsonObject(), finish));
        step.finished = true;
        m_finished = true;
        if (root.value(QLatin1String("usage")).isObject()) {
            step.usage = usageFrom(root.value(QLatin1String("usage")).toObject());
            if (m_includeUsage)
                step.chunks.push_back(usageChunk(*step.usage));
        }
    }
    return step;
}

StreamStep ErnieStreamTranslator::onEnd()
{
    StreamStep step;
    step.finished = m_finished;
    if (!m_finished) {
        step.error = brokenStreamOutcome(QStringLiteral("ERNIE's stream ended before an event with is_end true"));
    }
    return step;
}

} // namespace sb
