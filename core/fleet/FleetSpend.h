#pragma once

#include "common/Clock.h"

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QString>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>

namespace sb {

class RedisConnection;

// What the fleet has spent on each route this budget period, summed in Redis: each instance adds
// its own spend to one key per route and period with INCRBYFLOAT, and reads the fleet's total from
// the reply. Adds are summed locally and sent at most every kSendEvery, so a busy route costs
// Redis a few commands a second, not one per request (a command per request, one at a time, made
// an instance of a fleet serve a quarter fewer requests than one alone on two cores); spend that could not be sent (Redis gone) is
// kept and sent when it is back (a reply lost with the connection counts as not sent: spend counted
// twice errs toward the hard stop, never past it). claimAlert() lets one instance of the fleet
// raise a route's alert for a period.
class FleetSpend : public QObject {
public:
    // How long an add may wait to be sent: what the others see of this instance's spend lags by
    // at most this (plus the refresh they do each second).
    static constexpr std::chrono::milliseconds kSendEvery{100};

    FleetSpend(const Clock &clock, RedisConnection &redis, QByteArray prefix, QObject *parent = nullptr);
    ~FleetSpend() override;

    // Any thread. `period` names the budget period, e.g. "2026-12" for a monthly budget.
    void add(const QString &route, const QString &period, double usd);
    // Any thread: the fleet's total as Redis last returned it, plus what this instance added since.
    double total(const QString &route, const QString &period) const;
    // Owner thread: sends what is waiting now (on its own within kSendEvery of an add; call when Redis is back).
    void flush();
    // Owner thread: reads the fleet's total again, for an instance that adds little or nothing to
    // a route itself and must still see the others' spend reach the hard stop.
    void refresh(const QString &route, const QString &period);
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
        bool expirySet = false; // the key's TTL, set with its first add
    };
    QByteArray key(const QString &route, const QString &period) const;
    void send(const QByteArray &key);

    void scheduleSend();

    RedisConnection &m_redis;
    const QByteArray m_prefix;
    std::unique_ptr<Timer> m_sendTimer; // owner thread
    mutable std::mutex m_mutex;
    QHash<QByteArray, Route> m_routes; // by Redis key
    bool m_sendScheduled = false;      // a send is posted or the timer runs; adds meanwhile join it
};

} // namespace sb
