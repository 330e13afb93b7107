#include "providers/RouteTableModel.h"

#include "providers/UsdAmount.h"

#include <QLocale>

#include <cmath>

namespace sb {

namespace {

QString periodWord(BudgetPeriod period)
{
    return period == BudgetPeriod::Day ? RouteTableModel::tr("today") : RouteTableModel::tr("this month");
}

bool sameSpend(const RouteSpend &a, const RouteSpend &b)
{
    return a.spentUsd == b.spentUsd && a.period == b.period && a.hasBudget == b.hasBudget && a.softLimitUsd == b.softLimitUsd
        && a.hardLimitUsd == b.hardLimitUsd;
}

} // namespace

RouteTableModel::RouteTableModel(QObject *parent) : ConfigTableModel(ColumnCount, parent) {}

std::vector<int> RouteTableModel::rowIds(const EngineConfig &config) const
{
    return idsOf(config.routes);
}

void RouteTableModel::applySnapshot(const MetricsSnapshot &snapshot)
{
    QHash<QString, RouteSpend> spend;
    for (const RouteSpend &s : snapshot.routeSpend)
        spend.insert(s.route, s);
    int first = -1, last = -1;
    for (int row = 0; row < rowCount(); ++row) {
        const QString &route = config()->routes[std::size_t(row)].logicalModel;
        const auto before = m_spend.constFind(route);
        const auto after = spend.constFind(route);
        const bool hadBefore = before != m_spend.constEnd(), hasAfter = after != spend.constEnd();
        if (hadBefore == hasAfter && (!hasAfter || sameSpend(*before, *after)))
            continue;
        if (first < 0)
            first = row;
        last = row;
    }
    m_spend = std::move(spend);
    if (first >= 0)
        emit dataChanged(index(first, Budget), index(last, Budget));
}

const BudgetConfig *RouteTableModel::budgetOf(const RouteConfig &route) const
{
    return findBudget(config()->budgets, route.logicalModel);
}

RouteTableModel::BudgetLevel RouteTableModel::budgetLevel(const RouteConfig &route) const
{
    const BudgetConfig *b = budgetOf(route);
    const auto it = m_spend.constFind(route.logicalModel);
    if (!b || it == m_spend.constEnd() || it->period != b->period)
        return BudgetLevel::None;
    const double spent = it->spentUsd;
    if (b->hardLimitUsd > 0 && spent >= b->hardLimitUsd)
        return BudgetLevel::Stopped;
    const double alert = b->softLimitUsd > 0 ? b->softLimitUsd : b->hardLimitUsd;
    return spent >= kNearAlert * alert ? BudgetLevel::Warning : BudgetLevel::Within;
}

QString RouteTableModel::budgetText(const RouteConfig &route) const
{
    const BudgetConfig *b = budgetOf(route);
    const auto it = m_spend.constFind(route.logicalModel);
    if (!b) {
        // Without a budget the spend still says what the route costs.
        return it == m_spend.constEnd() ? tr("no budget")
                                        : tr("%1 %2 · no budget").arg(UsdAmount::format(it->spentUsd), periodWord(BudgetPeriod::Day));
    }
    const double limit = b->hardLimitUsd > 0 ? b->hardLimitUsd : b->softLimitUsd;
    // No figure from the engine yet (or the period was just changed): the limits alone.
    if (it == m_spend.constEnd() || it->period != b->period)
        return b->period == BudgetPeriod::Day ? tr("%1 a day").arg(UsdAmount::format(limit)) : tr("%1 a month").arg(UsdAmount::format(limit));
    const double spent = it->spentUsd;
    QString text = tr("%1 of %2 %3 · %4 %")
                       .arg(UsdAmount::format(spent), UsdAmount::format(limit), periodWord(b->period),
                            QLocale().toString(std::floor(spent * 100.0 / limit), 'f', 0));
    switch (budgetLevel(route)) {
    case BudgetLevel::Stopped: return text + tr(" · hard stop reached");
    case BudgetLevel::Warning:
        return text + (b->softLimitUsd > 0 && spent >= b->softLimitUsd ? tr(" · past the alert") : tr(" · near the alert"));
    default: return text;
    }
}

QString RouteTableModel::budgetToolTip(const RouteConfig &route) const
{
    const BudgetConfig *b = budgetOf(route);
    if (!b)
        return tr("No budget: edit the route to set a daily or monthly alert and hard stop. Spend counts priced requests only.");
    QStringList limits;
    if (b->softLimitUsd > 0)
        limits << tr("alert at %1").arg(UsdAmount::format(b->softLimitUsd));
    if (b->hardLimitUsd > 0)
        limits << tr("hard stop at %1 (the proxy then answers 429 until the period ends)").arg(UsdAmount::format(b->hardLimitUsd));
    return tr("%1 budget, UTC: %2. Spend counts priced requests only.")
        .arg(b->period == BudgetPeriod::Day ? tr("Daily") : tr("Monthly"), limits.join(QStringLiteral("; ")));
}

QVariant RouteTableModel::cellData(int row, int column, int role) const
{
    const RouteConfig &r = config()->routes[std::size_t(row)];
    if (column == Budget) {
        switch (role) {
        case BudgetLevelRole: return int(budgetLevel(r));
        case BudgetFractionRole: {
            const BudgetConfig *b = budgetOf(r);
            const auto it = m_spend.constFind(r.logicalModel);
            const double limit = b ? (b->hardLimitUsd > 0 ? b->hardLimitUsd : b->softLimitUsd) : 0.0;
            return limit > 0 && it != m_spend.constEnd() && it->period == b->period ? it->spentUsd / limit : -1.0;
        }
        case Qt::ToolTipRole: return budgetToolTip(r);
        case Qt::DisplayRole: return budgetText(r);
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case Model: return r.logicalModel;
    case Strategy: return QString::fromLatin1(toString(r.strategy));
    case Channels: {
        QStringList names;
        for (int id : r.channelIds) {
            const ChannelConfig *c = config()->channel(id);
            names << (c ? c->name : tr("missing %1").arg(id));
        }
        return names.join(QStringLiteral(" → "));
    }
    case Fallbacks: return r.fallbackModels.isEmpty() ? QStringLiteral("—") : r.fallbackModels.join(QStringLiteral(" → "));
    case Cache: return r.cacheEnabled ? tr("on") : tr("off");
    default: return {};
    }
}

QVariant RouteTableModel::columnTitle(int column) const
{
    switch (column) {
    case Model: return tr("Model");
    case Strategy: return tr("Strategy");
    case Channels: return tr("Channels (tier 0, in order)");
    case Fallbacks: return tr("Fallback models");
    case Cache: return tr("Cache");
    case Budget: return tr("Spend / budget");
    default: return {};
    }
}

} // namespace sb
