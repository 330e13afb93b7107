#pragma once

#include <QString>
#include <QStringList>
#include <QStringView>

#include <vector>

namespace sb {

// Budgets run over calendar periods in UTC, so "today" and "this month" mean the same on every
// machine and a restart in the middle of a period picks up where it left off.
enum class BudgetPeriod { Day, Month };

const char *toString(BudgetPeriod period); // "day", "month"
bool budgetPeriodFromString(QStringView text, BudgetPeriod *out);

// A spending limit for one route (a logical model callers ask for). Spend is what the route's
// finished requests cost, whichever channel or fallback tier answered them.
struct BudgetConfig {
    QString model;                         // the route's logical model
    BudgetPeriod period = BudgetPeriod::Day;
    double softLimitUsd = 0.0; // an alert once per period when spend reaches it; 0 = no alert
    double hardLimitUsd = 0.0; // optional hard stop: at or past it the proxy answers 429 until the period rolls over; 0 = none

    // Sentences a user can act on; `routeModels` are the configured routes' logical models.
    QStringList validate(const QStringList &routeModels) const;
};

const BudgetConfig *findBudget(const std::vector<BudgetConfig> &budgets, QStringView model);

} // namespace sb
