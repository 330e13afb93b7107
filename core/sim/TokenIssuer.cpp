#include "sim/TokenIssuer.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrlQuery>

namespace sb::sim {

namespace {

QByteArray field(const QByteArray &query, const QByteArray &body, const char *name)
{
    for (const QByteArray *form : {&query, &body}) {
        const QUrlQuery items(QString::fromUtf8(*form));
        if (items.hasQueryItem(QLatin1String(name)))
            return items.queryItemValue(QLatin1String(name), QUrl::FullyDecoded).toUtf8();
    }
    return {};
}

SimReply oauthError(int status, const char *error, const char *description)
{
    SimReply reply;
    reply.status = status;
    reply.headers.add("content-type", "application/json");
    reply.body = QJsonDocument(QJsonObject{{"error", error}, {"error_description", description}}).toJson(QJsonDocument::Compact);
    return reply;
}

} // namespace

TokenIssuer::TokenIssuer(const std::vector<KeySpec> &keys, int lifetimeSeconds)
    : m_anyPair(keys.empty()), m_lifetime(std::max(1, lifetimeSeconds))
{
    for (const KeySpec &key : keys)
        if (!key.clientSecret.isEmpty())
            m_secrets[key.secret] = key.clientSecret;
}

SimReply TokenIssuer::exchange(const QByteArray &query, const QByteArray &body, double now)
{
    const QByteArray grant = field(query, body, "grant_type");
    const QByteArray id = field(query, body, "client_id");
    const QByteArray secret = field(query, body, "client_secret");
    std::lock_guard lock(m_mutex);
    ++m_stats.exchanges;
    if (grant != "client_credentials") {
        ++m_stats.refused;
        return oauthError(400, "unsupported_grant_type", "unsupported grant type");
    }
    if (!m_anyPair) {
        const auto known = m_secrets.find(id);
        if (known == m_secrets.end()) {
            ++m_stats.refused;
            return oauthError(401, "invalid_client", "unknown client id");
        }
        if (known->second != secret) {
            ++m_stats.refused;
            return oauthError(401, "invalid_client", "Client authentication failed");
        }
    } else if (id.isEmpty() || secret.isEmpty()) {
        ++m_stats.refused;
        return oauthError(401, "invalid_client", "unknown client id");
    }
    ++m_stats.granted;
    // Shaped like Baidu's: "24." + 32 hex digits + the lifetime + a serial.
    const QByteArray serial = QByteArray::number(m_stats.granted);
    const QByteArray digest = QCryptographicHash::hash(id + '\n' + serial, QCryptographicHash::Md5).toHex();
    const QByteArray token = "24." + digest + '.' + QByteArray::number(m_lifetime) + '.' + serial + "-sim";
    m_issued[token] = Issued{id, now + m_lifetime, false};
    SimReply reply;
    reply.headers.add("content-type", "application/json");
    reply.body = QJsonDocument(QJsonObject{{"refresh_token", QString::fromLatin1("25." + digest + '.' + serial)},
                                           {"expires_in", m_lifetime},
                                           {"scope", "public brain_all_scope wenxinworkshop_mgr"},
                                           {"access_token", QString::fromLatin1(token)}})
                     .toJson(QJsonDocument::Compact);
    return reply;
}

TokenIssuer::Check TokenIssuer::check(const QByteArray &token, double now, QByteArray *apiKey) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_issued.find(token);
    if (it == m_issued.end())
        return Check::NotIssued;
    if (it->second.revoked)
        return Check::Revoked;
    if (now >= it->second.expiresAt)
        return Check::Expired;
    if (apiKey)
        *apiKey = it->second.apiKey;
    return Check::Valid;
}

void TokenIssuer::revokeAll()
{
    std::lock_guard lock(m_mutex);
    for (auto &[token, issued] : m_issued)
        issued.revoked = true;
}

void TokenIssuer::expireAll()
{
    std::lock_guard lock(m_mutex);
    for (auto &[token, issued] : m_issued)
        issued.expiresAt = -1e300;
}

TokenIssuer::Stats TokenIssuer::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

} // namespace sb::sim
