#include "providers/ProviderTableModel.h"

#include "providers/ProviderRegistry.h"

#include <QColor>
#include <QPalette>

#include <algorithm>

namespace sb {

ProviderTableModel::ProviderTableModel(QObject *parent) : ConfigTableModel(ColumnCount, parent) {}

std::vector<int> ProviderTableModel::rowIds(const EngineConfig &config) const
{
    return idsOf(config.providers);
}

void ProviderTableModel::applySnapshot(const MetricsSnapshot &snapshot)
{
    QHash<int, KeyHealth> health;
    for (const ChannelSnapshot &c : snapshot.channels)
        if (c.keysTotal > 0)
            health.insert(c.providerId, KeyHealth{c.keysHealthy, c.keysTotal}); // every channel of a provider shares its key ring
    for (int row = 0; row < rowCount(); ++row) {
        const int id = providerIdAt(row);
        const KeyHealth before = m_keyHealth.value(id), after = health.value(id);
        if (before.healthy != after.healthy || before.total != after.total) {
            m_keyHealth.insert(id, after);
            emit dataChanged(index(row, Keys), index(row, Keys));
        }
    }
    m_keyHealth = health;
}

QString ProviderTableModel::keysText(const ProviderConfig &p) const
{
    int enabled = 0;
    for (const auto &k : p.keys)
        enabled += k.enabled ? 1 : 0;
    const int total = int(p.keys.size());
    if (total == 0)
        return tr("no keys");
    // The engine's view wins when it has one: a key cooling down after a 429 is not healthy.
    if (m_keyHealth.contains(p.id)) {
        const KeyHealth h = m_keyHealth.value(p.id);
        return tr("%1/%2 healthy").arg(h.healthy).arg(total);
    }
    return tr("%1/%2 enabled").arg(enabled).arg(total);
}

QVariant ProviderTableModel::cellData(int row, int column, int role) const
{
    const ProviderConfig &p = config()->providers[std::size_t(row)];
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Name: return p.name;
        case Dialect: {
            const ProviderAdapter *a = ProviderRegistry::find(p.dialect);
            return a ? a->displayName() : tr("unknown (%1)").arg(p.dialect);
        }
        case BaseUrl: return p.baseUrl;
        case Keys: return keysText(p);
        case Channels: return int(std::count_if(config()->channels.begin(), config()->channels.end(),
                                                [&](const ChannelConfig &c) { return c.providerId == p.id; }));
        case Enabled: return p.enabled ? tr("yes") : tr("no");
        default: break;
        }
    }
    if (role == Qt::ForegroundRole && column == Keys) {
        const KeyHealth h = m_keyHealth.value(p.id, KeyHealth{-1, -1});
        if (p.keys.empty() || h.healthy == 0)
            return QColor(0xc6, 0x28, 0x28); // no usable key: the provider cannot serve
    }
    if (role == Qt::ToolTipRole && column == Keys)
        return tr("Keys that can serve now, of all keys. Keys are shown only masked.");
    return {};
}

QVariant ProviderTableModel::columnTitle(int column) const
{
    switch (column) {
    case Name: return tr("Name");
    case Dialect: return tr("Dialect");
    case BaseUrl: return tr("Base URL");
    case Keys: return tr("Keys");
    case Channels: return tr("Channels");
    case Enabled: return tr("Enabled");
    default: return {};
    }
}

} // namespace sb
