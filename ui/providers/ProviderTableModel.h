#pragma once

#include "control/MetricsSnapshot.h"
#include "model/EngineConfig.h"

#include <QAbstractTableModel>
#include <QHash>

namespace sb {

// The Providers page's provider rows. A saved configuration replaces the rows (in place when the
// same providers remain, so selection survives an edit); a snapshot updates only the Keys column
// with what the engine's key rings report (healthy = not cooling down and not disabled).
class ProviderTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Dialect, BaseUrl, Keys, Channels, Enabled, ColumnCount };
    enum Role { ProviderIdRole = Qt::UserRole + 1 };

    explicit ProviderTableModel(QObject *parent = nullptr);

    void setConfig(EngineConfigPtr config);
    void applySnapshot(const MetricsSnapshot &snapshot);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int providerIdAt(int row) const;
    int rowOf(int providerId) const;

private:
    struct KeyHealth {
        int healthy = 0;
        int total = 0;
    };
    QString keysText(const ProviderConfig &provider) const;

    EngineConfigPtr m_config;
    QHash<int, KeyHealth> m_keyHealth; // provider id → from the latest snapshot
};

} // namespace sb
