#pragma once

#include "model/BudgetConfig.h"

#include <QString>

namespace sb {

// One route's spend in its budget's period, as the console shows it ("$3.12 of $10.00 today").
// A route without a budget reports today's spend and no limits. Built once a second into the
// MetricsSnapshot, so the console never sums the history itself.
struct RouteSpend {
    QString route;                           // the route's logical model
    BudgetPeriod period = BudgetPeriod::Day; // the budget's period; Day without a budget
    double spentUsd = 0.0;                   // priced requests only (unknown costs are not in it)
    bool hasBudget = false;
    double softLimitUsd = 0.0; // 0 = no alert
    double hardLimitUsd = 0.0; // 0 = no hard stop

    // The limit the spend is measured against: the hard stop when there is one, else the alert.
    double limitUsd() const { return hardLimitUsd > 0 ? hardLimitUsd : softLimitUsd; }
    bool overSoftLimit() const { return softLimitUsd > 0 && spentUsd >= softLimitUsd; }
    bool hardStopped() const { return hardLimitUsd > 0 && spentUsd >= hardLimitUsd; }
};

} // namespace sb
