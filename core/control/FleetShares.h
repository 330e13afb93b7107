#pragma once

#include "common/Clock.h"
#include "common/Random.h"
#include "model/EngineConfig.h"
#include "routing/SharedAllowance.h"
#include "routing/SharedSpend.h"

#include <QByteArray>
#include <QHash>
#include <QObject>

#include <functional>
#include <memory>

namespace sb {

class FleetAllowance;
class FleetSpend;
class RedisConnection;
class Router;
class CostMeter;

// The fleet's share of every provider limit and route budget, handed to the engine's limiters and
// cost meter (SharedAllowance, SharedSpend). One FleetAllowance per provider limit that is set,
// kept across configuration changes while the limit stays the same; live only while Redis answers,
// so a Redis that goes away hands each limit back to the provider's local buckets within a second.
// Owned by the control thread; the engine's workers call through the shares.
class FleetShares : public QObject {
public:
    // `expectedInstances` sizes the chunks each instance draws (FleetAllowance::chunkFor).
    FleetShares(const Clock &clock, Random &random, RedisConnection &redis, QByteArray prefix, int expectedInstances,
                QObject *parent = nullptr);
    ~FleetShares() override;

    // Shares the limits `config` sets with the router's limiters, and the budgets with the meter.
    void apply(const EngineConfig &config, Router &router, CostMeter &meter);
    // Takes every share back: the engine runs on its own limits and spend again.
    void detach(Router &router, CostMeter &meter);
    // Redis is answering (or not): the shares go live (or hand back to local state).
    void setConnected(bool connected);
    // Draws what each limit is short of and sends the spend that waited (after a reconnect).
    void resync();
    // Reads the fleet's spend of every route with a budget again (each second).
    void refreshSpend(const EngineConfig &config, std::int64_t wallMs);

    // Whether this instance raises a budget alert for the fleet: true for the first to claim it, and
    // when Redis could not be asked (an alert twice beats none).
    void claimAlert(const QString &route, const QString &period, const QString &what, const QString &instance,
                    std::function<void(bool raise)> done);

    struct Stats {
        int limits = 0;
        std::uint64_t granted = 0, taken = 0, refused = 0, draws = 0;
    };
    Stats stats() const;

private:
    class Allowance;
    class Spend;
    std::shared_ptr<Allowance> allowanceFor(const QByteArray &key, double perMinute, double burst);

    const Clock &m_clock;
    Random &m_random;
    RedisConnection &m_redis;
    const QByteArray m_prefix;
    const int m_expectedInstances;
    QHash<QByteArray, std::shared_ptr<Allowance>> m_allowances; // by bucket key (limit and burst in it)
    std::shared_ptr<Spend> m_spend;
    std::shared_ptr<std::atomic<bool>> m_connected;
};

} // namespace sb
