#pragma once

#include "control/EventLog.h"
#include "control/FleetStatus.h"
#include "control/MetricsSnapshot.h"

#include <QString>

#include <functional>
#include <optional>

class QJsonObject;

class QObject;

namespace sb {

// What the admin API needs of the engine beyond the shared routing state: the Gateway implements
// it. Every member is thread-safe (the admin API runs on the workers).
class AdminControls {
public:
    virtual ~AdminControls() = default;
    virtual MetricsSnapshot snapshot() const = 0;
    virtual const EventLog &eventLog() const = 0;
    virtual QString baseUrl() const = 0;
    // False when the channel is unknown, a manual probe of it is running, or the engine is stopped.
    virtual bool probeNow(int channelId) = 0;
    // Re-reads the stored configuration on the engine's thread, then calls `reply` on
    // `replyContext`'s thread (not at all if that object is gone by then).
    virtual void requestReload(QObject *replyContext, std::function<void(bool ok, const QString &message)> reply) = 0;
    // Takes an API key the provider refused back into rotation (its stored refusal is forgotten), on
    // the engine's thread; then `reply` as for requestReload.
    virtual void requestKeyReenable(int keyId, QObject *replyContext, std::function<void(bool ok, const QString &message)> reply) = 0;
    // The fleet this instance is part of, described for /admin/fleet, then `reply` as above.
    virtual void requestFleet(QObject *replyContext, std::function<void(const QJsonObject &)> reply) = 0;
    virtual std::optional<FleetStatus> fleetStatus() const = 0; // nullopt: no fleet
};

} // namespace sb
