#include "model/BudgetConfig.h"

namespace sb {

const char *toString(BudgetPeriod period)
{
    return period == BudgetPeriod::Month ? "month" : "day";
}

bool budgetPeriodFromString(QStringView text, BudgetPeriod *out)
{
    if (text == u"day")
        *out = BudgetPeriod::Day;
    else if (text == u"month")
        *out = BudgetPeriod::Month;
    else
        return false;
    return true;
}

QStringList BudgetConfig::validate(const QStringList &routeModels) const
{
    QStringList problems;
    if (model.isEmpty())
        problems << QStringLiteral("A budget has no route; name the route's model.");
    else if (!routeModels.contains(model))
        problems << QStringLiteral("The budget for \"%1\" names no configured route; add the route or remove the budget.").arg(model);
    if (softLimitUsd < 0 || hardLimitUsd < 0)
        problems << QStringLiteral("The budget for \"%1\" cannot have a negative limit (0 means none).").arg(model);
    if (softLimitUsd > 0 && hardLimitUsd > 0 && softLimitUsd > hardLimitUsd)
        problems << QStringLiteral("The budget for \"%1\": the alert limit (US$%2) is above the hard stop (US$%3), so the alert "
                                   "would never come first; lower it.")
                        .arg(model).arg(softLimitUsd).arg(hardLimitUsd);
    return problems;
}

const BudgetConfig *findBudget(const std::vector<BudgetConfig> &budgets, QStringView model)
{
    for (const auto &b : budgets)
        if (b.model == model)
            return &b;
    return nullptr;
}

} // namespace sb
