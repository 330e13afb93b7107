#include "providers/ProviderTableModel.h"

#include "providers/ProviderRegistry.h"

#include <QColor>
#include <QPalette>

#include <algorithm>

namespace sb {

namespace {

std::vector<int> idsOf(const EngineConfigPtr &config)
{
    std::vector<int> ids;
    if (config)
        for (const auto &p : config->providers)
            ids.push_back(p.id);
    return ids;
}

} // namespace

ProviderTableModel::ProviderTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void ProviderTableModel::setConfig(EngineConfigPtr config)
{
    if (idsOf(config) == idsOf(m_config)) {
        m_config = std::move(config);
        if (rowCount() > 0)
            emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_config = std::move(config);
    endResetModel();
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

int ProviderTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_config ? 0 : int(m_config->providers.size());
}

int ProviderTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int ProviderTableModel::providerIdAt(int row) const
{
    if (!m_config || row < 0 || row >= rowCount())
        return 0;
    return m_config->providers[std::size_t(row)].id;
}

int ProviderTableModel::rowOf(int providerId) const
{
    for (int row = 0; row < rowCount(); ++row)
        if (providerIdAt(row) == providerId)
            return row;
    return -1;
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

QVariant ProviderTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_config || index.row() >= rowCount())
        return {};
    const ProviderConfig &p = m_config->providers[std::size_t(index.row())];
    if (role == ProviderIdRole)
        return p.id;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name: return p.name;
        case Dialect: {
            const ProviderAdapter *a = ProviderRegistry::find(p.dialect);
            return a ? a->displayName() : tr("unknown (%1)").arg(p.dialect);
        }
        case BaseUrl: return p.baseUrl;
        case Keys: return keysText(p);
        case Channels: return int(std::count_if(m_config->channels.begin(), m_config->channels.end(),
                                                [&](const ChannelConfig &c) { return c.providerId == p.id; }));
        case Enabled: return p.enabled ? tr("yes") : tr("no");
        default: break;
        }
    }
    if (role == Qt::ForegroundRole && index.column() == Keys) {
        const KeyHealth h = m_keyHealth.value(p.id, KeyHealth{-1, -1});
        if (p.keys.empty() || h.healthy == 0)
            return QColor(0xc6, 0x28, 0x28); // no usable key: the provider cannot serve
    }
    if (role == Qt::ToolTipRole && index.column() == Keys)
        return tr("Keys that can serve now, of all keys. Keys are shown only masked.");
    return {};
}

QVariant ProviderTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
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
