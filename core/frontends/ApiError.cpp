#include "frontends/ApiError.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace sb {

QByteArray ApiError::toJson() const
{
    QJsonObject error{{QStringLiteral("message"), message}, {QStringLiteral("type"), type}};
    error.insert(QStringLiteral("param"), param.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(param));
    error.insert(QStringLiteral("code"), code.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(code));
    return QJsonDocument(QJsonObject{{QStringLiteral("error"), error}}).toJson(QJsonDocument::Compact);
}

} // namespace sb
