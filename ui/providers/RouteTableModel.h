#pragma once

#include "model/EngineConfig.h"

#include <QAbstractTableModel>

namespace sb {

// The Providers page's route rows: logical model → strategy, tier-0 channels in order, fallbacks
// by priority.
class RouteTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Model, Strategy, Channels, Fallbacks, Cache, ColumnCount };
    enum Role { RouteIdRole = Qt::UserRole + 1 };

    explicit RouteTableModel(QObject *parent = nullptr);

    void setConfig(EngineConfigPtr config);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int routeIdAt(int row) const;
    int rowOf(int routeId) const;

private:
    EngineConfigPtr m_config;
};

} // namespace sb
