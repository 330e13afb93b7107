#include "net/ErrorBody.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

namespace sb {

QByteArray openAiErrorBody(const QString &message, const QString &type, const QString &code)
{
    QJsonObject error;
    error.insert(QStringLiteral("message"), message);
    error.insert(QStringLiteral("type"), type);
    error.insert(QStringLiteral("param"), QJsonValue::Null);
    error.insert(QStringLiteral("code"), code.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(code));
    QJsonObject root;
    root.insert(QStringLiteral("error"), error);
    return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

} // namespace sb
