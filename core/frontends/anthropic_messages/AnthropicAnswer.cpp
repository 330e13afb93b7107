#include "frontends/anthropic_messages/AnthropicAnswer.h"

#include "frontends/ChatMessageParts.h"
#include "providers/common/ProviderText.h"

#include <QJsonArray>

namespace sb {

namespace {

const QLatin1String kType("type"), kText("text");


} // namespace

QString AnthropicAnswer::stopReason(const QString &finishReason, bool hasToolUse)
{
    if (finishReason == QLatin1String("length"))
        return QStringLiteral("max_tokens");
    if (finishReason == QLatin1String("tool_calls") || finishReason == QLatin1String("function_call"))
        return QStringLiteral("tool_use");
    if (finishReason == QLatin1String("content_filter"))
        return QStringLiteral("refusal");
    return hasToolUse ? QStringLiteral("tool_use") : QStringLiteral("end_turn");
}

QString AnthropicAnswer::matchedStopSequence(const QJsonObject &choice, const QString &textEnd, const QStringList &stopSequences)
{
    if (stopSequences.isEmpty())
        return QString();
    for (const char *key : {"stop_reason", "matched_stop"}) {
        const QJsonValue value = choice.value(QLatin1String(key));
        if (value.isString() && stopSequences.contains(value.toString()))
            return value.toString();
    }
    for (const QString &stop : stopSequences)
        if (!stop.isEmpty() && textEnd.endsWith(stop))
            return stop;
    return QString();
}

QJsonObject AnthropicAnswer::usage(const QJsonObject &openAiUsage)
{
    const qint64 prompt = openAiUsage.value(QLatin1String("prompt_tokens")).toInteger();
    const qint64 completion = openAiUsage.value(QLatin1String("completion_tokens")).toInteger();
    QJsonObject out;
    const QJsonObject details = openAiUsage.value(QLatin1String("prompt_tokens_details")).toObject();
    const QJsonValue detailsRead = details.value(QLatin1String("cached_tokens"));
    const QJsonValue deepSeekHit = openAiUsage.value(QLatin1String("prompt_cache_hit_tokens"));
    const QJsonValue cached = detailsRead.isDouble() ? detailsRead : deepSeekHit;
    const QJsonValue written = details.value(QLatin1String("cache_write_tokens"));
    if (cached.isDouble() || written.isDouble()) {
        const qint64 read = qBound<qint64>(0, cached.toInteger(), prompt);
        const qint64 write = qBound<qint64>(0, written.toInteger(), prompt - read);
        out.insert(QStringLiteral("input_tokens"), prompt - read - write);
        out.insert(QStringLiteral("cache_creation_input_tokens"), write);
        out.insert(QStringLiteral("cache_read_input_tokens"), read);
    } else {
        out.insert(QStringLiteral("input_tokens"), qMax<qint64>(0, prompt));
    }
    out.insert(QStringLiteral("output_tokens"), qMax<qint64>(0, completion));
    return out;
}

QJsonObject AnthropicAnswer::toolInput(const QString &arguments)
{
    QJsonObject input;
    if (!arguments.trimmed().isEmpty())
        parseJsonObject(arguments.toUtf8(), &input);
    return input;
}

QByteArray AnthropicAnswer::fromChatCompletion(const QJsonObject &completion, const QString &model, const QString &messageId,
                                               const QStringList &stopSequences)
{
    const QJsonObject choice = completion.value(QLatin1String("choices")).toArray().at(0).toObject();
    const QJsonObject message = choice.value(QLatin1String("message")).toObject();
    const QString finishReason = choice.value(QLatin1String("finish_reason")).toString();

    QJsonArray content;
    const QString reasoning = chatReasoning(message);
    if (!reasoning.isEmpty()) {
        // No upstream but Anthropic signs thinking; the empty signature tells the client so.
        content.append(QJsonObject{{kType, QStringLiteral("thinking")},
                                   {QStringLiteral("thinking"), reasoning},
                                   {QStringLiteral("signature"), QString()}});
    }
    QString text = chatText(message.value(QLatin1String("content")));
    const QString refusal = message.value(QLatin1String("refusal")).toString();
    const bool refused = text.isEmpty() && !refusal.isEmpty();
    if (refused)
        text = refusal;
    if (!text.isEmpty())
        content.append(QJsonObject{{kType, kText}, {kText, text}});

    const QJsonArray calls = message.value(QLatin1String("tool_calls")).toArray();
    for (qsizetype i = 0; i < calls.size(); ++i) {
        const QJsonObject call = calls.at(i).toObject();
        const QJsonObject function = call.value(QLatin1String("function")).toObject();
        QString id = call.value(QLatin1String("id")).toString();
        if (id.isEmpty())
            id = QStringLiteral("toolu_%1_%2").arg(messageId).arg(i);
        content.append(QJsonObject{{kType, QStringLiteral("tool_use")},
                                   {QStringLiteral("id"), id},
                                   {QStringLiteral("name"), function.value(QLatin1String("name")).toString()},
                                   {QStringLiteral("input"), toolInput(function.value(QLatin1String("arguments")).toString())}});
    }
    // The legacy single function_call of older OpenAI answers.
    const QJsonObject functionCall = message.value(QLatin1String("function_call")).toObject();
    if (calls.isEmpty() && !functionCall.isEmpty()) {
        content.append(QJsonObject{{kType, QStringLiteral("tool_use")},
                                   {QStringLiteral("id"), QStringLiteral("toolu_%1_0").arg(messageId)},
                                   {QStringLiteral("name"), functionCall.value(QLatin1String("name")).toString()},
                                   {QStringLiteral("input"), toolInput(functionCall.value(QLatin1String("arguments")).toString())}});
    }
    const bool hasToolUse = !calls.isEmpty() || !functionCall.isEmpty();

    QString stopReason = refused ? QStringLiteral("refusal") : AnthropicAnswer::stopReason(finishReason, hasToolUse);
    QJsonValue stopSequence(QJsonValue::Null);
    if (stopReason == QLatin1String("end_turn")) {
        const QString matched = matchedStopSequence(choice, text, stopSequences);
        if (!matched.isEmpty()) {
            stopReason = QStringLiteral("stop_sequence");
            stopSequence = matched;
        }
    }

    return compactJson(QJsonObject{
        {QStringLiteral("id"), messageId},
        {kType, QStringLiteral("message")},
        {QStringLiteral("role"), QStringLiteral("assistant")},
        {QStringLiteral("model"), model},
        {QStringLiteral("content"), content},
        {QStringLiteral("stop_reason"), stopReason},
        {QStringLiteral("stop_sequence"), stopSequence},
        {QStringLiteral("usage"), usage(completion.value(QLatin1String("usage")).toObject())},
    });
}

} // namespace sb
