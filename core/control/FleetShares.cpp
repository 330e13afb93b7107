#include "control/FleetShares.h"

#include "fleet/FleetAllowance.h"
#include "fleet/FleetSpend.h"
#include "fleet/RedisConnection.h"
#include "routing/CostMeter.h"
#include "routing/RouteBudget.h"
#include "routing/Router.h"

#include <algorithm>
#include <cmath>

namespace sb {

// One provider limit's share: live while Redis answers and once a draw has been answered (before
// that, refusing would turn a fleet's start into 429s). An answer without a grant counts: the fleet
// is at its limit, and this instance's own bucket admitting meanwhile would let more through.
class FleetShares::Allowance final : public SharedAllowance {
public:
    Allowance(std::unique_ptr<FleetAllowance> allowance, std::shared_ptr<std::atomic<bool>> connected)
        : m_allowance(std::move(allowance)), m_connected(std::move(connected)) {}
    bool live() const override
    {
        return m_connected->load(std::memory_order_relaxed) && m_allowance->heard() && m_allowance->answering();
    }
    bool tryTake(int amount) override { return m_allowance->tryTake(amount); }
    void giveBack(int amount) override { m_allowance->giveBack(amount); }
    FleetAllowance &allowance() { return *m_allowance; }

private:
    std::unique_ptr<FleetAllowance> m_allowance;
    std::shared_ptr<std::atomic<bool>> m_connected;
};

class FleetShares::Spend final : public SharedSpend {
public:
    explicit Spend(std::unique_ptr<FleetSpend> spend) : m_spend(std::move(spend)) {}
    void add(const QString &route, const QString &period, double usd) override { m_spend->add(route, period, usd); }
    double total(const QString &route, const QString &period) const override { return m_spend->total(route, period); }
    FleetSpend &spend() { return *m_spend; }

private:
    std::unique_ptr<FleetSpend> m_spend;
};

FleetShares::FleetShares(const Clock &clock, Random &random, RedisConnection &redis, QByteArray prefix, int expectedInstances,
                         QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_random(random)
    , m_redis(redis)
    , m_prefix(std::move(prefix))
    , m_expectedInstances(std::max(1, expectedInstances))
    , m_connected(std::make_shared<std::atomic<bool>>(false))
{
    m_spend = std::make_shared<Spend>(std::make_unique<FleetSpend>(m_clock, m_redis, m_prefix));
}

FleetShares::~FleetShares() = default;

std::shared_ptr<FleetShares::Allowance> FleetShares::allowanceFor(const QByteArray &key, double perMinute, double burst)
{
    if (perMinute <= 0)
        return nullptr;
    // The limit and burst are in the key: instances mid-reload with different limits draw from
    // different buckets rather than refill one bucket at two rates.
    const QByteArray full = key + ':' + QByteArray::number(perMinute, 'g', 12) + ':' + QByteArray::number(burst, 'g', 12);
    if (const auto it = m_allowances.constFind(full); it != m_allowances.constEnd())
        return *it;
    FleetAllowance::Limit limit;
    limit.key = full;
    limit.perMinute = perMinute;
    limit.burst = std::max(1, int(std::floor(burst)));
    limit.chunk = FleetAllowance::chunkFor(perMinute, m_expectedInstances);
    auto allowance = std::make_shared<Allowance>(std::make_unique<FleetAllowance>(m_clock, m_random, m_redis, limit), m_connected);
    m_allowances.insert(full, allowance);
    if (m_connected->load())
        allowance->allowance().topUp();
    return allowance;
}

void FleetShares::apply(const EngineConfig &config, Router &router, CostMeter &meter)
{
    QHash<QByteArray, std::shared_ptr<Allowance>> used;
    for (const ProviderConfig &provider : config.providers) {
        const auto limiter = router.limiter(provider.id);
        if (!limiter)
            continue;
        const QByteArray base = m_prefix + "limit:" + provider.name.toUtf8();
        SharedLimits limits;
        const auto requests = allowanceFor(base + ":rpm", provider.requestsPerMinute, limiter->requestBucket().capacity());
        const auto tokens = allowanceFor(base + ":tpm", provider.tokensPerMinute, limiter->tokenBucket().capacity());
        limits.requests = requests;
        limits.tokens = tokens;
        for (const auto &a : {requests, tokens})
            if (a)
                used.insert(a->allowance().key(), a);
        limiter->share(std::move(limits));
    }
    // A limit no provider has any more: its held grants go with it.
    m_allowances = std::move(used);
    meter.share(m_spend);
}

void FleetShares::detach(Router &router, CostMeter &meter)
{
    const EngineConfigPtr config = router.config();
    for (const ProviderConfig &provider : config->providers)
        if (const auto limiter = router.limiter(provider.id))
            limiter->share({});
    meter.share(nullptr);
}

void FleetShares::setConnected(bool connected)
{
    m_connected->store(connected, std::memory_order_relaxed);
    if (connected)
        resync();
}

void FleetShares::resync()
{
    for (const auto &a : std::as_const(m_allowances))
        a->allowance().topUp();
    m_spend->spend().flush();
}

void FleetShares::refreshSpend(const EngineConfig &config, std::int64_t wallMs)
{
    for (const BudgetConfig &budget : config.budgets)
        m_spend->spend().refresh(budget.model, QString::number(RouteBudget::periodKey(budget.period, wallMs)));
}

void FleetShares::claimAlert(const QString &route, const QString &period, const QString &what, const QString &instance,
                             std::function<void(bool)> done)
{
    m_spend->spend().claimAlert(route, period, what, instance,
                                [done = std::move(done)](FleetSpend::Claim claim) { done(claim != FleetSpend::Claim::Taken); });
}

FleetShares::Stats FleetShares::stats() const
{
    Stats s;
    s.limits = int(m_allowances.size());
    for (const auto &a : m_allowances) {
        const FleetAllowance::Stats f = a->allowance().stats();
        s.granted += f.granted;
        s.taken += f.taken;
        s.refused += f.refused;
        s.draws += f.draws;
    }
    return s;
}

} // namespace sb
