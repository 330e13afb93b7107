#include "StreamText.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sb::test {

StreamText parseStream(const QByteArray &body)
{
    StreamText out;
    for (const QByteArray &data : sseData(body)) {
        if (data == "[DONE]") {
            out.done = true;
            continue;
        }
        const QJsonObject chunk = QJsonDocument::fromJson(data).object();
        if (chunk.contains(QLatin1String("error"))) {
            out.error = chunk.value(QLatin1String("error")).toObject();
            continue;
        }
        ++out.chunks;
        if (chunk.value(QLatin1String("usage")).isObject())
            out.usage = chunk.value(QLatin1String("usage")).toObject();
        for (const QJsonValue &choice : chunk.value(QLatin1String("choices")).toArray())
            out.content += choice.toObject().value(QLatin1String("delta")).toObject().value(QLatin1String("content")).toString();
    }
    return out;
}

QList<QByteArray> sseData(const QByteArray &body)
{
    QList<QByteArray> out;
    for (const QByteArray &line : body.split('\n'))
        if (line.startsWith("data: "))
            out.append(line.mid(6).trimmed());
    return out;
}

} // namespace sb::test
