#pragma once

#include "health/HealthEvent.h"
#include "telemetry/IncidentBuilder.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;
class QTextBrowser;
class QTimer;

namespace sb {

class HistoryService;
class IncidentTableModel;

// The history's events grouped into incidents, each with its duration, the
// requests it touched and the failovers it caused; "Show requests" hands the channel and the time
// range to the Requests page (MainWindow switches pages). Budget alerts are about a route's spend,
// not a channel's health, so they are listed above the table on their own rather than as incidents.
class IncidentsPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kRefreshIntervalMs = 5000;
    static constexpr int kMaxEvents = 50'000;     // per load; the newest win
    static constexpr int kMaxCounted = 200;       // incidents whose requests are counted per load
    static constexpr int kMaxBudgetAlerts = 5;    // newest budget alerts listed; older ones are counted

    // `history` may be null until the database is known (setHistory()).
    explicit IncidentsPage(HistoryService *history, QWidget *parent = nullptr);
    void setHistory(HistoryService *history);
    // An attached instance has no database here: the page groups the events it
    // sends instead (addEvent), newest incidents first, without the request counts the history
    // would give. setHistory() goes back to the database.
    void watchEvents();
    bool isWatchingEvents() const { return m_watching; }

    IncidentTableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QString detailsText() const;
    QString budgetAlertsText() const; // plain text of the budget alert list; empty when there are none
    int loads() const { return m_loads; }
    void setRangeHours(int hours);

public slots:
    void reload();
    void showRequestsForSelection();
    void addEvent(const sb::HealthEvent &event);

signals:
    void showRequestsRequested(int channelId, qint64 fromMs, qint64 toMs);
    void openIncidentsChanged(int open);

private:
    void showSelected();
    void showIncidents(std::vector<Incident> incidents, qint64 now);
    void rebuildFromEvents();
    void showBudgetAlerts(const std::vector<EventRecord> &alerts);

    HistoryService *m_history;
    IncidentTableModel *m_model = nullptr;
    QTableView *m_table = nullptr;
    QTextBrowser *m_details = nullptr;
    QPushButton *m_showRequests = nullptr;
    QComboBox *m_range = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_budgetAlerts = nullptr;
    QTimer *m_refresh = nullptr;
    QTimer *m_rebuild = nullptr;        // coalesces a burst of events (the first poll brings 200) into one rebuild
    bool m_watching = false;
    std::vector<EventRecord> m_events;  // watching: what the instance sent, oldest first
    int m_loads = 0;
    int m_lastOpen = -1;
};

} // namespace sb
