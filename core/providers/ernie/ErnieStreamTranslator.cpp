#include "providers/ernie/ErnieStreamTranslator.h"

#include "providers/ernie/ErnieErrorMap.h"

#include <QJsonArray>

namespace sb {

ErnieStreamTranslator::ErnieStreamTranslator(QString model, bool includeUsage)
    : JsonEventStreamTranslator(QStringLiteral("ERNIE"), QStringLiteral("an event with is_end true"), std::move(model), includeUsage)
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

std::optional<Outcome> ErnieStreamTranslator::errorIn(const SseEvent &, const QJsonObject &root) const
{
    if (!ErnieErrorMap::isError(root))
        return std::nullopt;
    return ErnieErrorMap::fromErrorBody(root, 200);
}

QString ErnieStreamTranslator::idIn(const QJsonObject &root) const
{
    return root.value(QLatin1String("id")).toString();
}

qint64 ErnieStreamTranslator::createdIn(const QJsonObject &root) const
{
    // ERNIE stamps its events: keep the upstream's time, like the pass-through dialects.
    return root.value(QLatin1String("created")).toInteger(0);
}

std::optional<TokenUsage> ErnieStreamTranslator::usageIn(const QJsonObject &root) const
{
    // Qianfan puts the answer's usage on the event with is_end true; it is read from there only.
    if (!root.value(QLatin1String("is_end")).toBool() || !root.value(QLatin1String("usage")).isObject())
        return std::nullopt;
    return usageFrom(root.value(QLatin1String("usage")).toObject());
}

QJsonObject ErnieStreamTranslator::deltaIn(const QJsonObject &root)
{
    QJsonObject delta;
    if (const QString text = root.value(QLatin1String("result")).toString(); !text.isEmpty())
        delta.insert(QStringLiteral("content"), text);
    if (root.value(QLatin1String("function_call")).isObject()) {
        m_calledTool = true;
        delta.insert(QStringLiteral("tool_calls"),
                     QJsonArray{toolCall(root.value(QLatin1String("function_call")).toObject(), QStringLiteral("call_0"), 0)});
    }
    return delta;
}

QString ErnieStreamTranslator::finishReasonIn(const QJsonObject &root) const
{
    if (!root.value(QLatin1String("is_end")).toBool())
        return QString();
    // need_clear_history means the conversation was refused for its content.
    if (root.value(QLatin1String("need_clear_history")).toBool())
        return QStringLiteral("content_filter");
    if (m_calledTool)
        return QStringLiteral("tool_calls");
    return finishReason(root.value(QLatin1String("finish_reason")).toString());
}

} // namespace sb
