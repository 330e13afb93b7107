#include "providers/gemini/GeminiStreamTranslator.h"

#include "providers/gemini/GeminiErrorMap.h"

#include "providers/common/OpenAiChunk.h"
#include "providers/common/ProviderText.h"
#include "providers/common/UpstreamOutcome.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace sb {

GeminiStreamTranslator::GeminiStreamTranslator(QString model, bool includeUsage)
    : m_model(std::move(model)), m_includeUsage(includeUsage)
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

QByteArray GeminiStreamTranslator::chunk(const QJsonObject &delta, const QJsonValue &finishReason)
{
    const bool first = !m_sentRole;
    m_sentRole = true;
    // m_created is set by the caller: Gemini sends no timestamp.
    return openAiChunk(m_id, m_created, m_model, delta, finishReason, first);
}

QByteArray GeminiStreamTranslator::usageChunk(const TokenUsage &usage) const
{
    return openAiUsageChunk(m_id, m_created, m_model, usage);
}

StreamStep GeminiStreamTranslator::onEvent(const SseEvent &event)
{
    StreamStep step;
    if (m_finished)
        return step; // nothing after the finishing candidate belongs to this answer
    // A character an upstream cut between two events becomes U+FFFD rather than killing the stream.
    const QByteArray data = sanitizeUtf8(event.data).trimmed();
    if (data.isEmpty())
        return step;

    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(data, &parseError);
    const QJsonObject root = (doc.isArray() && !doc.array().isEmpty()) ? doc.array().first().toObject() : doc.object();
    if (parseError.error != QJsonParseError::NoError || root.isEmpty()) {
        step.error = brokenStreamOutcome(QStringLiteral("Gemini sent a stream event that is not JSON"));
        return step;
    }
    if (root.value(QLatin1String("error")).isObject()) {
        step.error = GeminiErrorMap::fromError(root.value(QLatin1String("error")).toObject(), 200);
        return step;
    }
    if (const QString rid = root.value(QLatin1String("responseId")).toString(); !rid.isEmpty() && !m_sentRole)
        m_id = QStringLiteral("chatcmpl-") + rid;
    if (root.contains(QLatin1String("usageMetadata")))
        m_usage = usageFrom(root.value(QLatin1String("usageMetadata")).toObject());

    const QJsonArray candidates = root.value(QLatin1String("candidates")).toArray();
    QString finishReason;
    if (candidates.isEmpty()) {
        // A blocked prompt has no candidates at all, only promptFeedback.blockReason.
        if (!root.value(QLatin1String("promptFeedback")).toObject().value(QLatin1String("blockReason")).toString().isEmpty())
            finishReason = QStringLiteral("content_filter");
    } else {
        const QJsonObject candidate = candidates.first().toObject();
        QString text;
        QJsonArray toolCalls;
        translateParts(candidate.value(QLatin1String("content")).toObject().value(QLatin1String("parts")).toArray(),
                       &text, &toolCalls, &m_nextToolIndex);
        QJsonObject delta;
        if (!text.isEmpty())
            delta.insert(QStringLiteral("content"), text);
        if (!toolCalls.isEmpty())
            delta.insert(QStringLiteral("tool_calls"), toolCalls);
        if (!delta.isEmpty())
            step.chunks.push_back(chunk(delta, QJsonValue::Null));
        const QString reason = candidate.value(QLatin1String("finishReason")).toString();
        if (!reason.isEmpty() && reason != QLatin1String("FINISH_REASON_UNSPECIFIED"))
            finishReason = openAiFinishReason(reason, m_nextToolIndex > 0);
    }

    if (!finishReason.isEmpty()) {
        step.chunks.push_back(chunk(QJsonObject(), finishReason));
        step.finished = true;
        m_finished = true;
        if (m_usage) {
            step.usage = m_usage;
            if (m_includeUsage)
                step.chunks.push_back(usageChunk(*m_usage));
        }
    }
    return step;
}

StreamStep GeminiStreamTranslator::onEnd()
{
    StreamStep step;
    step.finished = m_finished;
    if (!m_finished) {
        step.error = brokenStreamOutcome(QStringLiteral("Gemini's stream ended before a candidate carried a finishReason"));
    }
    return step;
}

} // namespace sb
