#include "providers/common/JsonEventStreamTranslator.h"

#include "providers/common/OpenAiChunk.h"
#include "providers/common/ProviderText.h"
#include "providers/common/UpstreamOutcome.h"

namespace sb {

JsonEventStreamTranslator::JsonEventStreamTranslator(QString dialect, QString endMarker, QString model, bool includeUsage)
    : m_dialect(std::move(dialect)),
      m_endMarker(std::move(endMarker)),
      m_model(std::move(model)),
      m_includeUsage(includeUsage),
      m_id(QStringLiteral("chatcmpl-") + m_dialect.toLower())
{
}

QJsonObject JsonEventStreamTranslator::eventObject(const QJsonDocument &document) const
{
    return document.object();
}

qint64 JsonEventStreamTranslator::createdIn(const QJsonObject &) const
{
    return 0; // no timestamp in the events: m_created stays what the caller set
}

QByteArray JsonEventStreamTranslator::chunk(const QJsonObject &delta, const QJsonValue &finishReason)
{
    const bool first = !m_sentRole;
    m_sentRole = true;
    return openAiChunk(m_id, m_created, m_model, delta, finishReason, first);
}

StreamStep JsonEventStreamTranslator::onEvent(const SseEvent &event)
{
    StreamStep step;
    if (m_finished)
        return step; // nothing after the finishing event belongs to this answer
    // A character an upstream cut between two events becomes U+FFFD rather than killing the stream.
    const QByteArray data = sanitizeUtf8(event.data).trimmed();
    if (data.isEmpty())
        return step;

    QJsonParseError parseError{};
    const QJsonObject root = eventObject(QJsonDocument::fromJson(data, &parseError));
    if (parseError.error != QJsonParseError::NoError || root.isEmpty()) {
        step.error = brokenStreamOutcome(m_dialect + QStringLiteral(" sent a stream event that is not JSON"));
        return step;
    }
    if (std::optional<Outcome> error = errorIn(event, root)) {
        step.error = std::move(error);
        return step;
    }

    if (!m_sentRole) {
        if (QString id = idIn(root); !id.isEmpty())
            m_id = std::move(id);
        if (const qint64 created = createdIn(root); created > 0)
            m_created = created;
    }
    if (std::optional<TokenUsage> usage = usageIn(root))
        m_usage = usage;

    if (const QJsonObject delta = deltaIn(root); !delta.isEmpty())
        step.chunks.push_back(chunk(delta, QJsonValue::Null));
    const QString finish = finishReasonIn(root);
    if (finish.isEmpty())
        return step;
    step.chunks.push_back(chunk(QJsonObject(), finish));
    step.finished = true;
    m_finished = true;
    if (m_usage) {
        step.usage = m_usage;
        if (m_includeUsage)
            step.chunks.push_back(openAiUsageChunk(m_id, m_created, m_model, *m_usage));
    }
    return step;
}

StreamStep JsonEventStreamTranslator::onEnd()
{
    StreamStep step;
    step.finished = m_finished;
    if (!m_finished)
        step.error = brokenStreamOutcome(m_dialect + QStringLiteral("'s stream ended before ") + m_endMarker);
    return step;
}

} // namespace sb
