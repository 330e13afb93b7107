#include "control/HealthEventRecord.h"

namespace sb {

namespace {
bool outOfPool(const QString &state)
{
    return state == QLatin1String("ejected") || state == QLatin1String("drained") || state == QLatin1String("misconfigured");
}
} // namespace

EventRecord toEventRecord(const HealthEvent &event)
{
    EventRecord row;
    row.timeMs = event.wallMillis;
    row.channelId = event.channelId;
    row.fromState = event.from;
    row.toState = event.to;
    switch (event.type) {
    case HealthEvent::Type::Breaker:
        row.kind = EventKind::CircuitTransition;
        row.message = QStringLiteral("%1: circuit %2 → %3 (%4)").arg(event.channelName, event.from, event.to, event.reason);
        break;
    case HealthEvent::Type::Pool:
        row.kind = outOfPool(event.to) ? EventKind::Ejection : outOfPool(event.from) ? EventKind::Readmission
                                                                                                 : EventKind::Other;
        row.message = QStringLiteral("%1: %2 → %3 (%4)").arg(event.channelName, event.from, event.to, event.reason);
        break;
    case HealthEvent::Type::Failover:
        row.kind = EventKind::Failover;
        row.message = QStringLiteral("failover to %1 (%2)").arg(event.channelName, event.reason);
        break;
    case HealthEvent::Type::Panic:
        row.kind = EventKind::Other;
        row.message = QStringLiteral("panic: every channel was out, used %1 (%2)").arg(event.channelName, event.reason);
        break;
    case HealthEvent::Type::Budget:
        row.kind = EventKind::Budget;
        row.message = QStringLiteral("budget: %1").arg(event.reason);
        break;
    case HealthEvent::Type::Key:
        row.kind = event.to == QLatin1String("disabled") ? EventKind::KeyDisabled : EventKind::KeyCooldown;
        row.message = event.reason; // the key is named by label and masked form only
        break;
    case HealthEvent::Type::Bucket:
        row.kind = EventKind::BucketRefusal;
        row.message = event.reason;
        break;
    case HealthEvent::Type::Fleet:
        row.kind = EventKind::Other;
        row.message = QStringLiteral("fleet: %1").arg(event.reason);
        break;
    }
    row.providerId = event.providerId;
    row.keyId = event.keyId;
    return row;
}

} // namespace sb
