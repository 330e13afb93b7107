#include "providers/dashscope/DashScopeStreamTranslator.h"

#include "providers/dashscope/DashScopeErrorMap.h"

#include "providers/common/OpenAiChunk.h"
#include "providers/common/ProviderText.h"
#include "providers/common/UpstreamOutcome.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sb {

DashScopeStreamTranslator::DashScopeStreamTranslator(QString model, bool includeUsage)
    : m_model(std::move(model)), m_includeUsage(includeUsage)
{
}

QString DashScopeStreamTranslator::finishReason(const QJsonValue &dashScopeReason)
{
    const QString r = dashScopeReason.toString();
    if (r == QLatin1String("stop") || r == QLatin1String("length") || r == QLatin1String("tool_calls"))
        return r;
    if (r == QLatin1String("content_filter") || r == QLatin1String("data_inspection_failed"))
        return QStringLiteral("content_filter");
    return QString();
}

TokenUsage DashScopeStreamTranslator::usageFrom(const QJsonObject &usage)
{
    TokenUsage u;
    u.promptTokens = usage.value(QLatin1String("input_tokens")).toInt(-1);
    u.completionTokens = usage.value(QLatin1String("output_tokens")).toInt(-1);
    u.totalTokens = usage.value(QLatin1String("total_tokens")).toInt(-1);
    if (u.totalTokens < 0 && u.promptTokens >= 0 && u.completionTokens >= 0)
        u.totalTokens = u.promptTokens + u.completionTokens;
    return u;
}

QByteArray DashScopeStreamTranslator::chunk(const QJsonObject &delta, const QJsonValue &finishReason)
{
    const bool first = !m_sentRole;
    m_sentRole = true;
    // m_created is set by the caller: DashScope sends no timestamp.
    return openAiChunk(m_id, m_created, m_model, delta, finishReason, first);
}

QByteArray DashScopeStreamTranslator::usageChunk(const TokenUsage &usage) const
{
    return openAiUsageChunk(m_id, m_created, m_model, usage);
}

StreamStep DashScopeStreamTranslator::onEvent(const SseEvent &event)
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
        step.error = brokenStreamOutcome(QStringLiteral("DashScope sent a stream event that is not JSON"));
        return step;
    }
    // The HTTP status of an error event travels only in a ":HTTP_STATUS/429" comment, which SSE
    // parsers drop, so the code decides.
    if (event.event == "error" || DashScopeErrorMap::isError(root)) {
        Outcome o = DashScopeErrorMap::fromErrorBody(root, 200);
        if (o.providerCode.isEmpty()) {
            o.kind = OutcomeKind::ProviderDown;
            o.message = QStringLiteral("DashScope sent an error event without a code");
        }
        step.error = o;
        return step;
    }

    if (const QString rid = root.value(QLatin1String("request_id")).toString(); !rid.isEmpty() && !m_sentRole)
        m_id = QStringLiteral("chatcmpl-") + rid;
    if (root.value(QLatin1String("usage")).isObject())
        m_usage = usageFrom(root.value(QLatin1String("usage")).toObject());

    const QJsonObject output = root.value(QLatin1String("output")).toObject();
    QJsonObject delta;
    QString finish;
    const QJsonArray choices = output.value(QLatin1String("choices")).toArray();
    if (!choices.isEmpty()) { // result_format "message", what chatRequest asks for
        const QJsonObject choice = choices.first().toObject();
        const QJsonObject message = choice.value(QLatin1String("message")).toObject();
        if (const QString text = message.value(QLatin1String("content")).toString(); !text.isEmpty())
            delta.insert(QStringLiteral("content"), text);
        if (const QString reasoning = message.value(QLatin1String("reasoning_content")).toString(); !reasoning.isEmpty())
            delta.insert(QStringLiteral("reasoning_content"), reasoning);
        QJsonArray toolCalls = message.value(QLatin1String("tool_calls")).toArray();
        for (qsizetype i = 0; i < toolCalls.size(); ++i) {
            QJsonObject call = toolCalls.at(i).toObject();
            if (!call.contains(QLatin1String("index")))
                call.insert(QStringLiteral("index"), int(i));
            toolCalls[i] = call;
        }
        if (!toolCalls.isEmpty())
            delta.insert(QStringLiteral("tool_calls"), toolCalls);
        finish = finishReason(choice.value(QLatin1String("finish_reason")));
    } else { // result_format "text"
        if (const QString text = output.value(QLatin1String("text")).toString(); !text.isEmpty())
            delta.insert(QStringLiteral("content"), text);
        finish = finishReason(output.value(QLatin1String("finish_reason")));
    }

    if (!delta.isEmpty())
        step.chunks.push_back(chunk(delta, QJsonValue::Null));
    if (!finish.isEmpty()) {
        step.chunks.push_back(chunk(QJsonObject(), finish));
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

StreamStep DashScopeStreamTranslator::onEnd()
{
    StreamStep step;
    step.finished = m_finished;
    if (!m_finished) {
        step.error = brokenStreamOutcome(QStringLiteral("DashScope's stream ended before a finish_reason"));
    }
    return step;
}

} // namespace sb
