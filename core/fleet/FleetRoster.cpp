#include "fleet/FleetRoster.h"

#include "fleet/RedisConnection.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace sb {

QByteArray FleetInstance::toJson() const
{
    return QJsonDocument(QJsonObject{{QStringLiteral("id"), id},
                                     {QStringLiteral("version"), version},
                                     {QStringLiteral("config_hash"), configHash},
                                     {QStringLiteral("started_ms"), qint64(startedWallMillis)},
                                     {QStringLiteral("last_seen_ms"), qint64(lastSeenWallMillis)},
                                     {QStringLiteral("requests_per_second"), requestsPerSecond},
                                     {QStringLiteral("open_circuits"), QJsonArray::fromStringList(openCircuits)}})
        .toJson(QJsonDocument::Compact);
}

std::optional<FleetInstance> FleetInstance::fromJson(const QByteArray &json)
{
    const QJsonDocument document = QJsonDocument::fromJson(json);
    if (!document.isObject())
        return std::nullopt;
    const QJsonObject o = document.object();
    FleetInstance instance;
    instance.id = o.value(QStringLiteral("id")).toString();
    if (instance.id.isEmpty())
        return std::nullopt;
    instance.version = o.value(QStringLiteral("version")).toString();
    instance.configHash = o.value(QStringLiteral("config_hash")).toString();
    instance.startedWallMillis = o.value(QStringLiteral("started_ms")).toInteger();
    instance.lastSeenWallMillis = o.value(QStringLiteral("last_seen_ms")).toInteger();
    instance.requestsPerSecond = o.value(QStringLiteral("requests_per_second")).toDouble();
    for (const QJsonValue &name : o.value(QStringLiteral("open_circuits")).toArray())
        instance.openCircuits << name.toString();
    return instance;
}

FleetRoster::FleetRoster(RedisConnection &redis, QByteArray prefix, std::chrono::milliseconds ttl, QObject *parent)
    : QObject(parent), m_redis(redis), m_prefix(std::move(prefix)), m_ttl(ttl)
{
}

bool FleetRoster::announce(const FleetInstance &self)
{
    return m_redis.command({"SET", m_prefix + "instance:" + self.id.toUtf8(), self.toJson(), "PX", QByteArray::number(qint64(m_ttl.count()))});
}

void FleetRoster::list(std::function<void(std::vector<FleetInstance>)> done)
{
    scan("0", {}, std::move(done));
}

void FleetRoster::scan(QByteArray cursor, QList<QByteArray> keys, std::function<void(std::vector<FleetInstance>)> done)
{
    const bool sent = m_redis.command({"SCAN", cursor, "MATCH", m_prefix + "instance:*", "COUNT", "200"},
                                      [this, keys, done](const RedisReply &reply) mutable {
                                          if (reply.type != RedisReply::Type::Array || reply.elements.size() != 2) {
                                              done({});
                                              return;
                                          }
                                          for (const RedisReply &key : reply.elements[1].elements)
                                              keys << key.text;
                                          const QByteArray next = reply.elements[0].text;
                                          if (next == "0")
                                              fetch(keys, std::move(done));
                                          else
                                              scan(next, std::move(keys), std::move(done));
                                      });
    if (!sent)
        done({});
}

void FleetRoster::fetch(const QList<QByteArray> &keys, std::function<void(std::vector<FleetInstance>)> done)
{
    if (keys.isEmpty()) {
        done({});
        return;
    }
    QList<QByteArray> args{"MGET"};
    args += keys;
    const bool sent = m_redis.command(args, [done](const RedisReply &reply) {
        std::vector<FleetInstance> instances;
        for (const RedisReply &value : reply.elements)
            if (auto instance = FleetInstance::fromJson(value.text))
                instances.push_back(std::move(*instance)); // an instance that expired between SCAN and MGET is Nil
        std::sort(instances.begin(), instances.end(), [](const FleetInstance &a, const FleetInstance &b) { return a.id < b.id; });
        done(std::move(instances));
    });
    if (!sent)
        done({});
}

QStringList FleetRoster::divergentConfigs(const std::vector<FleetInstance> &instances)
{
    QHash<QString, int> votes;
    for (const FleetInstance &instance : instances)
        ++votes[instance.configHash];
    QString majority;
    int most = 0;
    bool tied = false;
    for (auto it = votes.cbegin(); it != votes.cend(); ++it) {
        if (it.value() > most) {
            majority = it.key();
            most = it.value();
            tied = false;
        } else if (it.value() == most) {
            tied = true;
        }
    }
    // With no configuration run by more instances than any other, none of them is the fleet's:
    // naming one side as the odd one out would be a guess, so every instance is named.
    QStringList divergent;
    for (const FleetInstance &instance : instances)
        if (votes.size() > 1 && (tied || instance.configHash != majority))
            divergent << instance.id;
    return divergent;
}

} // namespace sb
