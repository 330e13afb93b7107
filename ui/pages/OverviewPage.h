#pragma once

#include "charts/TimelineHistory.h"
#include "control/MetricsSnapshot.h"
#include "health/HealthEvent.h"

#include <QHash>
#include <QWidget>

class KpiTile;
class QButtonGroup;
class QChart;
class QDateTimeAxis;
class QDateTimeEdit;
class QPushButton;
class QToolButton;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QTimer;
class QValueAxis;

namespace sb {

class AlignedChartView;
class CircuitTimeline;
class HistoryService;

// The incident screen: headline numbers on top, then three charts on one time axis (health score,
// circuit state, TTFT with failover markers) so that a dip, a trip and a failover line up.
// Snapshots only update the rings; the charts redraw from a timer, at most four times a second.
// With a HistoryService the 1 h / 24 h availability and today's cost come from the database, and
// history mode swaps the live window for a date range loaded from it (per-minute rows). Zooming or
// scrolling one chart moves all three; in live mode that pauses following until "Live".
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
    static constexpr int kTotalsIntervalMs = 30'000;
    static constexpr std::size_t kHistoryCapacity = 60 * 24 * 31; // a month of minutes per channel

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
    QString kpiCaption(const QString &title) const;

    void setHistory(HistoryService *history);
    // An attached instance: no history database here, so history mode is off
    // with `reason` as its tooltip, and today's cost comes from the instance's own snapshots.
    void setHistoryUnavailable(const QString &reason);
    // Drops every live line, marker and figure: the console is about to show another source, and
    // nothing of the previous one may stay on screen as if it belonged to the new one.
    void clearLive();
    bool isHistoryMode() const { return m_historyMode; }
    bool isFollowingLive() const { return !m_historyMode && !m_viewPinned; }
    // Loads [fromMillis, toMillis) from the database into the charts (history mode).
    void showHistory(std::int64_t fromMillis, std::int64_t toMillis);
    int historyLoads() const { return m_historyLoads; }
    QString historyStatus() const;
    // The shared time axis, as the three charts show it now.
    std::int64_t visibleFrom() const;
    std::int64_t visibleTo() const;
    AlignedChartView *healthView() const { return m_healthView; }
    AlignedChartView *ttftView() const { return m_ttftView; }
    QDateTimeAxis *ttftTimeAxis() const { return m_ttftTime; }

public slots:
    void applySnapshot(const sb::MetricsSnapshot &snapshot);
    void addEvent(const sb::HealthEvent &event);
    void showLive();
    // Zoom and scroll: every chart shows this span (history mode, or live paused).
    void setViewRange(std::int64_t fromMillis, std::int64_t toMillis);
    void refreshTotals();

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
    void axisRangeChanged(QDateTimeAxis *axis);
    void setAxesRange(std::int64_t fromMillis, std::int64_t toMillis);
    void updateModeWidgets();
    void loadPickedRange();

    TimelineHistory m_history;
    TimelineHistory m_past{kHistoryCapacity};
    Stats m_stats;
    HistoryService *m_historyService = nullptr;
    QTimer *m_totalsTimer = nullptr;
    bool m_historyMode = false;
    bool m_viewPinned = false;     // a user zoom or scroll holds the range
    bool m_settingAxes = false;    // our own range changes are not user zooms
    std::int64_t m_viewFrom = 0, m_viewTo = 0;
    std::int64_t m_pastFrom = 0, m_pastTo = 0;
    int m_historyLoads = 0;
    bool m_historyLoading = false;
    QString m_availabilityHistory; // "1h 99.95 % · 24h 99.99 %" once the history answered
    double m_costToday = -1.0;
    bool m_costFromSnapshots = false; // attached: the instance's own figure for today
    std::uint64_t m_tokensToday = 0;
    int m_windowSeconds = 900;
    QTimer *m_redrawTimer = nullptr;

    KpiTile *m_availability = nullptr;
    KpiTile *m_requestRate = nullptr;
    KpiTile *m_ttft = nullptr;
    KpiTile *m_failovers = nullptr;
    KpiTile *m_cost = nullptr;

    QButtonGroup *m_windowButtons = nullptr;
    QLabel *m_legend = nullptr;
    QLabel *m_ttftLegend = nullptr;
    QToolButton *m_historyButton = nullptr;
    QToolButton *m_liveButton = nullptr;
    QWidget *m_rangePicker = nullptr;
    QDateTimeEdit *m_fromEdit = nullptr;
    QDateTimeEdit *m_toEdit = nullptr;
    QPushButton *m_loadButton = nullptr;
    QLabel *m_historyState = nullptr;
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
