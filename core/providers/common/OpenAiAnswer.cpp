#include "providers/common/OpenAiAnswer.h"

#include "common/json/JsonText.h"
#include "common/json/JsonObjectEdit.h"
#include "providers/common/ProviderText.h"

#include <QVarLengthArray>

namespace sb {

namespace {

// A positive integer written plainly ("1718000000"): the only "created" passed through as it is.
bool isPlainPositiveInteger(QByteArrayView raw)
{
    if (raw.isEmpty() || raw.size() > 18 || raw.front() < '1' || raw.front() > '9')
        return false;
    for (char c : raw)
        if (c < '0' || c > '9')
            return false;
    return true;
}

} // namespace

OpenAiAnswer OpenAiAnswer::fromObject(QJsonObject object)
{
    OpenAiAnswer answer;
    answer.m_object = std::move(object);
    return answer;
}

std::optional<OpenAiAnswer> OpenAiAnswer::passThrough(const QByteArray &body, const JsonObjectScan &scan)
{
    OpenAiAnswer answer;
    answer.m_passThrough = true;
    answer.m_body = body;
    answer.m_scan = scan;
    if (const JsonObjectScan::Member *created = scan.find("created")) {
        const QByteArrayView raw = created->valueIn(body);
        if (!isPlainPositiveInteger(raw))
            return std::nullopt;
    } else {
        answer.m_needsCreated = true;
    }
    return answer;
}

QByteArray OpenAiAnswer::toJson(const QString &model, qint64 nowSeconds) const
{
    if (!m_passThrough) {
        QJsonObject object = m_object;
        object.insert(QLatin1String("model"), model);
        if (object.value(QLatin1String("created")).toInteger() <= 0)
            object.insert(QLatin1String("created"), nowSeconds);
        return compactJson(object);
    }
    QByteArray modelJson;
    appendJsonString(&modelJson, model);
    QVarLengthArray<JsonMemberValue, 2> members{{"model", modelJson}};
    if (m_needsCreated)
        members.append({"created", QByteArray::number(nowSeconds)});
    return withMembersSet(m_body, m_scan, members);
}

} // namespace sb
