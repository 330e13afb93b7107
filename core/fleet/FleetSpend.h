#pragma once

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QString>

#include <functional>
#include <mutex>

namespace sb {

class RedisConnection;

// What the fleet has spent on each route this budget period, summed in Redis: each instance adds
// its own spend to one key per route and period with INCRBYFLOAT, and reads the fleet's total from
// the reply. Adds made while one is in flight are summed locally and sent as one, so a busy route
// costs one command at a time, not one per request; spend that could not be sent (Redis gone) is
// kept and sent when it is back (a reply lost with the connection counts as not sent: spend counted
// twice errs toward the hard stop, never past it). claimAlert() lets one instance of the fleet
// raise a route's alert for a period.
class FleetSpend : public QObject {
public:
    FleetSpend(RedisConnection &redis, QByteArray prefix, QObject *parent = nullptr);

    // Any thread. `period` names the budget period, e.g. "2026-12" for a monthly budget.
    void add(const QString &route, const QString &period, double usd);
    // Any thread: the fleet's total as Redis last returned it, plus what this instance added since.
    double total(const QString &route, const QString &period) const;
    // Owner thread: sends what is waiting (on its own after each add; call when Redis is back).
    void flush();
    enum class Claim { Won, Taken, Unknown };
    // Owner thread: Won for the one instance whose claim of (route, period, what) came first; every
    // other instance, and this one again, gets Taken; Unknown when Redis could not be asked (the
    // caller then alerts on its own: an alert twice beats none).
    void claimAlert(const QString &route, const QString &period, const QString &what, const QString &instance,
                    std::function<void(Claim)> onClaim);

private:
    struct Route {
        double fleetTotal = 0; // as last returned by Redis
        double unsent = 0;     // added here, not yet sent
        double inFlight = 0;   // sent, reply not yet in
    };
    QByteArray key(const QString &route, const QString &period) const;
    void send(const QByteArray &key);

    RedisConnection &m_redis;
    const QByteArray m_prefix;
    mutable std::mutex m_mutex;
    QHash<QByteArray, Route> m_routes; // by Redis key
};

} // namespace sb
