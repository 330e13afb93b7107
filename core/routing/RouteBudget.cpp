#include "routing/RouteBudget.h"

#include <algorithm>

#include <QDateTime>

namespace sb {

namespace {

constexpr qint64 kDayMs = 24LL * 60 * 60 * 1000;

qint64 dayIndex(qint64 wallMs)
{
    return wallMs >= 0 ? wallMs / kDayMs : (wallMs - kDayMs + 1) / kDayMs;
}

qint64 monthIndex(qint64 wallMs)
{
    const QDate date = QDateTime::fromMSecsSinceEpoch(wallMs, Qt::UTC).date();
    return qint64(date.year()) * 12 + (date.month() - 1);
}

} // namespace

qint64 RouteBudget::periodKey(BudgetPeriod period, qint64 wallMs)
{
    // Days count up from 1, months down from -1: no key is 0 and a day never equals a month.
    return period == BudgetPeriod::Day ? dayIndex(wallMs) + 1 : -(monthIndex(wallMs) + 1);
}

qint64 RouteBudget::periodEndMs(BudgetPeriod period, qint64 wallMs)
{
    if (period == BudgetPeriod::Day)
        return (dayIndex(wallMs) + 1) * kDayMs;
    const QDate date = QDateTime::fromMSecsSinceEpoch(wallMs, Qt::UTC).date();
    const QDate next = QDate(date.year(), date.month(), 1).addMonths(1);
    return QDateTime(next, QTime(0, 0), Qt::UTC).toMSecsSinceEpoch();
}

void RouteBudget::roll(qint64 wallMs)
{
    const qint64 day = dayIndex(wallMs);
    if (day != m_day) {
        m_day = day;
        m_daySpent = 0.0;
    }
    const qint64 month = monthIndex(wallMs);
    if (month != m_month) {
        m_month = month;
        m_monthSpent = 0.0;
    }
}

void RouteBudget::add(double usd, qint64 wallMs)
{
    roll(wallMs);
    m_daySpent += usd;
    m_monthSpent += usd;
}

void RouteBudget::restore(double daySpent, double monthSpent, qint64 wallMs)
{
    roll(wallMs);
    m_daySpent = daySpent;
    m_monthSpent = monthSpent;
}

double RouteBudget::spent(BudgetPeriod period, qint64 wallMs) const
{
    if (period == BudgetPeriod::Day)
        return dayIndex(wallMs) == m_day ? m_daySpent : 0.0;
    return monthIndex(wallMs) == m_month ? m_monthSpent : 0.0;
}

bool RouteBudget::overHardLimit(const BudgetConfig &budget, qint64 wallMs, double fleetSpent) const
{
    return budget.hardLimitUsd > 0 && std::max(fleetSpent, spent(budget.period, wallMs)) >= budget.hardLimitUsd;
}

bool RouteBudget::takeSoftAlert(const BudgetConfig &budget, qint64 wallMs, double fleetSpent)
{
    const qint64 key = periodKey(budget.period, wallMs);
    if (budget.softLimitUsd <= 0 || m_softRaisedFor == key || std::max(fleetSpent, spent(budget.period, wallMs)) < budget.softLimitUsd)
        return false;
    m_softRaisedFor = key;
    return true;
}

bool RouteBudget::takeHardAlert(const BudgetConfig &budget, qint64 wallMs, double fleetSpent)
{
    const qint64 key = periodKey(budget.period, wallMs);
    if (m_hardRaisedFor == key || !overHardLimit(budget, wallMs, fleetSpent))
        return false;
    m_hardRaisedFor = key;
    return true;
}

} // namespace sb
