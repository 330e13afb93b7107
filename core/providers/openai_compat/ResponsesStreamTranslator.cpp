#include "providers/openai_compat/ResponsesStreamTranslator.h"

#include "providers/common/ProviderText.h"
#include "providers/openai_compat/ResponsesUpstream.h"

#include <QJsonArray>

namespace sb {

namespace {

Outcome streamProblem(const QString &code, const QString &message)
{
    Outcome outcome;
    outcome.kind = OutcomeKind::ProviderDown;
    outcome.httpStatus = 200;
    outcome.providerCode = code;
    outcome.message = message;
    return outcome;
}

} // namespace

ResponsesStreamTranslator::ResponsesStreamTranslator(QString clientModel, bool clientWantsUsage)
    : m_clientModel(std::move(clientModel))
    , m_clientWantsUsage(clientWantsUsage)
{
}

QByteArray ResponsesStreamTranslator::chunk(const QJsonObject &delta, const QJsonValue &finishReason)
{
    QJsonObject d = delta;
    if (!m_sentRole) {
        d.insert(QStringLiteral("role"), QStringLiteral("assistant"));
        m_sentRole = true;
    }
    const QJsonObject choice{{QStringLiteral("index"), 0}, {QStringLiteral("delta"), d}, {QStringLiteral("finish_reason"), finishReason}};
    return compactJson(QJsonObject{{QStringLiteral("id"), m_id},
                                   {QStringLiteral("object"), QStringLiteral("chat.completion.chunk")},
                                   {QStringLiteral("created"), m_created},
                                   {QStringLiteral("model"), m_clientModel},
                                   {QStringLiteral("choices"), QJsonArray{choice}}});
}

QJsonObject ResponsesStreamTranslator::toolDelta(int toolIndex, const QJsonObject &fields) const
{
    QJsonObject call = fields;
    call.insert(QStringLiteral("index"), toolIndex);
    return QJsonObject{{QStringLiteral("tool_calls"), QJsonArray{call}}};
}

StreamStep ResponsesStreamTranslator::fail(Outcome outcome)
{
    m_failed = true;
    StreamStep step;
    step.error = std::move(outcome);
    return step;
}

StreamStep ResponsesStreamTranslator::onEvent(const SseEvent &event)
{
    StreamStep step;
    if (m_finished || m_failed)
        return step;
    const QByteArray data = event.data.trimmed();
    if (data.isEmpty())
        return step; // a keep-alive
    QJsonObject root;
    if (!parseJsonObject(sanitizeUtf8(data), &root))
        return fail(streamProblem(QStringLiteral("malformed_event"), QStringLiteral("The provider sent a Responses stream event that is not JSON.")));
    QString type = root.value(QLatin1String("type")).toString();
    if (type.isEmpty())
        type = QString::fromUtf8(event.event);
    const QJsonObject response = root.value(QLatin1String("response")).toObject();

    if (type == QLatin1String("error") || type == QLatin1String("response.failed")) {
        if (const QJsonObject usage = response.value(QLatin1String("usage")).toObject(); !usage.isEmpty())
            m_usage = responsesupstream::usage(usage);
        std::optional<Outcome> error = responsesupstream::errorIn(type == QLatin1String("error") ? root : response);
        if (!error)
            error = streamProblem(QStringLiteral("response_failed"), QStringLiteral("The provider's response failed without saying why."));
        StreamStep failed = fail(*error);
        if (m_usage.isKnown())
            failed.usage = m_usage;
        return failed;
    }
    if (type == QLatin1String("response.created") || type == QLatin1String("response.in_progress") || type == QLatin1String("response.queued")) {
        if (m_id.isEmpty())
            m_id = response.value(QLatin1String("id")).toString();
        if (const qint64 created = response.value(QLatin1String("created_at")).toInteger(); created > 0 && !m_sentRole)
            m_created = created;
        if (!m_sentRole)
            step.chunks.push_back(chunk(QJsonObject{{QStringLiteral("content"), QString()}}));
        return step;
    }
    const int outputIndex = root.value(QLatin1String("output_index")).toInt(-1);
    if (type == QLatin1String("response.output_item.added")) {
        const QJsonObject item = root.value(QLatin1String("item")).toObject();
        const QString itemType = item.value(QLatin1String("type")).toString();
        if (itemType != QLatin1String("function_call") && itemType != QLatin1String("custom_tool_call"))
            return step;
        const int toolIndex = int(m_toolIndexByOutput.size());
        m_toolIndexByOutput.insert(outputIndex, toolIndex);
        if (itemType == QLatin1String("custom_tool_call"))
            m_customTools.insert(outputIndex);
        const QString arguments = itemType == QLatin1String("function_call") ? item.value(QLatin1String("arguments")).toString() : QString();
        step.chunks.push_back(chunk(toolDelta(toolIndex, QJsonObject{{QStringLiteral("id"), item.value(QLatin1String("call_id")).toString()},
                                                                     {QStringLiteral("type"), QStringLiteral("function")},
                                                                     {QStringLiteral("function"), QJsonObject{{QStringLiteral("name"), item.value(QLatin1String("name")).toString()},
                                                                                                              {QStringLiteral("arguments"), arguments}}}})));
        return step;
    }
    if (type == QLatin1String("response.output_text.delta") || type == QLatin1String("response.refusal.delta")) {
        if (const QString delta = root.value(QLatin1String("delta")).toString(); !delta.isEmpty())
            step.chunks.push_back(chunk(QJsonObject{{QStringLiteral("content"), delta}}));
        return step;
    }
    if (type == QLatin1String("response.reasoning_summary_text.delta") || type == QLatin1String("response.reasoning_text.delta")) {
        if (const QString delta = root.value(QLatin1String("delta")).toString(); !delta.isEmpty())
            step.chunks.push_back(chunk(QJsonObject{{QStringLiteral("reasoning_content"), delta}}));
        return step;
    }
    if (type == QLatin1String("response.function_call_arguments.delta")) {
        const auto tool = m_toolIndexByOutput.constFind(outputIndex);
        const QString delta = root.value(QLatin1String("delta")).toString();
        if (tool != m_toolIndexByOutput.cend() && !delta.isEmpty())
            step.chunks.push_back(chunk(toolDelta(*tool, QJsonObject{{QStringLiteral("function"), QJsonObject{{QStringLiteral("arguments"), delta}}}})));
        return step;
    }
    if (type == QLatin1String("response.output_item.done") && m_customTools.contains(outputIndex)) {
        // A custom tool's input streams as raw text; the engine's form is one JSON argument.
        const QString input = root.value(QLatin1String("item")).toObject().value(QLatin1String("input")).toString();
        const QString arguments = QString::fromUtf8(compactJson(QJsonObject{{QStringLiteral("input"), input}}));
        step.chunks.push_back(chunk(toolDelta(m_toolIndexByOutput.value(outputIndex), QJsonObject{{QStringLiteral("function"), QJsonObject{{QStringLiteral("arguments"), arguments}}}})));
        return step;
    }
    if (type == QLatin1String("response.completed") || type == QLatin1String("response.incomplete")) {
        m_finished = true;
        const QJsonObject usage = response.value(QLatin1String("usage")).toObject();
        if (m_id.isEmpty())
            m_id = response.value(QLatin1String("id")).toString();
        step.chunks.push_back(chunk(QJsonObject{}, responsesupstream::finishReason(response, !m_toolIndexByOutput.isEmpty())));
        if (!usage.isEmpty()) {
            m_usage = responsesupstream::usage(usage);
            step.usage = m_usage;
            if (m_clientWantsUsage)
                step.chunks.push_back(compactJson(QJsonObject{{QStringLiteral("id"), m_id},
                                                              {QStringLiteral("object"), QStringLiteral("chat.completion.chunk")},
                                                              {QStringLiteral("created"), m_created},
                                                              {QStringLiteral("model"), m_clientModel},
                                                              {QStringLiteral("choices"), QJsonArray()},
                                                              {QStringLiteral("usage"), responsesupstream::chatUsage(usage)}}));
        }
        step.finished = true;
        return step;
    }
    return step;
}

StreamStep ResponsesStreamTranslator::onEnd()
{
    if (m_finished || m_failed)
        return StreamStep();
    return fail(streamProblem(QStringLiteral("stream_cut"),
                              QStringLiteral("The provider's Responses stream ended before response.completed.")));
}

} // namespace sb
