#include "providers/RouteTableModel.h"

namespace sb {

namespace {

std::vector<int> idsOf(const EngineConfigPtr &config)
{
    std::vector<int> ids;
    if (config)
        for (const auto &r : config->routes)
            ids.push_back(r.id);
    return ids;
}

} // namespace

RouteTableModel::RouteTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void RouteTableModel::setConfig(EngineConfigPtr config)
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

int RouteTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_config ? 0 : int(m_config->routes.size());
}

int RouteTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int RouteTableModel::routeIdAt(int row) const
{
    if (!m_config || row < 0 || row >= rowCount())
        return 0;
    return m_config->routes[std::size_t(row)].id;
}

int RouteTableModel::rowOf(int routeId) const
{
    for (int row = 0; row < rowCount(); ++row)
        if (routeIdAt(row) == routeId)
            return row;
    return -1;
}

QVariant RouteTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_config || index.row() >= rowCount())
        return {};
    const RouteConfig &r = m_config->routes[std::size_t(index.row())];
    if (role == RouteIdRole)
        return r.id;
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Model: return r.logicalModel;
    case Strategy: return QString::fromLatin1(toString(r.strategy));
    case Channels: {
        QStringList names;
        for (int id : r.channelIds) {
            const ChannelConfig *c = m_config->channel(id);
            names << (c ? c->name : tr("missing %1").arg(id));
        }
        return names.join(QStringLiteral(" → "));
    }
    case Fallbacks: return r.fallbackModels.isEmpty() ? QStringLiteral("—") : r.fallbackModels.join(QStringLiteral(" → "));
    case Cache: return r.cacheEnabled ? tr("on") : tr("off");
    default: return {};
    }
}

QVariant RouteTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Model: return tr("Model");
    case Strategy: return tr("Strategy");
    case Channels: return tr("Channels (tier 0, in order)");
    case Fallbacks: return tr("Fallback models");
    case Cache: return tr("Cache");
    default: return {};
    }
}

} // namespace sb
