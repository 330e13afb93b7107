#include "cache/CacheKey.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStringList>

namespace sb::CacheKey {

namespace {

bool isSystem(const QJsonObject &message)
{
    const QString role = message.value(QLatin1String("role")).toString();
    return role == u"system" || role == u"developer";
}

// The text of a message's content (a string, or an array of parts); false when a part is not text.
bool textOf(const QJsonValue &content, QString *out)
{
    if (content.isString()) {
        *out = content.toString();
        return true;
    }
    if (content.isNull() || content.isUndefined()) {
        out->clear();
        return true;
    }
    if (!content.isArray())
        return false;
    QStringList parts;
    for (const QJsonValue &part : content.toArray()) {
        const QJsonObject p = part.toObject();
        if (p.value(QLatin1String("type")).toString() != u"text")
            return false;
        parts << p.value(QLatin1String("text")).toString();
    }
    *out = parts.join(QLatin1Char('\n'));
    return true;
}

QByteArray canonical(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace

QJsonObject normalised(const QJsonObject &body)
{
    QJsonObject out = body;
    out.remove(QLatin1String("stream"));
    out.remove(QLatin1String("stream_options"));
    out.remove(QLatin1String("user"));
    return out;
}

QByteArray exact(const QJsonObject &body)
{
    return QCryptographicHash::hash(canonical(normalised(body)), QCryptographicHash::Sha256);
}

QByteArray semanticScope(const QString &route, const QJsonObject &body)
{
    QJsonObject params = normalised(body);
    QJsonArray system;
    for (const QJsonValue &m : body.value(QLatin1String("messages")).toArray())
        if (isSystem(m.toObject()))
            system.append(m);
    params.remove(QLatin1String("messages"));
    params.insert(QStringLiteral("$system"), system);
    params.insert(QStringLiteral("$route"), route);
    return QCryptographicHash::hash(canonical(params), QCryptographicHash::Sha256);
}

QString semanticText(const QJsonObject &body)
{
    QStringList lines;
    for (const QJsonValue &m : body.value(QLatin1String("messages")).toArray()) {
        const QJsonObject message = m.toObject();
        if (isSystem(message))
            continue;
        if (message.contains(QLatin1String("tool_calls")) || message.value(QLatin1String("role")).toString() == u"tool")
            return {}; // tool exchanges are exact data, not prose: only the exact cache may match them
        QString text;
        if (!textOf(message.value(QLatin1String("content")), &text))
            return {};
        lines << message.value(QLatin1String("role")).toString() + QStringLiteral(": ") + text;
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace sb::CacheKey
