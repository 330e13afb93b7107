#include "routing/CostMeter.h"

#include <QDateTime>

namespace sb {

namespace {

QString usd(double value)
{
    return QStringLiteral("US$%1").arg(value, 0, 'f', value < 1.0 ? 4 : 2);
}

QString periodWord(BudgetPeriod period)
{
    return period == BudgetPeriod::Day ? QStringLiteral("daily") : QStringLiteral("monthly");
}

HealthEvent budgetEvent(const QString &route, const QString &to, const QString &reason, qint64 wallMs, Clock::TimePoint now)
{
    HealthEvent e;
    e.type = HealthEvent::Type::Budget;
    e.channelName = route;
    e.from = QStringLiteral("within_budget");
    e.to = to;
    e.reason = reason;
    e.at = now;
    e.wallMillis = wallMs;
    return e;
}

} // namespace

const ModelPrice *CostMeter::findPrice(const std::vector<ModelPrice> &prices, const QString &upstreamModel, const QString &logicalModel)
{
    for (const auto &p : prices)
        if (p.model == upstreamModel)
            return &p;
    for (const auto &p : prices)
        if (p.model.compare(upstreamModel, Qt::CaseInsensitive) == 0)
            return &p;
    const ModelPrice *best = nullptr;
    for (const auto &p : prices) {
        if (p.model.isEmpty() || upstreamModel.size() <= p.model.size() || !upstreamModel.startsWith(p.model, Qt::CaseInsensitive))
            continue;
        const QChar next = upstreamModel.at(p.model.size());
        if ((next == QLatin1Char('-') || next == QLatin1Char('@')) && (!best || p.model.size() > best->model.size()))
            best = &p;
    }
    if (best)
        return best;
    for (const auto &p : prices)
        if (p.model == logicalModel)
            return &p;
    return nullptr;
}

QString RequestCost::note() const
{
    if (usageMissing)
        return QStringLiteral("the provider reported no token usage");
    if (!known)
        return QStringLiteral("no price for \"%1\"; add it under prices").arg(unpricedModel);
    return QString();
}

RequestCost CostMeter::cost(const std::vector<ModelPrice> &prices, const QString &upstreamModel, const QString &logicalModel,
                            const TokenUsage &usage, bool answered)
{
    RequestCost out;
    if (usage.promptTokens < 0 && usage.completionTokens < 0) {
        if (answered) {
            out.known = false;
            out.usageMissing = true;
        }
        return out;
    }
    const int in = std::max(0, usage.promptTokens);
    const int outTokens = std::max(0, usage.completionTokens);
    if (in == 0 && outTokens == 0)
        return out;
    const ModelPrice *price = findPrice(prices, upstreamModel, logicalModel);
    if (!price) {
        out.known = false;
        out.unpricedModel = upstreamModel.isEmpty() ? logicalModel : upstreamModel;
        return out;
    }
    // The cache counts are parts of the prompt; a provider that claims more cached tokens than
    // prompt tokens is trusted no further than the prompt.
    const int read = std::min(in, std::max(0, usage.cacheReadTokens));
    const int write = std::min(in - read, std::max(0, usage.cacheWriteTokens));
    const int uncached = in - read - write;
    out.usd = (double(uncached) * price->inputUsdPerM + double(read) * price->cacheReadPrice()
               + double(write) * price->cacheWritePrice() + double(outTokens) * price->outputUsdPerM)
        / 1e6;
    return out;
}

void CostMeter::rollStats(qint64 wallMs)
{
    const qint64 day = RouteBudget::periodKey(BudgetPeriod::Day, wallMs);
    if (day != m_statsDay) {
        m_statsDay = day;
        m_unpricedToday = 0;
        m_refusedToday = 0;
    }
}

std::optional<CostMeter::Refusal> CostMeter::refusal(const QString &route, const BudgetConfig *budget, qint64 wallMs)
{
    if (!budget || budget->hardLimitUsd <= 0)
        return std::nullopt;
    std::lock_guard lock(m_mutex);
    const double fleetSpent = fleetSpentLocked(route, budget->period, wallMs);
    const auto it = m_routes.find(route);
    const RouteBudget none;
    const RouteBudget &state = it == m_routes.end() ? none : it->second;
    if (!state.overHardLimit(*budget, wallMs, fleetSpent))
        return std::nullopt;
    rollStats(wallMs);
    ++m_refusedToday;
    const qint64 endMs = RouteBudget::periodEndMs(budget->period, wallMs);
    Refusal r;
    r.retryAfterMs = std::max<qint64>(1000, endMs - wallMs);
    r.message = QStringLiteral("The %1 budget of route \"%2\" is spent (%3 of its %4 hard limit). Requests for \"%2\" are refused "
                               "until the budget resets at %5 UTC; raise the limit in Switchboard's budget settings to continue now.")
                    .arg(periodWord(budget->period), route, usd(std::max(fleetSpent, state.spent(budget->period, wallMs))), usd(budget->hardLimitUsd),
                         QDateTime::fromMSecsSinceEpoch(endMs, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    return r;
}

std::vector<HealthEvent> CostMeter::record(const QString &route, const RequestCost &cost, const BudgetConfig *budget, qint64 wallMs,
                                           Clock::TimePoint now)
{
    std::vector<HealthEvent> events;
    std::lock_guard lock(m_mutex);
    rollStats(wallMs);
    if (!cost.known)
        ++m_unpricedToday;
    RouteBudget &state = m_routes[route];
    state.add(cost.usd, wallMs);
    if (!budget)
        return events;
    if (m_fleet && cost.usd > 0)
        m_fleet->add(route, QString::number(RouteBudget::periodKey(budget->period, wallMs)), cost.usd);
    const double fleetSpent = fleetSpentLocked(route, budget->period, wallMs);
    const double spent = std::max(fleetSpent, state.spent(budget->period, wallMs));
    if (state.takeSoftAlert(*budget, wallMs, fleetSpent))
        events.push_back(budgetEvent(route, QStringLiteral("over_soft_limit"),
                                     QStringLiteral("route \"%1\" has spent %2 of its %3 alert limit (%4 budget)")
                                         .arg(route, usd(spent), usd(budget->softLimitUsd), periodWord(budget->period)),
                                     wallMs, now));
    if (state.takeHardAlert(*budget, wallMs, fleetSpent))
        events.push_back(budgetEvent(route, QStringLiteral("hard_stop"),
                                     QStringLiteral("route \"%1\" reached its %2 hard limit (%3 of %4); its requests get 429 until %5 UTC")
                                         .arg(route, periodWord(budget->period), usd(spent), usd(budget->hardLimitUsd),
                                              QDateTime::fromMSecsSinceEpoch(RouteBudget::periodEndMs(budget->period, wallMs), Qt::UTC)
                                                  .toString(QStringLiteral("yyyy-MM-dd HH:mm"))),
                                     wallMs, now));
    return events;
}

void CostMeter::share(std::shared_ptr<SharedSpend> fleet)
{
    std::lock_guard lock(m_mutex);
    m_fleet = std::move(fleet);
}

double CostMeter::fleetSpentLocked(const QString &route, BudgetPeriod period, qint64 wallMs) const
{
    return m_fleet ? m_fleet->total(route, QString::number(RouteBudget::periodKey(period, wallMs))) : 0.0;
}

double CostMeter::spent(const QString &route, BudgetPeriod period, qint64 wallMs) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_routes.find(route);
    return it == m_routes.end() ? 0.0 : it->second.spent(period, wallMs);
}

CostMeter::Stats CostMeter::stats(qint64 wallMs) const
{
    std::lock_guard lock(m_mutex);
    Stats s;
    for (const auto &[route, state] : m_routes)
        s.todayUsd += state.spent(BudgetPeriod::Day, wallMs);
    const bool sameDay = RouteBudget::periodKey(BudgetPeriod::Day, wallMs) == m_statsDay;
    s.unpricedToday = sameDay ? m_unpricedToday : 0;
    s.refusedToday = sameDay ? m_refusedToday : 0;
    return s;
}

std::vector<RouteSpend> CostMeter::routeSpend(const EngineConfig &config, qint64 wallMs) const
{
    std::vector<RouteSpend> out;
    out.reserve(config.routes.size());
    std::lock_guard lock(m_mutex);
    for (const RouteConfig &route : config.routes) {
        RouteSpend spend;
        spend.route = route.logicalModel;
        if (const BudgetConfig *budget = findBudget(config.budgets, route.logicalModel)) {
            spend.hasBudget = true;
            spend.period = budget->period;
            spend.softLimitUsd = budget->softLimitUsd;
            spend.hardLimitUsd = budget->hardLimitUsd;
        }
        const auto it = m_routes.find(route.logicalModel);
        spend.spentUsd = std::max(fleetSpentLocked(route.logicalModel, spend.period, wallMs),
                                  it == m_routes.end() ? 0.0 : it->second.spent(spend.period, wallMs));
        out.push_back(std::move(spend));
    }
    return out;
}

void CostMeter::restore(const QStringList &routes, qint64 wallMs, const std::function<double(const QString &, qint64)> &spentSince)
{
    if (!spentSince)
        return;
    const qint64 dayStart = RouteBudget::periodEndMs(BudgetPeriod::Day, wallMs) - 24LL * 60 * 60 * 1000;
    const QDate date = QDateTime::fromMSecsSinceEpoch(wallMs, Qt::UTC).date();
    const qint64 monthStart = QDateTime(QDate(date.year(), date.month(), 1), QTime(0, 0), Qt::UTC).toMSecsSinceEpoch();
    std::map<QString, RouteBudget> restored;
    double dayKnown = 0.0, monthKnown = 0.0;
    for (const QString &route : routes) {
        if (route.isEmpty())
            continue;
        const double day = spentSince(route, dayStart);
        const double month = spentSince(route, monthStart);
        restored[route].restore(day, month, wallMs);
        dayKnown += day;
        monthKnown += month;
    }
    // Routes that were removed still spent money today: keep it in today's total under no name.
    const double dayAll = spentSince(QString(), dayStart);
    const double monthAll = spentSince(QString(), monthStart);
    restored[QLatin1String(kOtherRoutes)].restore(std::max(0.0, dayAll - dayKnown), std::max(0.0, monthAll - monthKnown), wallMs);
    std::lock_guard lock(m_mutex);
    m_routes = std::move(restored);
}

} // namespace sb
