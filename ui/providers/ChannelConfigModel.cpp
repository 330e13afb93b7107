#include "providers/ChannelConfigModel.h"

#include "providers/ConfigEdits.h"

namespace sb {

namespace {

std::vector<int> idsOf(const EngineConfigPtr &config)
{
    std::vector<int> ids;
    if (config)
        for (const auto &c : config->channels)
            ids.push_back(c.id);
    return ids;
}

} // namespace

ChannelConfigModel::ChannelConfigModel(QObject *parent) : QAbstractTableModel(parent) {}

void ChannelConfigModel::setConfig(EngineConfigPtr config)
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

int ChannelConfigModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_config ? 0 : int(m_config->channels.size());
}

int ChannelConfigModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int ChannelConfigModel::channelIdAt(int row) const
{
    if (!m_config || row < 0 || row >= rowCount())
        return 0;
    return m_config->channels[std::size_t(row)].id;
}

int ChannelConfigModel::rowOf(int channelId) const
{
    for (int row = 0; row < rowCount(); ++row)
        if (channelIdAt(row) == channelId)
            return row;
    return -1;
}

QVariant ChannelConfigModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_config || index.row() >= rowCount())
        return {};
    const ChannelConfig &c = m_config->channels[std::size_t(index.row())];
    if (role == ChannelIdRole)
        return c.id;
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Name: return c.name;
    case Provider: {
        const ProviderConfig *p = m_config->provider(c.providerId);
        return p ? p->name : tr("missing provider %1").arg(c.providerId);
    }
    case UpstreamModel: return c.upstreamModel;
    case Weight: return QString::number(c.weight, 'g', 4);
    case Domain: {
        const FailureDomain d = m_config->domainOf(c);
        QStringList parts;
        for (const QString &part : {d.account, d.region})
            if (!part.isEmpty())
                parts << part;
        if (!d.egressProxy.isEmpty())
            parts << tr("via proxy");
        return parts.isEmpty() ? QStringLiteral("—") : parts.join(QStringLiteral(" · "));
    }
    case Routes: {
        const QStringList routes = ConfigEdits::routesUsingChannel(*m_config, c.id);
        return routes.isEmpty() ? QStringLiteral("—") : routes.join(QStringLiteral(", "));
    }
    case Enabled: return c.enabled ? tr("yes") : tr("no");
    default: return {};
    }
}

QVariant ChannelConfigModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Channel");
    case Provider: return tr("Provider");
    case UpstreamModel: return tr("Upstream model");
    case Weight: return tr("Weight");
    case Domain: return tr("Failure domain");
    case Routes: return tr("Routes");
    case Enabled: return tr("Enabled");
    default: return {};
    }
}

} // namespace sb
