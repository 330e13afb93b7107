#pragma once

#include "model/EngineConfig.h"

#include <QAbstractTableModel>

namespace sb {

// The Providers page's channel rows: what each channel is configured as (the Channels page shows
// how each one is doing). Rows are replaced in place when the same channels remain after a save.
class ChannelConfigModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Provider, UpstreamModel, Weight, Domain, Routes, Enabled, ColumnCount };
    enum Role { ChannelIdRole = Qt::UserRole + 1 };

    explicit ChannelConfigModel(QObject *parent = nullptr);

    void setConfig(EngineConfigPtr config);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int channelIdAt(int row) const;
    int rowOf(int channelId) const;

private:
    EngineConfigPtr m_config;
};

} // namespace sb
