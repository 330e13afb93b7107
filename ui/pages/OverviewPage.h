#pragma once

#include "charts/TimelineHistory.h"
#include "engine/MetricsSnapshot.h"
#include "health/HealthEvent.h"

#include <QHash>
#include <QWidget>

class KpiTile;
class QButtonGroup;
class QChart;
class QDateTimeAxis;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QTimer;
class QValueAxis;

namespace sb {

class AlignedChartView;
class CircuitTimeline;

// The incident screen: headline numbers on top, then three charts on one time axis (health score,
// circuit state, TTFT with failover markers) so that a dip, a trip and a failover line up.
// Snapshots only update the rings; the charts redraw from a timer, at most four times a second.
class OverviewPage : public QWidget {
    Q_OBJECT
public:
    struct Stats {
        std::uint64_t snapshots = 0;
        std::uint64_t failoverEvents = 0;
        std::uint64_t redraws = 0;
        std::int64_t longestRedrawMicros = 0; // series updates only; painting follows in the event loop
    };
    static constexpr int kRedrawIntervalMs = 250;

    explicit OverviewPage(QWidget *parent = nullptr);

    int windowSeconds() const { return m_windowSeconds; }
    void setWindowSeconds(int seconds); // 300, 900 or 3600
    // Redraws now instead of waiting for the timer (screenshots, tests).
    void redrawNow();

    const Stats &stats() const { return m_stats; }
    const TimelineHistory &history() const { return m_history; }
    int healthPointCount(int channelId) const;
    double healthMinimum(int channelId) const; // lowest score drawn (tests: thinning keeps dips)
    int ttftPointCount() const;
    int failoverMarkerCount() const;
    CircuitTimeline *circuitTimeline() const { return m_circuit; }
    QString kpiValue(const QString &title) const;

public slots:
    void applySnapshot(const sb::MetricsSnapshot &snapshot);
    void addEvent(const sb::HealthEvent &event);

protected:
    void changeEvent(QEvent *event) override;

private:
    QWidget *makeSection(const QString &title, QWidget *body, QWidget *trailing, QLabel **titleLabel);
    QChart *makeChart(double yMax, QValueAxis **values, QDateTimeAxis **time);
    int maxPoints() const;
    void scheduleRedraw();
    void redraw();
    void updateTiles(const MetricsSnapshot &snapshot);
    void updateLegend();
    void restyle();
    void showFailoverTip(const QPointF &point, bool state);

    TimelineHistory m_history;
    Stats m_stats;
    int m_windowSeconds = 900;
    QTimer *m_redrawTimer = nullptr;

    KpiTile *m_availability = nullptr;
    KpiTile *m_requestRate = nullptr;
    KpiTile *m_ttft = nullptr;
    KpiTile *m_failovers = nullptr;
    KpiTile *m_cost = nullptr;

    QButtonGroup *m_windowButtons = nullptr;
    QLabel *m_legend = nullptr;
    QLabel *m_waiting = nullptr;
    AlignedChartView *m_healthView = nullptr;
    AlignedChartView *m_ttftView = nullptr;
    QChart *m_healthChart = nullptr;
    QValueAxis *m_healthValues = nullptr;
    QDateTimeAxis *m_healthTime = nullptr;
    QHash<int, QLineSeries *> m_healthSeries;
    CircuitTimeline *m_circuit = nullptr;
    QChart *m_ttftChart = nullptr;
    QValueAxis *m_ttftValues = nullptr;
    QDateTimeAxis *m_ttftTime = nullptr;
    QLineSeries *m_ttftP50 = nullptr;
    QLineSeries *m_ttftP95 = nullptr;
    QScatterSeries *m_failoverMarkers = nullptr;
    std::vector<TimelineHistory::FailoverMarker> m_visibleMarkers;
};

} // namespace sb
