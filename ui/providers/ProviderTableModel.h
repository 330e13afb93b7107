#pragma once

#include "control/MetricsSnapshot.h"
#include "providers/ConfigTableModel.h"

#include <QHash>

namespace sb {

// The Providers page's provider rows. A snapshot updates only the Keys column with what the
// engine's key rings report (healthy = not cooling down and not disabled).
class ProviderTableModel : public ConfigTableModel {
    Q_OBJECT
public:
    enum Column { Name, Dialect, BaseUrl, Keys, Channels, Enabled, ColumnCount };
    enum Role { ProviderIdRole = IdRole };

    explicit ProviderTableModel(QObject *parent = nullptr);

    void applySnapshot(const MetricsSnapshot &snapshot);

    int providerIdAt(int row) const { return idAt(row); }

private:
    struct KeyHealth {
        int healthy = 0;
        int total = 0;
    };
    std::vector<int> rowIds(const EngineConfig &config) const override;
    QVariant cellData(int row, int column, int role) const override;
    QVariant columnTitle(int column) const override;
    QString keysText(const ProviderConfig &provider) const;

    QHash<int, KeyHealth> m_keyHealth; // provider id → from the latest snapshot
};

} // namespace sb
