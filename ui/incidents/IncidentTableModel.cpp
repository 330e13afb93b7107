#include "incidents/IncidentTableModel.h"

#include "ConsoleStyle.h"

#include <QDateTime>

#include <algorithm>

namespace sb {

namespace {

ChannelState stateOf(const QString &state)
{
    if (state == QLatin1String("open"))
        return ChannelState::Open;
    if (state == QLatin1String("half_open"))
        return ChannelState::HalfOpen;
    if (state == QLatin1String("ejected"))
        return ChannelState::Ejected;
    if (state == QLatin1String("drained"))
        return ChannelState::Drained;
    if (state == QLatin1String("misconfigured"))
        return ChannelState::Misconfigured;
    if (state == QLatin1String("degraded"))
        return ChannelState::Degraded;
    return ChannelState::Closed;
}

QString count(qint64 value)
{
    return value < 0 ? QStringLiteral("…") : formatCount(std::uint64_t(value));
}

} // namespace

IncidentTableModel::IncidentTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void IncidentTableModel::setIncidents(std::vector<Incident> incidents, qint64 nowMs)
{
    beginResetModel();
    m_incidents = std::move(incidents);
    m_now = nowMs;
    endResetModel();
}

void IncidentTableModel::setNow(qint64 nowMs)
{
    m_now = nowMs;
    if (!m_incidents.empty())
        emit dataChanged(index(0, Duration), index(rowCount() - 1, Duration));
}

const Incident *IncidentTableModel::incident(int row) const
{
    return row >= 0 && row < rowCount() ? &m_incidents[std::size_t(row)] : nullptr;
}

int IncidentTableModel::openCount() const
{
    return int(std::count_if(m_incidents.begin(), m_incidents.end(), [](const Incident &i) { return i.isOpen(); }));
}

int IncidentTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_incidents.size());
}

int IncidentTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString IncidentTableModel::duration(qint64 ms)
{
    const qint64 s = std::max<qint64>(0, ms / 1000);
    if (s < 60)
        return tr("%1 s").arg(s);
    if (s < 3600)
        return tr("%1 min %2 s").arg(s / 60).arg(s % 60);
    return tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

QString IncidentTableModel::stateLabel(const QString &state)
{
    return state.isEmpty() ? QStringLiteral("—") : stateText(stateOf(state));
}

QVariant IncidentTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    // Headers sit where their column's values do: left for words, right for counts.
    if (role == Qt::TextAlignmentRole)
        return int((section >= Affected ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Status: return tr("Status");
    case Channel: return tr("Channel");
    case Started: return tr("Started");
    case Duration: return tr("Duration");
    case Worst: return tr("Worst state");
    case Affected: return tr("Requests");
    case Failed: return tr("Failed");
    case Failovers: return tr("Failovers");
    case ColumnCount: break;
    }
    return {};
}

void IncidentTableModel::setCountsAvailable(bool available)
{
    if (available == m_countsAvailable)
        return;
    m_countsAvailable = available;
    if (!m_incidents.empty())
        emit dataChanged(index(0, Affected), index(rowCount() - 1, Failovers));
}

QVariant IncidentTableModel::data(const QModelIndex &index, int role) const
{
    const Incident *i = incident(index.row());
    if (!i)
        return {};
    if (role == Qt::DisplayRole) {
        switch (Column(index.column())) {
        case Status: return i->isOpen() ? tr("● open") : tr("resolved");
        case Channel: return i->channelName;
        case Started: return QDateTime::fromMSecsSinceEpoch(i->startMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        case Duration: return duration(i->durationMs(m_now));
        case Worst: return stateLabel(i->worstState);
        case Affected: return m_countsAvailable ? count(i->affectedRequests) : QStringLiteral("—");
        case Failed: return m_countsAvailable ? count(i->failedRequests) : QStringLiteral("—");
        case Failovers: return m_countsAvailable ? count(i->failovers) : QStringLiteral("—");
        case ColumnCount: break;
        }
    }
    if (role == Qt::ForegroundRole) {
        if (index.column() == Status && i->isOpen())
            return stateColor(ChannelState::Open);
        if (index.column() == Worst)
            return stateColor(stateOf(i->worstState));
    }
    if (role == Qt::DecorationRole && index.column() == Channel)
        return channelColor(i->channelId); // the channel's chart colour, as a swatch beside its name
    if (role == Qt::TextAlignmentRole && index.column() >= Affected)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Affected)
        return tr("Requests with an attempt on %1 during the incident").arg(i->channelName);
    return {};
}

} // namespace sb
