#pragma once

#include "model/BudgetConfig.h"

#include <QtGlobal>

namespace sb {

// The spend of one route in the current UTC day and month, and which budget alerts it has already
// raised in which period (BudgetConfig is the policy, this the state). Not thread-safe: CostMeter
// guards it.
class RouteBudget {
public:
    void add(double usd, qint64 wallMs);
    // Spend read back from the history at start (the sums of this day's and this month's requests).
    void restore(double daySpent, double monthSpent, qint64 wallMs);
    // What the route has spent in the period containing wallMs; 0 once that period has rolled over.
    double spent(BudgetPeriod period, qint64 wallMs) const;

    // `fleetSpent`: what the route's fleet has spent this period (SharedSpend), when that is more
    // than this instance's own count.
    bool overHardLimit(const BudgetConfig &budget, qint64 wallMs, double fleetSpent = 0) const;
    // True once per period, the first time spend is at or past the limit (and marks it raised).
    bool takeSoftAlert(const BudgetConfig &budget, qint64 wallMs, double fleetSpent = 0);
    bool takeHardAlert(const BudgetConfig &budget, qint64 wallMs, double fleetSpent = 0);

    // A number that names the period containing wallMs (days and months never share one), and when
    // that period ends, in UTC wall-clock milliseconds.
    static qint64 periodKey(BudgetPeriod period, qint64 wallMs);
    static qint64 periodEndMs(BudgetPeriod period, qint64 wallMs);

private:
    void roll(qint64 wallMs);

    qint64 m_day = -1;
    double m_daySpent = 0.0;
    qint64 m_month = -1;
    double m_monthSpent = 0.0;
    qint64 m_softRaisedFor = 0; // period key; 0 = never (keys are never 0, see periodKey)
    qint64 m_hardRaisedFor = 0;
};

} // namespace sb
