#include "frontends/ChatMessageParts.h"

#include <QStringList>

namespace sb {

QString chatText(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QString text;
    for (const QJsonValue &part : content.toArray()) {
        const QJsonObject p = part.toObject();
        if (p.value(QLatin1String("type")).toString() == QLatin1String("text"))
            text += p.value(QLatin1String("text")).toString();
    }
    return text;
}

QString chatReasoning(const QJsonObject &messageOrDelta)
{
    const QJsonValue reasoning = messageOrDelta.value(QLatin1String("reasoning_content"));
    if (reasoning.isString() && !reasoning.toString().isEmpty())
        return reasoning.toString();
    return messageOrDelta.value(QLatin1String("reasoning")).toString();
}

QJsonValue chatContent(const QJsonArray &parts)
{
    QStringList texts;
    for (const QJsonValue &part : parts) {
        const QJsonObject p = part.toObject();
        if (p.value(QLatin1String("type")).toString() != QLatin1String("text"))
            return parts;
        texts << p.value(QLatin1String("text")).toString();
    }
    return texts.join(QLatin1Char('\n'));
}

} // namespace sb
