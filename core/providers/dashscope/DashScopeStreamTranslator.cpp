#include "providers/dashscope/DashScopeStreamTranslator.h"

#include "providers/dashscope/DashScopeErrorMap.h"

#include <QJsonArray>

namespace sb {

DashScopeStreamTranslator::DashScopeStreamTranslator(QString model, bool includeUsage)
    : JsonEventStreamTranslator(QStringLiteral("DashScope"), QStringLiteral("a finish_reason"), std::move(model), includeUsage)
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

std::optional<Outcome> DashScopeStreamTranslator::errorIn(const SseEvent &event, const QJsonObject &root) const
{
    // The HTTP status of an error event travels only in a ":HTTP_STATUS/429" comment, which SSE
    // parsers drop, so the code decides.
    if (event.event != "error" && !DashScopeErrorMap::isError(root))
        return std::nullopt;
    Outcome o = DashScopeErrorMap::fromErrorBody(root, 200);
    if (o.providerCode.isEmpty()) {
        o.kind = OutcomeKind::ProviderDown;
        o.message = QStringLiteral("DashScope sent an error event without a code");
    }
    return o;
}

QString DashScopeStreamTranslator::idIn(const QJsonObject &root) const
{
    const QString rid = root.value(QLatin1String("request_id")).toString();
    return rid.isEmpty() ? QString() : QStringLiteral("chatcmpl-") + rid;
}

std::optional<TokenUsage> DashScopeStreamTranslator::usageIn(const QJsonObject &root) const
{
    if (!root.value(QLatin1String("usage")).isObject())
        return std::nullopt;
    return usageFrom(root.value(QLatin1String("usage")).toObject());
}

QJsonObject DashScopeStreamTranslator::deltaIn(const QJsonObject &root)
{
    const QJsonObject output = root.value(QLatin1String("output")).toObject();
    QJsonObject delta;
    const QJsonArray choices = output.value(QLatin1String("choices")).toArray();
    if (choices.isEmpty()) { // result_format "text"
        if (const QString text = output.value(QLatin1String("text")).toString(); !text.isEmpty())
            delta.insert(QStringLiteral("content"), text);
        return delta;
    }
    // result_format "message", what chatRequest asks for
    const QJsonObject message = choices.first().toObject().value(QLatin1String("message")).toObject();
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
    return delta;
}

QString DashScopeStreamTranslator::finishReasonIn(const QJsonObject &root) const
{
    const QJsonObject output = root.value(QLatin1String("output")).toObject();
    const QJsonArray choices = output.value(QLatin1String("choices")).toArray();
    return finishReason((choices.isEmpty() ? output : choices.first().toObject()).value(QLatin1String("finish_reason")));
}

} // namespace sb
