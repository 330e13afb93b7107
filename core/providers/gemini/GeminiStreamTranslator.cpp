#include "providers/gemini/GeminiStreamTranslator.h"

#include "providers/gemini/GeminiErrorMap.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace sb {

GeminiStreamTranslator::GeminiStreamTranslator(QString model, bool includeUsage)
    : JsonEventStreamTranslator(QStringLiteral("Gemini"), QStringLiteral("a candidate carried a finishReason"), std::move(model),
                                includeUsage)
{
}

QString GeminiStreamTranslator::openAiFinishReason(const QString &geminiReason, bool calledTools)
{
    if (geminiReason == QLatin1String("MAX_TOKENS"))
        return QStringLiteral("length");
    if (geminiReason == QLatin1String("SAFETY") || geminiReason == QLatin1String("RECITATION")
        || geminiReason == QLatin1String("BLOCKLIST") || geminiReason == QLatin1String("PROHIBITED_CONTENT")
        || geminiReason == QLatin1String("SPII") || geminiReason == QLatin1String("IMAGE_SAFETY"))
        return QStringLiteral("content_filter");
    return calledTools ? QStringLiteral("tool_calls") : QStringLiteral("stop");
}

void GeminiStreamTranslator::translateParts(const QJsonArray &parts, QString *text, QJsonArray *toolCalls,
                                            int *nextToolIndex)
{
    for (const QJsonValue &p : parts) {
        const QJsonObject part = p.toObject();
        if (part.value(QLatin1String("thought")).toBool())
            continue;
        if (part.contains(QLatin1String("text"))) {
            text->append(part.value(QLatin1String("text")).toString());
        } else if (part.contains(QLatin1String("functionCall"))) {
            const QJsonObject call = part.value(QLatin1String("functionCall")).toObject();
            const int index = (*nextToolIndex)++;
            QString id = call.value(QLatin1String("id")).toString();
            if (id.isEmpty())
                id = QStringLiteral("call_%1").arg(index);
            const QByteArray args = QJsonDocument(call.value(QLatin1String("args")).toObject()).toJson(QJsonDocument::Compact);
            toolCalls->append(QJsonObject{
                {QStringLiteral("index"), index},
                {QStringLiteral("id"), id},
                {QStringLiteral("type"), QStringLiteral("function")},
                {QStringLiteral("function"), QJsonObject{{QStringLiteral("name"), call.value(QLatin1String("name"))},
                                                         {QStringLiteral("arguments"), QString::fromUtf8(args)}}},
            });
        }
    }
}

TokenUsage GeminiStreamTranslator::usageFrom(const QJsonObject &usageMetadata)
{
    TokenUsage u;
    u.promptTokens = usageMetadata.value(QLatin1String("promptTokenCount")).toInt(-1);
    // Thinking models bill their thoughts as output; OpenAI counts reasoning in completion_tokens too.
    const int candidates = usageMetadata.value(QLatin1String("candidatesTokenCount")).toInt(0);
    const int thoughts = usageMetadata.value(QLatin1String("thoughtsTokenCount")).toInt(0);
    if (usageMetadata.contains(QLatin1String("candidatesTokenCount")) || thoughts > 0)
        u.completionTokens = candidates + thoughts;
    else if (u.promptTokens >= 0)
        u.completionTokens = 0;
    u.totalTokens = usageMetadata.value(QLatin1String("totalTokenCount")).toInt(-1);
    if (u.totalTokens < 0 && u.promptTokens >= 0 && u.completionTokens >= 0)
        u.totalTokens = u.promptTokens + u.completionTokens;
    return u;
}

QJsonObject GeminiStreamTranslator::eventObject(const QJsonDocument &document) const
{
    // Gemini sends some answers as a JSON array of responses (streamGenerateContent without
    // alt=sse, some errors): the first one is the event.
    return (document.isArray() && !document.array().isEmpty()) ? document.array().first().toObject() : document.object();
}

std::optional<Outcome> GeminiStreamTranslator::errorIn(const SseEvent &, const QJsonObject &root) const
{
    if (!root.value(QLatin1String("error")).isObject())
        return std::nullopt;
    return GeminiErrorMap::fromError(root.value(QLatin1String("error")).toObject(), 200);
}

QString GeminiStreamTranslator::idIn(const QJsonObject &root) const
{
    const QString rid = root.value(QLatin1String("responseId")).toString();
    return rid.isEmpty() ? QString() : QStringLiteral("chatcmpl-") + rid;
}

std::optional<TokenUsage> GeminiStreamTranslator::usageIn(const QJsonObject &root) const
{
    if (!root.contains(QLatin1String("usageMetadata")))
        return std::nullopt;
    return usageFrom(root.value(QLatin1String("usageMetadata")).toObject());
}

QJsonObject GeminiStreamTranslator::deltaIn(const QJsonObject &root)
{
    const QJsonArray candidates = root.value(QLatin1String("candidates")).toArray();
    if (candidates.isEmpty())
        return QJsonObject();
    QString text;
    QJsonArray toolCalls;
    translateParts(candidates.first().toObject().value(QLatin1String("content")).toObject().value(QLatin1String("parts")).toArray(),
                   &text, &toolCalls, &m_nextToolIndex);
    QJsonObject delta;
    if (!text.isEmpty())
        delta.insert(QStringLiteral("content"), text);
    if (!toolCalls.isEmpty())
        delta.insert(QStringLiteral("tool_calls"), toolCalls);
    return delta;
}

QString GeminiStreamTranslator::finishReasonIn(const QJsonObject &root) const
{
    const QJsonArray candidates = root.value(QLatin1String("candidates")).toArray();
    if (candidates.isEmpty()) {
        // A blocked prompt has no candidates at all, only promptFeedback.blockReason.
        const bool blocked = !root.value(QLatin1String("promptFeedback")).toObject().value(QLatin1String("blockReason")).toString().isEmpty();
        return blocked ? QStringLiteral("content_filter") : QString();
    }
    const QString reason = candidates.first().toObject().value(QLatin1String("finishReason")).toString();
    if (reason.isEmpty() || reason == QLatin1String("FINISH_REASON_UNSPECIFIED"))
        return QString();
    return openAiFinishReason(reason, m_nextToolIndex > 0);
}

} // namespace sb
