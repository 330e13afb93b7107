#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

// The small pieces every fake provider's wire is built from: compact JSON, SSE events, OpenAI's
// chunk and usage objects.
namespace sb::sim::wire {

inline QByteArray compact(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

inline QByteArray dataEvent(const QJsonObject &o, const char *terminator = "\n\n")
{
    return QByteArrayLiteral("data: ") + compact(o) + terminator;
}

inline QByteArray namedEvent(const char *name, const QJsonObject &o)
{
    return QByteArrayLiteral("event: ") + name + QByteArrayLiteral("\ndata: ") + compact(o) + QByteArrayLiteral("\n\n");
}

inline QJsonObject openAiUsage(int prompt, int completion)
{
    return QJsonObject{{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
}

inline QJsonObject openAiChunk(qint64 created, const QByteArray &id, const QString &model, const QJsonObject &delta, const QJsonValue &finish)
{
    return QJsonObject{{"id", QString::fromLatin1("chatcmpl-" + id)},
                       {"object", "chat.completion.chunk"},
                       {"created", created},
                       {"model", model},
                       {"choices", QJsonArray{QJsonObject{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}};
}

} // namespace sb::sim::wire
