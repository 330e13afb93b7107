#include "frontends/openai_responses/ResponsesPassThrough.h"

#include "common/json/JsonObjectEdit.h"
#include "common/json/JsonObjectScan.h"
#include "common/json/JsonText.h"
#include "frontends/openai_responses/ResponseObject.h"
#include "providers/common/ProviderText.h"

#include <QJsonDocument>

namespace sb {

namespace {

// The held events are bounded: an upstream that sends nothing but preliminaries is not held whole.
constexpr qsizetype kMaxHeldBytes = 64 * 1024;

QByteArray jsonOf(const QJsonValue &value)
{
    if (value.isObject())
        return QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
    if (value.isArray())
        return QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact);
    if (value.isBool())
        return value.toBool() ? QByteArrayLiteral("true") : QByteArrayLiteral("false");
    if (value.isString()) {
        QByteArray out;
        appendJsonString(&out, value.toString());
        return out;
    }
    if (value.isDouble())
        return QByteArray::number(value.toDouble());
    return QByteArrayLiteral("null");
}

bool isLifecycle(QByteArrayView type)
{
    return type == "response.created" || type == "response.in_progress" || type == "response.queued"
        || type == "response.completed" || type == "response.incomplete" || type == "response.failed";
}

QByteArray sseBytes(QByteArrayView name, const QByteArray &data)
{
    QByteArray bytes;
    bytes.reserve(name.size() + data.size() + 16);
    if (!name.isEmpty())
        bytes.append("event: ").append(name).append('\n');
    bytes.append("data: ").append(data).append("\n\n");
    return bytes;
}

QByteArrayView unquoted(QByteArrayView raw)
{
    return raw.size() >= 2 && raw.front() == '"' && raw.back() == '"' ? raw.sliced(1, raw.size() - 2) : QByteArrayView();
}

} // namespace

QByteArray ResponsesPassThrough::rewrittenResponse(QByteArrayView response) const
{
    QByteArray id, model;
    appendJsonString(&id, m_frame.id);
    appendJsonString(&model, m_frame.model);
    const QByteArray store = jsonOf(m_frame.echo.value(QLatin1String("store")).isBool() ? m_frame.echo.value(QLatin1String("store")) : QJsonValue(true));
    const QByteArray previous = jsonOf(m_frame.echo.value(QLatin1String("previous_response_id")));
    JsonObjectScan scan;
    if (scan.scan(response)) {
        const JsonMemberValue members[] = {{"id", id}, {"model", model}, {"store", store}, {"previous_response_id", previous}};
        return withMembersSet(response, scan, members);
    }
    QJsonObject object = QJsonDocument::fromJson(response.toByteArray()).object();
    object.insert(QStringLiteral("id"), m_frame.id);
    object.insert(QStringLiteral("model"), m_frame.model);
    object.insert(QStringLiteral("store"), m_frame.echo.value(QLatin1String("store")).isBool() ? m_frame.echo.value(QLatin1String("store")) : QJsonValue(true));
    object.insert(QStringLiteral("previous_response_id"), m_frame.echo.value(QLatin1String("previous_response_id")).isString()
                                                              ? m_frame.echo.value(QLatin1String("previous_response_id"))
                                                              : QJsonValue(QJsonValue::Null));
    return compactJson(object);
}

QByteArray ResponsesPassThrough::rewrittenEvent(const QByteArray &data) const
{
    JsonObjectScan scan;
    if (scan.scan(data)) {
        if (const JsonObjectScan::Member *response = scan.find("response")) {
            const JsonMemberValue members[] = {{"response", rewrittenResponse(response->valueIn(data))}};
            return withMembersSet(data, scan, members);
        }
        return data;
    }
    QJsonObject event = QJsonDocument::fromJson(data).object();
    if (!event.value(QLatin1String("response")).isObject())
        return data;
    const QByteArray response = rewrittenResponse(compactJson(event.value(QLatin1String("response")).toObject()));
    event.insert(QStringLiteral("response"), QJsonDocument::fromJson(response).object());
    return compactJson(event);
}

QByteArray ResponsesPassThrough::answer(const QByteArray &body, QJsonObject *clientResponse) const
{
    const QByteArray out = rewrittenResponse(body);
    if (clientResponse)
        *clientResponse = QJsonDocument::fromJson(out).object();
    return out;
}

bool ResponsesPassThrough::isContent(QByteArrayView type, const QByteArray &data)
{
    if (type == "response.created" || type == "response.in_progress" || type == "response.queued"
        || type == "response.content_part.added" || type == "response.reasoning_summary_part.added" || type.isEmpty())
        return false;
    if (type == "response.output_item.added") {
        const QJsonObject item = QJsonDocument::fromJson(data).object().value(QLatin1String("item")).toObject();
        const QString itemType = item.value(QLatin1String("type")).toString();
        if (itemType == QLatin1String("message"))
            return !item.value(QLatin1String("content")).toArray().isEmpty();
        if (itemType == QLatin1String("reasoning"))
            return !item.value(QLatin1String("summary")).toArray().isEmpty();
        return true; // a function call, a custom tool call, another kind of item: the client acts on it
    }
    return true;
}

QByteArray ResponsesPassThrough::event(QByteArrayView name, const QByteArray &data)
{
    // The type is the data's own ("event:" repeats it, and some servers leave it out).
    JsonObjectScan scan;
    QByteArray type;
    int sequence = -1;
    if (scan.scan(data)) {
        if (const JsonObjectScan::Member *member = scan.find("type"))
            type = unquoted(member->valueIn(data)).toByteArray();
        if (const JsonObjectScan::Member *member = scan.find("sequence_number"))
            sequence = member->valueIn(data).toInt();
    } else {
        const QJsonObject object = QJsonDocument::fromJson(data).object();
        type = object.value(QLatin1String("type")).toString().toUtf8();
        sequence = object.value(QLatin1String("sequence_number")).toInt(-1);
    }
    if (type.isEmpty())
        type = name.toByteArray();
    if (type == "response.created" && !m_sent) { // a new attempt's stream: what the last one held is gone
        m_held.clear();
        m_response = {};
        m_done = {};
        m_itemIds.clear();
        m_lastSequence = -1;
    }

    QByteArray clientData = isLifecycle(type) ? rewrittenEvent(data) : data;
    if (isLifecycle(type)) {
        m_response = QJsonDocument::fromJson(clientData).object().value(QLatin1String("response")).toObject();
        if (type == "response.completed" || type == "response.incomplete")
            m_finished = m_response;
    } else if (type == "response.output_item.done") {
        m_done.append(QJsonDocument::fromJson(data).object().value(QLatin1String("item")));
    } else if (type == "response.output_item.added") {
        m_itemIds << QJsonDocument::fromJson(data).object().value(QLatin1String("item")).toObject().value(QLatin1String("id")).toString();
    }
    if (sequence >= 0)
        m_lastSequence = sequence;
    const QByteArray bytes = sseBytes(name, clientData);
    if (!m_sent && !isContent(type, data) && m_held.size() + bytes.size() <= kMaxHeldBytes) {
        m_held += bytes;
        return {};
    }
    m_sent = true;
    return std::exchange(m_held, {}) + bytes;
}

QByteArray ResponsesPassThrough::fail(const ApiError &error)
{
    QJsonObject response = m_response.isEmpty() ? ResponseObject::response(m_frame) : m_response;
    ResponseObject::fail(&response, error, m_done);
    m_response = response;
    const QJsonObject event{{QStringLiteral("type"), QStringLiteral("response.failed")},
                            {QStringLiteral("sequence_number"), m_lastSequence + 1},
                            {QStringLiteral("response"), response}};
    ++m_lastSequence;
    m_sent = true;
    return std::exchange(m_held, {}) + sseBytes("response.failed", compactJson(event));
}

} // namespace sb
