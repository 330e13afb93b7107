#pragma once

#include "control/MetricsSnapshot.h"
#include "providers/ConfigTableModel.h"

#include <QHash>

namespace sb {

// The Providers page's route rows: logical model → strategy, tier-0 channels in order, fallbacks
// by priority, and the spend against the route's budget. The spend is the engine's (each snapshot's
// routeSpend, never summed here); a snapshot updates only the Budget cells whose figure changed.
class RouteTableModel : public ConfigTableModel {
    Q_OBJECT
public:
    enum Column { Model, Strategy, Channels, Fallbacks, Cache, Budget, ColumnCount };
    enum Role {
        RouteIdRole = IdRole,
        BudgetLevelRole,    // int(BudgetLevel) of the Budget cell
        BudgetFractionRole, // spend / limit (may pass 1); -1 when there is no limit or no figure yet
    };
    // The state colours: within budget = closed green, at 80 % of the alert or past it = half-open
    // amber (a warning), hard stop reached = open red (requests are being refused).
    enum class BudgetLevel { None, Within, Warning, Stopped };
    static constexpr double kNearAlert = 0.8;

    explicit RouteTableModel(QObject *parent = nullptr);

    void applySnapshot(const MetricsSnapshot &snapshot);

    int routeIdAt(int row) const { return idAt(row); }

private:
    std::vector<int> rowIds(const EngineConfig &config) const override;
    QVariant cellData(int row, int column, int role) const override;
    QVariant columnTitle(int column) const override;
    const BudgetConfig *budgetOf(const RouteConfig &route) const;
    QString budgetText(const RouteConfig &route) const;
    QString budgetToolTip(const RouteConfig &route) const;
    BudgetLevel budgetLevel(const RouteConfig &route) const;

    QHash<QString, RouteSpend> m_spend; // route → from the latest snapshot
};

} // namespace sb
