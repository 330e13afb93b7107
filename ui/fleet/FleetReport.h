#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace sb {

// What /admin/fleet says, read once so the Fleet page and the banner never pick at JSON: whether
// this instance is in a fleet at all, whether its Redis answers, the instances Redis lists and the
// channel states the instance holds (its own and those it adopted from the fleet).
struct FleetReport {
    struct Instance {
        QString id;
        QString version;
        QString configHash;
        bool configDiffers = false;
        std::int64_t lastSeenWallMs = 0;
        double requestsPerSecond = 0.0;
        QStringList openCircuits;
    };
    struct Channel {
        QString name;
        QString breaker; // "closed", "open", "half_open"
        QString pool;    // "active", "ejected", "drained", …
    };

    bool configured = false; // false: this instance has no settings.fleet.redis_url
    bool connected = false;
    QString fleet;
    QString instance;
    QString redis; // the URL as /admin/fleet gives it: any password masked
    QString lastError;
    std::int64_t disconnectedSinceWallMs = 0;
    bool configDiffers = false;
    std::vector<Instance> instances;
    std::vector<Channel> channels;

    static FleetReport fromJson(const QJsonObject &body);
};

} // namespace sb
