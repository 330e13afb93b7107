#pragma once

#include "telemetry/IncidentBuilder.h"

#include <QAbstractTableModel>

namespace sb {

// The Incidents list: newest first, open ones marked. Replaced as a whole when the page reloads
// (a few hundred rows at most), with the counts filled in when the history answers.
class IncidentTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Status, Channel, Started, Duration, Worst, Affected, Failed, Failovers, ColumnCount };

    explicit IncidentTableModel(QObject *parent = nullptr);

    void setIncidents(std::vector<Incident> incidents, qint64 nowMs);
    void setNow(qint64 nowMs); // open incidents' durations grow
    // False while the page groups an attached instance's events: the request counts are in that
    // instance's history and never arrive here, so they show "—" rather than a "…" that waits forever.
    void setCountsAvailable(bool available);
    const Incident *incident(int row) const;
    int openCount() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString duration(qint64 ms); // "4 min 12 s"
    static QString stateLabel(const QString &state);

private:
    std::vector<Incident> m_incidents;
    qint64 m_now = 0;
    bool m_countsAvailable = true;
};

} // namespace sb
