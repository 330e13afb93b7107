#include "providers/ChannelConfigModel.h"

#include "providers/ConfigEdits.h"

namespace sb {

ChannelConfigModel::ChannelConfigModel(QObject *parent) : ConfigTableModel(ColumnCount, parent) {}

std::vector<int> ChannelConfigModel::rowIds(const EngineConfig &config) const
{
    return idsOf(config.channels);
}

QVariant ChannelConfigModel::cellData(int row, int column, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    const ChannelConfig &c = config()->channels[std::size_t(row)];
    switch (column) {
    case Name: return c.name;
    case Provider: {
        const ProviderConfig *p = config()->provider(c.providerId);
        return p ? p->name : tr("missing provider %1").arg(c.providerId);
    }
    case UpstreamModel: return c.upstreamModel;
    case Weight: return QString::number(c.weight, 'g', 4);
    case Domain: {
        const FailureDomain d = config()->domainOf(c);
        QStringList parts;
        for (const QString &part : {d.account, d.region})
            if (!part.isEmpty())
                parts << part;
        if (!d.egressProxy.isEmpty())
            parts << tr("via proxy");
        return parts.isEmpty() ? QStringLiteral("—") : parts.join(QStringLiteral(" · "));
    }
    case Routes: {
        const QStringList routes = ConfigEdits::routesUsingChannel(*config(), c.id);
        return routes.isEmpty() ? QStringLiteral("—") : routes.join(QStringLiteral(", "));
    }
    case Enabled: return c.enabled ? tr("yes") : tr("no");
    default: return {};
    }
}

QVariant ChannelConfigModel::columnTitle(int column) const
{
    switch (column) {
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
