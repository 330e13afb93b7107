#include "providers/common/OpenAiChunk.h"

#include "providers/common/ProviderText.h"

#include <QJsonArray>

namespace sb {

QJsonObject openAiUsageCounts(const TokenUsage &usage)
{
    QJsonObject out{{QStringLiteral("prompt_tokens"), qMax(0, usage.promptTokens)},
                    {QStringLiteral("completion_tokens"), qMax(0, usage.completionTokens)},
                    {QStringLiteral("total_tokens"), qMax(0, usage.totalTokens)}};
    if (const QJsonObject details = openAiPromptDetails(usage); !details.isEmpty())
        out.insert(QStringLiteral("prompt_tokens_details"), details);
    return out;
}

QByteArray openAiChunk(const QString &id, qint64 created, const QString &model, const QJsonObject &delta,
                       const QJsonValue &finishReason, bool firstChunk)
{
    QJsonObject d = delta;
    if (firstChunk)
        d.insert(QStringLiteral("role"), QStringLiteral("assistant"));
    const QJsonObject choice{{QStringLiteral("index"), 0},
                             {QStringLiteral("delta"), d},
                             {QStringLiteral("finish_reason"), finishReason}};
    return compactJson(QJsonObject{{QStringLiteral("id"), id},
                                   {QStringLiteral("object"), QStringLiteral("chat.completion.chunk")},
                                   {QStringLiteral("created"), created},
                                   {QStringLiteral("model"), model},
                                   {QStringLiteral("choices"), QJsonArray{choice}}});
}

QByteArray openAiUsageChunk(const QString &id, qint64 created, const QString &model, const TokenUsage &usage)
{
    return compactJson(QJsonObject{{QStringLiteral("id"), id},
                                   {QStringLiteral("object"), QStringLiteral("chat.completion.chunk")},
                                   {QStringLiteral("created"), created},
                                   {QStringLiteral("model"), model},
                                   {QStringLiteral("choices"), QJsonArray()},
                                   {QStringLiteral("usage"), openAiUsageCounts(usage)}});
}

QJsonObject openAiCompletion(const QString &id, qint64 created, const QString &model, const QJsonObject &message,
                             const QJsonValue &finishReason, const TokenUsage &usage)
{
    QJsonObject out{{QStringLiteral("id"), id},
                    {QStringLiteral("object"), QStringLiteral("chat.completion")},
                    {QStringLiteral("created"), created},
                    {QStringLiteral("model"), model},
                    {QStringLiteral("choices"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                                                       {QStringLiteral("message"), message},
                                                                       {QStringLiteral("finish_reason"), finishReason}}}}};
    if (usage.isKnown())
        out.insert(QStringLiteral("usage"), openAiUsageCounts(usage));
    return out;
}

bool includeUsageRequested(const QJsonObject &openAiBody)
{
    return openAiBody.value(QLatin1String("stream_options")).toObject().value(QLatin1String("include_usage")).toBool();
}

} // namespace sb
