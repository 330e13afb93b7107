#include "models/ChannelTableModel.h"

#include <QSet>

#include <algorithm>

namespace sb {

ChannelTableModel::ChannelTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void ChannelTableModel::setConfig(EngineConfigPtr config)
{
    if (config == m_config)
        return;
    m_config = std::move(config);
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        Row &row = m_rows[i];
        const QString route = routeNames(row.channel.channelId);
        const QString provider = providerName(row.channel);
        if (route != row.route || provider != row.provider) {
            row.route = route;
            row.provider = provider;
            const int r = static_cast<int>(i);
            emit dataChanged(index(r, Route), index(r, Provider));
        }
    }
}

QString ChannelTableModel::routeNames(int channelId) const
{
    if (!m_config)
        return QStringLiteral("—");
    QStringList names;
    for (const RouteConfig &route : m_config->routes) {
        if (std::find(route.channelIds.begin(), route.channelIds.end(), channelId) != route.channelIds.end())
            names << route.logicalModel;
    }
    return names.isEmpty() ? QStringLiteral("—") : names.join(QStringLiteral(", "));
}

QString ChannelTableModel::providerName(const ChannelSnapshot &channel) const
{
    if (m_config) {
        if (const ProviderConfig *provider = m_config->provider(channel.providerId))
            return provider->name;
    }
    return tr("provider %1").arg(channel.providerId);
}

void ChannelTableModel::applySnapshot(const MetricsSnapshot &snapshot)
{
    ++m_stats.snapshots;

    // Channels that left (a config edit removed them): remove their rows, last first.
    QSet<int> present;
    for (const ChannelSnapshot &channel : snapshot.channels)
        present.insert(channel.channelId);
    for (int r = static_cast<int>(m_rows.size()) - 1; r >= 0; --r) {
        if (!present.contains(m_rows[static_cast<std::size_t>(r)].channel.channelId)) {
            beginRemoveRows({}, r, r);
            m_rows.erase(m_rows.begin() + r);
            endRemoveRows();
            ++m_stats.rowsRemoved;
        }
    }
    rebuildIndex();

    std::vector<const ChannelSnapshot *> added;
    for (const ChannelSnapshot &channel : snapshot.channels) {
        const int r = rowOf(channel.channelId);
        if (r < 0) {
            added.push_back(&channel);
            continue;
        }
        Row &row = m_rows[static_cast<std::size_t>(r)];
        Row updated{channel, row.route, providerName(channel)};
        int first = ColumnCount, last = -1;
        for (int column = 0; column < ColumnCount; ++column) {
            if (display(row, column) != display(updated, column) || sortValue(row, column) != sortValue(updated, column)) {
                first = std::min(first, column);
                last = std::max(last, column);
                ++m_stats.cellsChanged;
            }
        }
        // Tooltips (pool reason) and roles may change without the text changing.
        const bool detailsChanged = row.channel.poolReason != channel.poolReason;
        row = std::move(updated);
        if (detailsChanged) {
            first = std::min<int>(first, State);
            last = std::max<int>(last, State);
        }
        if (last >= 0)
            emit dataChanged(index(r, first), index(r, last));
    }

    if (!added.empty()) {
        const int first = static_cast<int>(m_rows.size());
        beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
        for (const ChannelSnapshot *channel : added)
            m_rows.push_back(Row{*channel, routeNames(channel->channelId), providerName(*channel)});
        rebuildIndex();
        endInsertRows();
        m_stats.rowsInserted += added.size();
    }
}

void ChannelTableModel::rebuildIndex()
{
    m_rowOf.clear();
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        m_rowOf.insert(m_rows[i].channel.channelId, static_cast<int>(i));
}

int ChannelTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ChannelTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

static QString errorRate(double rate, std::uint64_t calls)
{
    return calls == 0 ? QStringLiteral("—") : formatPercent(rate);
}

QVariant ChannelTableModel::display(const Row &row, int column) const
{
    const ChannelSnapshot &c = row.channel;
    switch (column) {
    case Route: return row.route;
    case Provider: return row.provider;
    case Channel: return c.name;
    case State: return stateText(channelState(c));
    case Health: return QString::number(c.score, 'f', 0);
    case Err30s: return errorRate(c.errorRate30s, c.calls30s);
    case Err5m: return errorRate(c.errorRate5m, c.calls5m);
    case P95: return formatMs(c.p95Ms);
    case TtftP95: return formatMs(c.ttftP95Ms);
    case InFlight: return formatCount(static_cast<std::uint64_t>(std::max(0, c.inFlight)));
    case Keys: return c.keysTotal > 0 ? QStringLiteral("%1 / %2").arg(c.keysHealthy).arg(c.keysTotal) : QStringLiteral("—");
    case Headroom: return formatPercent(c.headroom, 0);
    default: return {};
    }
}

QVariant ChannelTableModel::sortValue(const Row &row, int column) const
{
    const ChannelSnapshot &c = row.channel;
    switch (column) {
    case Route: return row.route.toLower();
    case Provider: return row.provider.toLower();
    case Channel: return c.name.toLower();
    case State: return stateSeverity(channelState(c));
    case Health: return c.score;
    case Err30s: return c.calls30s == 0 ? -1.0 : c.errorRate30s;
    case Err5m: return c.calls5m == 0 ? -1.0 : c.errorRate5m;
    case P95: return c.p95Ms;
    case TtftP95: return c.ttftP95Ms;
    case InFlight: return c.inFlight;
    case Keys: return c.keysTotal > 0 ? double(c.keysHealthy) / c.keysTotal : -1.0;
    case Headroom: return c.headroom;
    default: return {};
    }
}

QVariant ChannelTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const Row &row = m_rows[static_cast<std::size_t>(index.row())];
    const ChannelSnapshot &c = row.channel;
    switch (role) {
    case Qt::DisplayRole: return display(row, index.column());
    case SortRole: return sortValue(row, index.column());
    case ChannelIdRole: return c.channelId;
    case ProviderIdRole: return c.providerId;
    case StateRole: return static_cast<int>(channelState(c));
    case ScoreRole: return c.score;
    case Qt::TextAlignmentRole:
        if (index.column() >= Err30s)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        switch (index.column()) {
        case State: {
            QString tip = tr("Circuit %1, pool %2").arg(QString::fromLatin1(toString(c.breaker)).replace('_', '-'),
                                                       QString::fromLatin1(toString(c.pool)));
            if (!c.poolReason.isEmpty())
                tip += QStringLiteral("\n") + c.poolReason;
            return tip;
        }
        case Err30s: return tr("%1 calls in the last 30 s").arg(formatCount(c.calls30s));
        case Err5m: return tr("%1 calls in the last 5 min").arg(formatCount(c.calls5m));
        case P95: return tr("p50 %1 · p95 %2 · p99 %3").arg(formatMs(c.p50Ms), formatMs(c.p95Ms), formatMs(c.p99Ms));
        case Headroom: return tr("Share of the provider's rate limit still available");
        default: return {};
        }
    default: return {};
    }
}

QVariant ChannelTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant((section >= Err30s ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Route: return tr("Route");
    case Provider: return tr("Provider");
    case Channel: return tr("Channel");
    case State: return tr("State");
    case Health: return tr("Health");
    case Err30s: return tr("Err 30s");
    case Err5m: return tr("Err 5m");
    case P95: return tr("P95");
    case TtftP95: return tr("TTFT p95");
    case InFlight: return tr("In flight");
    case Keys: return tr("Keys");
    case Headroom: return tr("Headroom");
    default: return {};
    }
}

} // namespace sb
