#pragma once

#include <QWidget>

class KpiTile;
class QChartView;

// The incident screen: headline numbers on top, then three charts on one time axis (health score,
// circuit state, TTFT with failover markers) so that a dip, a trip and a failover line up.
class OverviewPage : public QWidget {
    Q_OBJECT
public:
    explicit OverviewPage(QWidget *parent = nullptr);

private:
    QChartView *makeChart(const QString &title, double yMax, const QString &yLabel);

    KpiTile *m_availability = nullptr;
    KpiTile *m_requestRate = nullptr;
    KpiTile *m_ttft = nullptr;
    KpiTile *m_failovers = nullptr;
    KpiTile *m_cost = nullptr;
};
