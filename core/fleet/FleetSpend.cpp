#include "fleet/FleetSpend.h"

#include "fleet/RedisConnection.h"

#include <utility>

namespace sb {

namespace {

// A period's keys outlive it long enough for late readers, then Redis drops them.
constexpr auto kPeriodKeyTtlSeconds = 100 * 24 * 3600;

} // namespace

FleetSpend::FleetSpend(const Clock &clock, RedisConnection &redis, QByteArray prefix, QObject *parent)
    : QObject(parent)
    , m_redis(redis)
    , m_prefix(std::move(prefix))
    , m_sendTimer(clock.createTimer([this] {
        {
            std::lock_guard lock(m_mutex);
            m_sendScheduled = false;
        }
        flush();
    }))
{
}

FleetSpend::~FleetSpend() = default;

QByteArray FleetSpend::key(const QString &route, const QString &period) const
{
    return m_prefix + "spend:" + route.toUtf8() + ':' + period.toUtf8();
}

void FleetSpend::add(const QString &route, const QString &period, double usd)
{
    if (usd <= 0)
        return;
    const QByteArray k = key(route, period);
    {
        std::lock_guard lock(m_mutex);
        m_routes[k].unsent += usd;
        if (m_sendScheduled)
            return; // the send on its way takes this too
        m_sendScheduled = true;
    }
    QMetaObject::invokeMethod(this, [this] { scheduleSend(); }, Qt::QueuedConnection);
}

void FleetSpend::scheduleSend()
{
    if (!m_sendTimer->isActive())
        m_sendTimer->start(kSendEvery);
}

double FleetSpend::total(const QString &route, const QString &period) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_routes.constFind(key(route, period));
    return it == m_routes.constEnd() ? 0.0 : it->fleetTotal + it->inFlight + it->unsent;
}

void FleetSpend::flush()
{
    QList<QByteArray> keys;
    {
        std::lock_guard lock(m_mutex);
        keys = m_routes.keys();
    }
    for (const QByteArray &k : keys)
        send(k);
}

void FleetSpend::send(const QByteArray &k)
{
    double amount = 0;
    {
        std::lock_guard lock(m_mutex);
        Route &route = m_routes[k];
        if (route.inFlight > 0 || route.unsent <= 0)
            return; // the reply in flight sends the rest
        amount = route.unsent;
    }
    const bool sent = m_redis.command({"INCRBYFLOAT", k, QByteArray::number(amount, 'g', 17)}, [this, k, amount](const RedisReply &reply) {
        bool more = false;
        {
            std::lock_guard lock(m_mutex);
            Route &route = m_routes[k];
            route.inFlight = 0;
            if (reply.type == RedisReply::Type::String)
                route.fleetTotal = reply.text.toDouble();
            else
                route.unsent += amount; // not counted: send it again when Redis is back
            more = route.unsent > 0 && reply.type == RedisReply::Type::String;
        }
        bool setExpiry = false;
        bool schedule = false;
        {
            std::lock_guard lock(m_mutex);
            if (reply.type == RedisReply::Type::String)
                setExpiry = !std::exchange(m_routes[k].expirySet, true);
            // What was added meanwhile goes with the next paced send, not at once.
            schedule = more && !std::exchange(m_sendScheduled, true);
        }
        if (setExpiry)
            m_redis.command({"EXPIRE", k, QByteArray::number(kPeriodKeyTtlSeconds)});
        if (schedule)
            scheduleSend();
    });
    if (!sent)
        return;
    std::lock_guard lock(m_mutex);
    Route &route = m_routes[k];
    route.unsent -= amount;
    route.inFlight = amount;
}

void FleetSpend::refresh(const QString &route, const QString &period)
{
    const QByteArray k = key(route, period);
    m_redis.command({"GET", k}, [this, k](const RedisReply &reply) {
        if (reply.type != RedisReply::Type::String)
            return; // nothing spent yet, or Redis went away: the last total stands
        std::lock_guard lock(m_mutex);
        Route &route = m_routes[k];
        if (route.inFlight == 0) // an add in flight brings a newer total with its reply
            route.fleetTotal = reply.text.toDouble();
    });
}

void FleetSpend::claimAlert(const QString &route, const QString &period, const QString &what, const QString &instance,
                            std::function<void(Claim)> onClaim)
{
    const QByteArray k = key(route, period) + ":alert:" + what.toUtf8();
    const bool sent = m_redis.command({"SET", k, instance.toUtf8(), "NX", "EX", QByteArray::number(kPeriodKeyTtlSeconds)},
                                      [onClaim](const RedisReply &reply) {
                                          if (reply.isError())
                                              onClaim(Claim::Unknown);
                                          else
                                              onClaim(reply.type == RedisReply::Type::Status && reply.text == "OK" ? Claim::Won : Claim::Taken);
                                      });
    if (!sent)
        onClaim(Claim::Unknown);
}

} // namespace sb
