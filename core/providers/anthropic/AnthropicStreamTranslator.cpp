#include "providers/anthropic/AnthropicStreamTranslator.h"

#include "providers/anthropic/AnthropicAdapter.h"
#include "providers/anthropic/AnthropicErrorMap.h"
#include "providers/common/ProviderText.h"

#include <QJsonArray>

#include <algorithm>

namespace sb {

AnthropicStreamTranslator::AnthropicStreamTranslator(QString clientModel, bool clientWantsUsage)
    : m_clientModel(std::move(clientModel))
    , m_clientWantsUsage(clientWantsUsage)
{
}

QByteArray AnthropicStreamTranslator::chunk(const QJsonObject &delta, const QJsonValue &finishReason) const
{
    return compactJson(QJsonObject{
        {QStringLiteral("id"), m_id},
        {QStringLiteral("object"), QStringLiteral("chat.completion.chunk")},
        {QStringLiteral("created"), m_created},
        {QStringLiteral("model"), m_clientModel.isEmpty() ? m_model : m_clientModel},
        {QStringLiteral("choices"),
         QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                {QStringLiteral("delta"), delta},
                                {QStringLiteral("finish_reason"), finishReason}}}},
    });
}

QByteArray AnthropicStreamTranslator::usageChunk() const
{
    return compactJson(QJsonObject{
        {QStringLiteral("id"), m_id},
        {QStringLiteral("object"), QStringLiteral("chat.completion.chunk")},
        {QStringLiteral("created"), m_created},
        {QStringLiteral("model"), m_clientModel.isEmpty() ? m_model : m_clientModel},
        {QStringLiteral("choices"), QJsonArray()},
        {QStringLiteral("usage"), usageToOpenAi(m_usage)},
    });
}

void AnthropicStreamTranslator::mergeUsage(const QJsonObject &usage, bool atStart)
{
    // message_delta's counts are cumulative, so the last one wins; its input_tokens only when it
    // says more than 0 (some servers send 0 there after a real count in message_start).
    const QJsonValue input = usage.value(QLatin1String("input_tokens"));
    if (input.isDouble() && (atStart || input.toInt() > 0))
        m_inputTokens = std::max(0, input.toInt());
    const TokenUsage counts = AnthropicAdapter::usageFromAnthropic(usage);
    if (counts.completionTokens >= 0)
        m_usage.completionTokens = counts.completionTokens;
    if (counts.cacheReadTokens >= 0)
        m_usage.cacheReadTokens = counts.cacheReadTokens;
    if (counts.cacheWriteTokens >= 0)
        m_usage.cacheWriteTokens = counts.cacheWriteTokens;
    if (m_inputTokens >= 0) // the whole prompt, cached parts included, as TokenUsage counts it
        m_usage.promptTokens = m_inputTokens + std::max(0, m_usage.cacheReadTokens) + std::max(0, m_usage.cacheWriteTokens);
    if (!atStart && m_usage.promptTokens >= 0 && m_usage.completionTokens >= 0)
        m_usage.totalTokens = m_usage.promptTokens + m_usage.completionTokens;
}

StreamStep AnthropicStreamTranslator::fail(OutcomeKind kind, const QString &code, const QString &message)
{
    m_failed = true;
    StreamStep step;
    Outcome error;
    error.kind = kind;
    error.httpStatus = 200;
    error.providerCode = code;
    error.message = message;
    step.error = error;
    return step;
}

StreamStep AnthropicStreamTranslator::onEvent(const SseEvent &event)
{
    StreamStep step;
    if (m_stopped || m_failed || event.event == "ping")
        return step;
    QJsonObject data;
    if (!parseJsonObject(sanitizeUtf8(event.data), &data))
        return fail(OutcomeKind::ProviderDown, QStringLiteral("malformed_event"),
                    QStringLiteral("The provider sent a stream event that is not JSON."));
    // The "type" inside the data is authoritative; the SSE event name is the same word.
    QString type = data.value(QLatin1String("type")).toString();
    if (type.isEmpty())
        type = QString::fromUtf8(event.event);

    if (type == QLatin1String("error")) {
        // An error event in a shape the ErrorMap does not know is still an error, reported now:
        // before the first chunk that means a failover at once, not a wait for the stream to end.
        if (auto error = AnthropicErrorMap::errorInObject(data, 200, HttpHeaders())) {
            m_failed = true;
            step.error = std::move(error);
            return step;
        }
        return fail(OutcomeKind::ProviderDown, QStringLiteral("error_event"),
                    QStringLiteral("The provider's stream sent an error event: %1")
                        .arg(cleanProviderMessage(QString::fromUtf8(event.data.left(300)))));
    }
    if (type == QLatin1String("message_start")) {
        const QJsonObject message = data.value(QLatin1String("message")).toObject();
        m_id = message.value(QLatin1String("id")).toString();
        m_model = message.value(QLatin1String("model")).toString();
        mergeUsage(message.value(QLatin1String("usage")).toObject(), true);
        step.chunks.push_back(chunk(QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                                {QStringLiteral("content"), QString()}}));
        step.preamble = true;
        return step;
    }
    if (type == QLatin1String("content_block_start")) {
        const int index = data.value(QLatin1String("index")).toInt();
        const QJsonObject block = data.value(QLatin1String("content_block")).toObject();
        const QString blockType = block.value(QLatin1String("type")).toString();
        if (blockType == QLatin1String("tool_use")) {
            const int toolIndex = m_nextToolIndex++;
            m_toolIndexByBlock.insert(index, toolIndex);
            const QJsonObject call{
                {QStringLiteral("index"), toolIndex},
                {QStringLiteral("id"), block.value(QLatin1String("id")).toString()},
                {QStringLiteral("type"), QStringLiteral("function")},
                {QStringLiteral("function"), QJsonObject{{QStringLiteral("name"), block.value(QLatin1String("name")).toString()},
                                                         {QStringLiteral("arguments"), QString()}}}};
            step.chunks.push_back(chunk(QJsonObject{{QStringLiteral("tool_calls"), QJsonArray{call}}}));
            m_sawContent = true;
        } else if (blockType == QLatin1String("text") && !block.value(QLatin1String("text")).toString().isEmpty()) {
            step.chunks.push_back(chunk(QJsonObject{{QStringLiteral("content"), block.value(QLatin1String("text")).toString()}}));
            m_sawContent = true;
        }
        return step;
    }
    if (type == QLatin1String("content_block_delta")) {
        const int index = data.value(QLatin1String("index")).toInt();
        const QJsonObject delta = data.value(QLatin1String("delta")).toObject();
        const QString deltaType = delta.value(QLatin1String("type")).toString();
        if (deltaType == QLatin1String("text_delta")) {
            const QString text = delta.value(QLatin1String("text")).toString();
            step.chunks.push_back(chunk(QJsonObject{{QStringLiteral("content"), text}}));
            step.preamble = text.isEmpty();
            m_sawContent = m_sawContent || !text.isEmpty();
        } else if (deltaType == QLatin1String("input_json_delta")) {
            const QString partial = delta.value(QLatin1String("partial_json")).toString();
            const auto tool = m_toolIndexByBlock.constFind(index);
            if (!partial.isEmpty() && tool != m_toolIndexByBlock.constEnd()) {
                const QJsonObject call{{QStringLiteral("index"), *tool},
                                       {QStringLiteral("function"), QJsonObject{{QStringLiteral("arguments"), partial}}}};
                step.chunks.push_back(chunk(QJsonObject{{QStringLiteral("tool_calls"), QJsonArray{call}}}));
            }
        } else if (deltaType == QLatin1String("thinking_delta")) {
            const QString thinking = delta.value(QLatin1String("thinking")).toString();
            step.chunks.push_back(chunk(QJsonObject{{QStringLiteral("reasoning_content"), thinking}}));
            step.preamble = thinking.isEmpty();
            m_sawContent = m_sawContent || !thinking.isEmpty();
        }
        return step;
    }
    if (type == QLatin1String("message_delta")) {
        mergeUsage(data.value(QLatin1String("usage")).toObject(), false);
        step.usage = m_usage;
        const QString stopReason = data.value(QLatin1String("delta")).toObject().value(QLatin1String("stop_reason")).toString();
        if (!stopReason.isEmpty()) {
            step.chunks.push_back(chunk(QJsonObject(), AnthropicAdapter::finishReason(stopReason)));
            m_sawStopReason = true;
        }
        return step;
    }
    if (type == QLatin1String("message_stop")) {
        if (!m_sawContent && !m_sawStopReason)
            return fail(OutcomeKind::ProviderDown, QStringLiteral("empty_stream"),
                        QStringLiteral("The provider's stream ended with neither content nor a stop reason: an empty "
                                       "answer is not an answer."));
        m_stopped = true;
        step.finished = true;
        if (m_usage.isKnown()) {
            step.usage = m_usage;
            if (m_clientWantsUsage)
                step.chunks.push_back(usageChunk());
        }
        return step;
    }
    return step; // content_block_stop, ping and types added after this was written
}

StreamStep AnthropicStreamTranslator::onEnd()
{
    if (m_failed)
        return StreamStep();
    if (m_stopped) {
        StreamStep step;
        step.finished = true;
        return step;
    }
    return fail(OutcomeKind::ProviderDown, QStringLiteral("stream_cut"),
                QStringLiteral("The provider's stream ended before message_stop; the answer is incomplete."));
}

} // namespace sb
