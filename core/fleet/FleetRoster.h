#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace sb {

class RedisConnection;

// One instance as the fleet sees it: what /admin/fleet lists.
struct FleetInstance {
    QString id;
    QString version;
    QString configHash; // instances of one fleet should run one configuration
    std::int64_t startedWallMillis = 0;
    std::int64_t lastSeenWallMillis = 0;
    double requestsPerSecond = 0;
    QStringList openCircuits; // channel names

    QByteArray toJson() const;
    static std::optional<FleetInstance> fromJson(const QByteArray &json);
};

// Who is in the fleet: each instance announces itself every second under a key that expires after
// `ttl`, so an instance that stops (or loses Redis) drops out of everyone's list on its own.
// Listing walks the keys with SCAN (never KEYS, which would stall Redis for every other client).
class FleetRoster : public QObject {
public:
    FleetRoster(RedisConnection &redis, QByteArray prefix, std::chrono::milliseconds ttl = std::chrono::seconds(5),
                QObject *parent = nullptr);

    bool announce(const FleetInstance &self);
    // The instances whose announcements have not expired, sorted by id; an empty list when Redis
    // could not be asked.
    void list(std::function<void(std::vector<FleetInstance>)> done);

    // The ids of instances whose configuration differs from the one most of them run; every id
    // when no one configuration is run by more of them than any other.
    static QStringList divergentConfigs(const std::vector<FleetInstance> &instances);

private:
    void scan(QByteArray cursor, QList<QByteArray> keys, std::function<void(std::vector<FleetInstance>)> done);
    void fetch(const QList<QByteArray> &keys, std::function<void(std::vector<FleetInstance>)> done);

    RedisConnection &m_redis;
    const QByteArray m_prefix;
    const std::chrono::milliseconds m_ttl;
};

} // namespace sb
