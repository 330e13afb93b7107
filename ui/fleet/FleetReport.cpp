#include "fleet/FleetReport.h"

#include <QJsonArray>

namespace sb {

FleetReport FleetReport::fromJson(const QJsonObject &body)
{
    FleetReport report;
    // A body without a fleet name is an instance that is not in one ({"configured": false}).
    report.fleet = body.value(QStringLiteral("fleet")).toString();
    report.configured = body.value(QStringLiteral("configured")).toBool(!report.fleet.isEmpty());
    if (!report.configured)
        return report;
    report.connected = body.value(QStringLiteral("connected")).toBool();
    report.instance = body.value(QStringLiteral("instance")).toString();
    report.redis = body.value(QStringLiteral("redis")).toString();
    report.lastError = body.value(QStringLiteral("last_error")).toString();
    report.disconnectedSinceWallMs = std::int64_t(body.value(QStringLiteral("disconnected_since_ms")).toDouble());
    report.configDiffers = body.value(QStringLiteral("config_differs")).toBool();
    for (const QJsonValue &value : body.value(QStringLiteral("instances")).toArray()) {
        const QJsonObject o = value.toObject();
        Instance i;
        i.id = o.value(QStringLiteral("id")).toString();
        i.version = o.value(QStringLiteral("version")).toString();
        i.configHash = o.value(QStringLiteral("config_hash")).toString();
        i.configDiffers = o.value(QStringLiteral("config_differs")).toBool();
        i.lastSeenWallMs = std::int64_t(o.value(QStringLiteral("last_seen_ms")).toDouble());
        i.requestsPerSecond = o.value(QStringLiteral("requests_per_second")).toDouble();
        for (const QJsonValue &name : o.value(QStringLiteral("open_circuits")).toArray())
            i.openCircuits << name.toString();
        report.instances.push_back(std::move(i));
    }
    for (const QJsonValue &value : body.value(QStringLiteral("channels")).toArray()) {
        const QJsonObject o = value.toObject();
        report.channels.push_back(Channel{o.value(QStringLiteral("name")).toString(), o.value(QStringLiteral("breaker")).toString(),
                                          o.value(QStringLiteral("pool")).toString()});
    }
    return report;
}

} // namespace sb
