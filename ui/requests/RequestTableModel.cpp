#include "requests/RequestTableModel.h"

#include "ConsoleStyle.h"
#include "history/HistoryService.h"
#include "requests/RequestFormat.h"

#include <QColor>
#include <QDateTime>
#include <QTimer>

#include <limits>
#include <memory>

namespace sb {

namespace {
const QString kCountKey = QStringLiteral("requests.count");
const QString kLiveKey = QStringLiteral("requests.live");
} // namespace

RequestTableModel::RequestTableModel(HistoryService *history, QObject *parent)
    : QAbstractTableModel(parent), m_history(history)
{
    // Pages asked for while one paint runs go out together once it is done, and only those
    // still wanted then: a scrollbar dragged through half a million rows asks for what it
    // shows at the end, not for every page it passed.
    m_dispatch = new QTimer(this);
    m_dispatch->setSingleShot(true);
    m_dispatch->setInterval(0);
    connect(m_dispatch, &QTimer::timeout, this, &RequestTableModel::dispatchPages);
}

void RequestTableModel::setHistory(HistoryService *history)
{
    m_history = history; // the next reload() or setFilter() counts
}

void RequestTableModel::setFilter(const HistoryReader::RequestQuery &filter)
{
    m_filter = filter;
    reload();
}

void RequestTableModel::reload()
{
    if (!m_history)
        return;
    ++m_stats.countQueries;
    m_counting = true;
    const std::uint64_t generation = ++m_generation;
    m_loadGeneration = generation;
    HistoryReader::RequestQuery query = m_filter;
    struct Answer {
        qint64 newestId = 0;
        qint64 count = 0;
    };
    auto answer = std::make_shared<Answer>();
    m_history->submit(this, kCountKey, [answer, query](HistoryReader &reader) mutable {
        answer->newestId = reader.latestRequestId();
        query.maxId = std::max<qint64>(1, answer->newestId);
        answer->count = answer->newestId > 0 ? reader.count(query) : 0;
    }, [this, answer, generation] {
        if (generation != m_loadGeneration)
            return;
        beginResetModel();
        m_cache.clear();
        m_inFlight.clear();
        m_wanted.clear();
        m_count = answer->count;
        m_pinnedId = answer->newestId;
        m_pendingNew = 0;
        m_pendingNewestId = 0;
        m_counting = false;
        ++m_generation;
        endResetModel();
        emit counted(m_count);
    });
}

void RequestTableModel::checkForNew()
{
    if (m_counting || !m_history)
        return;
    ++m_stats.liveChecks;
    HistoryReader::RequestQuery query = m_filter;
    query.minIdExclusive = std::max<qint64>(0, m_pinnedId);
    struct Answer {
        qint64 newestId = 0;
        qint64 count = 0;
    };
    auto answer = std::make_shared<Answer>();
    const std::uint64_t loadGeneration = m_loadGeneration;
    m_history->submit(this, kLiveKey, [answer, query](HistoryReader &reader) mutable {
        answer->newestId = reader.latestRequestId();
        if (answer->newestId <= query.minIdExclusive)
            return;
        // The rowid range makes this cheap however long the history is.
        query.maxId = answer->newestId;
        answer->count = reader.count(query);
    }, [this, answer, loadGeneration] {
        if (loadGeneration != m_loadGeneration || m_counting)
            return;
        if (answer->newestId > m_pinnedId) {
            m_pendingNew = answer->count;
            m_pendingNewestId = answer->newestId;
        }
        emit newRowsAvailable(m_pendingNew);
    });
}

void RequestTableModel::acceptNew()
{
    if (m_pendingNewestId <= m_pinnedId)
        return;
    const qint64 added = m_pendingNew;
    m_pinnedId = m_pendingNewestId;
    m_pendingNew = 0;
    m_pendingNewestId = 0;
    if (added <= 0)
        return;
    // Rows shift down by `added`. The cache keeps them (shown until fresh pages replace them, so
    // nothing flickers) but they are stale now: a late row (a long stream written when it ended)
    // can sort between them.
    beginInsertRows({}, 0, int(added) - 1);
    std::map<int, CachedRow> shifted;
    for (auto &[row, cached] : m_cache)
        shifted.emplace_hint(shifted.end(), row + int(added), std::move(cached));
    m_cache = std::move(shifted);
    m_inFlight.clear();
    ++m_generation;
    m_count += added;
    m_stats.rowsInserted += std::uint64_t(added);
    endInsertRows();
    if (m_count > 0)
        emit dataChanged(index(0, 0), index(int(m_count) - 1, ColumnCount - 1));
}

const RequestRecord *RequestTableModel::record(int row) const
{
    const auto it = m_cache.find(row);
    return it == m_cache.end() ? nullptr : &it->second.record;
}

int RequestTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(std::min<qint64>(m_count, std::numeric_limits<int>::max()));
}

int RequestTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

bool RequestTableModel::isNumeric(Column column)
{
    return column >= Attempts && column != Failover && column != Cache && column != Api;
}

QVariant RequestTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::TextAlignmentRole)
        return isNumeric(Column(section)) ? int(Qt::AlignRight | Qt::AlignVCenter) : int(Qt::AlignLeft | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Time: return tr("Time");
    case Model: return tr("Model");
    case Channel: return tr("Channel");
    case Status: return tr("Status");
    case Attempts: return tr("Attempts");
    case Failover: return tr("Failover");
    case Ttft: return tr("TTFT");
    case Latency: return tr("Latency");
    case Tokens: return tr("Tokens");
    case Cost: return tr("Cost");
    case Cache: return tr("Cache");
    case Api: return tr("API");
    case ColumnCount: break;
    }
    return {};
}

QVariant RequestTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const auto it = m_cache.find(index.row());
    const bool fresh = it != m_cache.end() && it->second.generation == m_generation;
    if (!fresh && role == Qt::DisplayRole)
        requestPage(index.row() / kPageSize);
    if (role == LoadedRole)
        return it != m_cache.end();
    if (it == m_cache.end()) {
        if (role == Qt::DisplayRole && index.column() == Time)
            return tr("loading…");
        if (role == Qt::ForegroundRole)
            return QColor(128, 128, 128);
        return {};
    }
    const RequestRecord &r = it->second.record;
    switch (role) {
    case Qt::DisplayRole: return display(r, index.column());
    case IdRole: return r.id;
    case Qt::TextAlignmentRole:
        return isNumeric(Column(index.column())) ? int(Qt::AlignRight | Qt::AlignVCenter) : int(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == Status && r.status != RequestStatus::Ok)
            return stateColor(r.status == RequestStatus::Cancelled ? ChannelState::Ejected : ChannelState::Open);
        if (index.column() == Failover && r.failover)
            return QColor(0xd5, 0x5e, 0x00);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == Status && !r.error.isEmpty())
            return RequestFormat::redact(r.error);
        if (index.column() == Tokens)
            return tr("%1 in, %2 out").arg(formatCount(std::uint64_t(std::max(0, r.inputTokens))),
                                            formatCount(std::uint64_t(std::max(0, r.outputTokens))));
        return {};
    default: return {};
    }
}

QVariant RequestTableModel::display(const RequestRecord &r, int column) const
{
    switch (Column(column)) {
    case Time: return RequestFormat::time(r.timeMs);
    case Model: return r.logicalModel;
    case Channel: return r.channelName.isEmpty() ? QStringLiteral("—") : r.channelName;
    case Status: return RequestFormat::status(r);
    case Attempts: return int(r.attempts.size());
    case Failover: return r.failover ? RequestFormat::failoverPath(r) : QString();
    case Ttft: return r.ttftMs >= 0 ? formatMs(r.ttftMs) : QStringLiteral("—");
    case Latency: return r.latencyMs >= 0 ? formatMs(r.latencyMs) : QStringLiteral("—");
    case Tokens: return formatCount(std::uint64_t(std::max(0, r.inputTokens) + std::max(0, r.outputTokens)));
    case Cost: return RequestFormat::cost(r.costUsd);
    case Cache: return r.cacheHit ? tr("hit") : QString();
    case Api: return RequestFormat::clientApi(r.clientApi);
    case ColumnCount: break;
    }
    return {};
}

void RequestTableModel::requestPage(int page) const
{
    if (m_counting)
        return;
    m_wanted.insert(page);
    if (!m_dispatch->isActive())
        m_dispatch->start();
}

void RequestTableModel::dispatchPages()
{
    const std::set<int> wanted = std::move(m_wanted);
    m_wanted.clear();
    for (int page : wanted) {
        if (!m_inFlight.count(page))
            fetchPage(page);
    }
}

void RequestTableModel::fetchPage(int page)
{
    const int first = page * kPageSize;
    if (first >= m_count || !m_history)
        return;
    HistoryReader::RequestQuery query = m_filter;
    query.maxId = std::max<qint64>(1, m_pinnedId);
    query.minIdExclusive = 0;
    query.limit = kPageSize;
    query.offset = first;
    // Start from the nearest fresh row above the page: the (time, id) cursor makes the database
    // seek there, and only the rows between are skipped by offset.
    auto it = m_cache.lower_bound(first);
    while (it != m_cache.begin()) {
        --it;
        if (it->second.generation == m_generation) {
            query.beforeTimeMs = it->second.record.timeMs;
            query.beforeId = it->second.record.id;
            query.offset = first - it->first - 1;
            break;
        }
    }
    ++m_stats.pageFetches;
    m_inFlight.insert(page);
    const std::uint64_t generation = m_generation;
    auto rows = std::make_shared<std::vector<RequestRecord>>();
    m_history->submit(this, QString(), [rows, query](HistoryReader &reader) { *rows = reader.requests(query); },
                      [this, rows, page, generation] { storePage(page, generation, std::move(*rows)); });
}

void RequestTableModel::storePage(int page, std::uint64_t generation, std::vector<RequestRecord> rows)
{
    if (generation != m_generation) {
        ++m_stats.staleAnswers;
        return;
    }
    m_inFlight.erase(page);
    const int first = page * kPageSize;
    const int count = int(std::min<qint64>(qint64(rows.size()), m_count - first));
    if (count <= 0)
        return;
    m_stats.rowsFetched += std::uint64_t(count);
    for (int i = 0; i < count; ++i)
        m_cache[first + i] = CachedRow{std::move(rows[std::size_t(i)]), generation};
    evictAround(first + count / 2);
    emit dataChanged(index(first, 0), index(first + count - 1, ColumnCount - 1));
    emit pageLoaded(first, count);
}

void RequestTableModel::evictAround(int centreRow)
{
    // Keep the rows nearest to where the user is; drop from whichever end is farther.
    while (int(m_cache.size()) > kMaxCachedRows) {
        const int low = m_cache.begin()->first;
        const int high = std::prev(m_cache.end())->first;
        if (centreRow - low > high - centreRow)
            m_cache.erase(m_cache.begin());
        else
            m_cache.erase(std::prev(m_cache.end()));
    }
}

} // namespace sb
