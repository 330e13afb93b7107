#pragma once

#include "providers/ConfigTableModel.h"

namespace sb {

// The Providers page's channel rows: what each channel is configured as (the Channels page shows
// how each one is doing).
class ChannelConfigModel : public ConfigTableModel {
    Q_OBJECT
public:
    enum Column { Name, Provider, UpstreamModel, Weight, Domain, Routes, Enabled, ColumnCount };
    enum Role { ChannelIdRole = IdRole };

    explicit ChannelConfigModel(QObject *parent = nullptr);

    int channelIdAt(int row) const { return idAt(row); }

private:
    std::vector<int> rowIds(const EngineConfig &config) const override;
    QVariant cellData(int row, int column, int role) const override;
    QVariant columnTitle(int column) const override;
};

} // namespace sb
