#include "common/json/ClientBody.h"

#include <QJsonDocument>

namespace sb {

ClientBody::ClientBody(QJsonObject object, QByteArray clientBytes)
    : m_state(std::make_shared<State>(State{std::move(clientBytes), std::nullopt, std::move(object), {}}))
{
}

ClientBody::ClientBody(QByteArray clientBytes, JsonObjectScan scan)
    : m_state(std::make_shared<State>(State{std::move(clientBytes), std::move(scan), std::nullopt, {}}))
{
}

ClientBody ClientBody::deferred(std::function<QJsonObject()> make)
{
    ClientBody body;
    body.m_state = std::make_shared<State>(State{{}, std::nullopt, std::nullopt, std::move(make)});
    return body;
}

const QJsonObject &ClientBody::object() const
{
    static const QJsonObject none;
    if (!m_state)
        return none;
    if (!m_state->object && m_state->make) {
        m_state->object = m_state->make();
        m_state->make = nullptr;
    } else if (!m_state->object) {
        // The scan accepts a subset of what Qt's parser accepts (tst_JsonObjectScan), so this parse
        // cannot fail on bytes the scan let through.
        m_state->object = QJsonDocument::fromJson(m_state->clientBytes).object();
    }
    return *m_state->object;
}

QJsonObject &ClientBody::edit()
{
    QJsonObject object = this->object();
    m_state = std::make_shared<State>(State{{}, std::nullopt, std::move(object), {}});
    return *m_state->object;
}

const QByteArray &ClientBody::clientBytes() const
{
    static const QByteArray none;
    return m_state ? m_state->clientBytes : none;
}

const JsonObjectScan *ClientBody::scan() const
{
    return m_state && m_state->scan ? &*m_state->scan : nullptr;
}

} // namespace sb
