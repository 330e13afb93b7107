#pragma once

#include "ConsoleStyle.h"
#include "control/MetricsSnapshot.h"
#include "model/EngineConfig.h"

#include <QAbstractTableModel>
#include <QHash>

#include <vector>

namespace sb {

// The Channels page's rows: one per channel in the latest snapshot. A snapshot updates rows in place
// (dataChanged for the cells that changed), appends channels that appeared and removes those that
// left — never a full reset, so selection, scroll position and sorting survive the 1 s updates.
class ChannelTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Route,
        Provider,
        Channel,
        State,
        Health,
        Err30s,
        Err5m,
        P95,
        TtftP95,
        InFlight,
        Keys,
        Headroom,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // a number (or lower-case text) that sorts the column sensibly
        ChannelIdRole,
        ProviderIdRole,
        StateRole,      // int(ChannelState)
        ScoreRole,      // 0–100
    };

    struct Stats {
        std::uint64_t snapshots = 0;
        std::uint64_t cellsChanged = 0;
        std::uint64_t rowsInserted = 0;
        std::uint64_t rowsRemoved = 0;
    };

    explicit ChannelTableModel(QObject *parent = nullptr);

    // Maps channel id → route and provider names; may be null (ids are shown instead).
    void setConfig(EngineConfigPtr config);
    void applySnapshot(const MetricsSnapshot &snapshot);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int rowOf(int channelId) const { return m_rowOf.value(channelId, -1); }
    const ChannelSnapshot &channelAt(int row) const { return m_rows[static_cast<std::size_t>(row)].channel; }
    const Stats &stats() const { return m_stats; }

private:
    struct Row {
        ChannelSnapshot channel;
        QString route;
        QString provider;
    };
    QString routeNames(int channelId) const;
    QString providerName(const ChannelSnapshot &channel) const;
    QVariant display(const Row &row, int column) const;
    QVariant sortValue(const Row &row, int column) const;
    void rebuildIndex();

    EngineConfigPtr m_config;
    std::vector<Row> m_rows;
    QHash<int, int> m_rowOf;
    Stats m_stats;
};

} // namespace sb
