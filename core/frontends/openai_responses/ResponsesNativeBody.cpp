#include "frontends/openai_responses/ResponsesNativeBody.h"

#include "common/json/JsonObjectEdit.h"
#include "common/json/JsonObjectScan.h"
#include "providers/common/ProviderText.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace sb {

QJsonValue ResponsesNativeBody::sendable(const QJsonValue &storedItem)
{
    QJsonObject item = storedItem.toObject();
    if (item.isEmpty())
        return QJsonValue(QJsonValue::Null);
    if (item.value(QLatin1String("type")).toString() == QLatin1String("reasoning")
        && !item.value(QLatin1String("encrypted_content")).isString())
        return QJsonValue(QJsonValue::Null);
    item.remove(QStringLiteral("id"));
    return item;
}

QByteArray ResponsesNativeBody::withHistory(const QByteArray &clientBytes, const QJsonArray &history, const QJsonArray &input)
{
    if (history.isEmpty())
        return clientBytes;
    QJsonArray items;
    for (const QJsonValue &stored : history)
        if (const QJsonValue item = sendable(stored); item.isObject())
            items.append(item);
    for (const QJsonValue &item : input)
        items.append(item);
    const QByteArray itemsJson = QJsonDocument(items).toJson(QJsonDocument::Compact);
    JsonObjectScan scan;
    if (scan.scan(clientBytes)) {
        const JsonMemberValue members[] = {{"input", itemsJson}, {"previous_response_id", QByteArrayLiteral("null")}};
        return withMembersSet(clientBytes, scan, members);
    }
    QJsonObject body = QJsonDocument::fromJson(clientBytes).object();
    body.insert(QStringLiteral("input"), items);
    body.insert(QStringLiteral("previous_response_id"), QJsonValue(QJsonValue::Null));
    return compactJson(body);
}

} // namespace sb
