#include "sim/ContinuationRequest.h"

#include "proxy/StreamContinuation.h"

#include <QJsonArray>

namespace sb::sim {

namespace {

QJsonArray turnsOf(const QJsonObject &body)
{
    if (body.contains(QLatin1String("messages")))
        return body.value(QLatin1String("messages")).toArray();
    if (body.contains(QLatin1String("contents")))
        return body.value(QLatin1String("contents")).toArray();
    return body.value(QLatin1String("input")).toObject().value(QLatin1String("messages")).toArray();
}

bool isAssistant(const QJsonObject &turn)
{
    const QString role = turn.value(QLatin1String("role")).toString();
    return role == QLatin1String("assistant") || role == QLatin1String("model");
}

// A turn's text: a string content, or the text of its parts (content blocks, Gemini's parts).
QString textOf(const QJsonObject &turn)
{
    const QJsonValue content = turn.value(QLatin1String("content"));
    if (content.isString())
        return content.toString();
    const QJsonArray parts = content.isArray() ? content.toArray() : turn.value(QLatin1String("parts")).toArray();
    QString text;
    for (const QJsonValue &part : parts)
        text += part.toObject().value(QLatin1String("text")).toString();
    return text;
}

} // namespace

QByteArray partialAnswerOf(const QJsonObject &body)
{
    const QJsonArray turns = turnsOf(body);
    if (turns.isEmpty())
        return {};
    const QJsonObject last = turns.last().toObject();
    if (isAssistant(last))
        return textOf(last).toUtf8();
    if (turns.size() >= 2 && textOf(last) == QLatin1String(StreamContinuation::kInstruction)) {
        const QJsonObject before = turns.at(turns.size() - 2).toObject();
        if (isAssistant(before))
            return textOf(before).toUtf8();
    }
    return {};
}

} // namespace sb::sim
