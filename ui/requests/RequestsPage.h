#pragma once

#include "store/HistoryReader.h"

#include <QWidget>

class QComboBox;
class QDateTimeEdit;
class QLabel;
class QTableView;
class QTimer;
class QToolButton;

namespace sb {

class HistoryService;
class RequestInspector;
class RequestTableModel;

// Every request in the history with filters (model, channel, outcome, time
// range), a live tail and an inspector. The tail only moves the list while the user is at its top;
// scrolled away, new rows wait behind an "N new" button so the row under the cursor stays put.
class RequestsPage : public QWidget {
    Q_OBJECT
public:
    enum class Outcome { Any, Ok, Errors, MidStream, Cancelled, Failover, CacheHit };
    static constexpr int kLiveIntervalMs = 1000;

    // `history` may be null until the database is known (setHistory()).
    explicit RequestsPage(HistoryService *history, QWidget *parent = nullptr);
    void setHistory(HistoryService *history);

    RequestTableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    RequestInspector *inspector() const { return m_inspector; }
    QString summaryText() const;
    QString newRowsText() const; // "" when the button is hidden

    void setModelFilter(const QString &logicalModel);
    void setChannelFilter(int channelId);
    void setOutcomeFilter(Outcome outcome);
    void setTimeRange(qint64 fromMs, qint64 toMs); // 0 / max: no bound
    void setLive(bool live);                        // the tail timer (tests drive it by hand)

public slots:
    // Incidents' "show requests": every request that touched the channel in that time range.
    void showRequests(int channelId, qint64 fromMs, qint64 toMs);
    void checkForNew();
    void refreshChoices(); // models and channels for the filter boxes

private:
    void applyFilters();
    void timePresetChanged();
    void showSelected();
    void onNewRows(qint64 rows);
    void jumpToNew();
    bool atTop() const;

    HistoryService *m_history;
    RequestTableModel *m_model = nullptr;
    QTableView *m_table = nullptr;
    RequestInspector *m_inspector = nullptr;
    QComboBox *m_modelBox = nullptr;
    QComboBox *m_channelBox = nullptr;
    QComboBox *m_outcomeBox = nullptr;
    QComboBox *m_apiBox = nullptr;
    QComboBox *m_timeBox = nullptr;
    QDateTimeEdit *m_from = nullptr;
    QDateTimeEdit *m_to = nullptr;
    QLabel *m_summary = nullptr;
    QToolButton *m_newRows = nullptr;
    QTimer *m_live = nullptr;
    qint64 m_customFromMs = 0; // the custom range to the millisecond (the editors show seconds)
    qint64 m_customToMs = 0;
    qint64 m_selectedId = 0;
    bool m_applying = false;
};

} // namespace sb
