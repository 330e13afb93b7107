#pragma once

#include "store/HistoryReader.h"
#include "telemetry/HistoryRecords.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <map>
#include <set>

class QTimer;

namespace sb {

class HistoryService;

// The Requests table over the whole history (a million rows must scroll smoothly).
// Only the row count is known up front (one COUNT query); rows arrive in pages of kPageSize when
// the view paints them, each page starting from the nearest row already loaded ((time, id) cursor
// plus a short offset), and at most kMaxCachedRows stay in memory. The list is pinned to the
// newest request id it was counted at, so rows written meanwhile do not shift it: checkForNew()
// counts them and acceptNew() puts them on top (the live tail).
class RequestTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Time, Model, Channel, Status, Attempts, Failover, Ttft, Latency, Tokens, Cost, Cache, Api, ColumnCount };
    // Right-aligned: the columns of counts and times.
    static bool isNumeric(Column column);
    enum Role { IdRole = Qt::UserRole + 1, LoadedRole };
    static constexpr int kPageSize = 200;
    static constexpr int kMaxCachedRows = 4000;

    struct Stats {
        std::uint64_t countQueries = 0;
        std::uint64_t pageFetches = 0;
        std::uint64_t rowsFetched = 0;
        std::uint64_t staleAnswers = 0; // pages that came back after the list changed
        std::uint64_t liveChecks = 0;
        std::uint64_t rowsInserted = 0; // by the live tail
    };

    explicit RequestTableModel(HistoryService *history, QObject *parent = nullptr);
    // Without a history (no database yet) the table stays empty.
    void setHistory(HistoryService *history);

    // Limit, cursor, offset and id bounds of the query are the model's own; the rest filters.
    void setFilter(const HistoryReader::RequestQuery &filter);
    const HistoryReader::RequestQuery &filter() const { return m_filter; }
    // Counts again from the newest row (drops the cache).
    void reload();
    // Asks how many rows matching the filter were written since the list was pinned; the answer
    // comes as newRowsAvailable().
    void checkForNew();
    // Puts the rows counted by the last checkForNew() on top of the list.
    void acceptNew();
    qint64 pendingNew() const { return m_pendingNew; }

    bool isCounting() const { return m_counting; }
    qint64 totalRows() const { return m_count; }
    // The record shown in a row, or nullptr while its page is loading.
    const RequestRecord *record(int row) const;
    int cachedRows() const { return static_cast<int>(m_cache.size()); }
    const Stats &stats() const { return m_stats; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void counted(qint64 rows);           // after reload() or a filter change
    void newRowsAvailable(qint64 rows);  // after checkForNew(); 0 too
    void pageLoaded(int firstRow, int rows);

private:
    struct CachedRow {
        RequestRecord record;
        std::uint64_t generation = 0;
    };
    void requestPage(int page) const;
    void dispatchPages();
    void fetchPage(int page);
    void storePage(int page, std::uint64_t generation, std::vector<RequestRecord> rows);
    void evictAround(int centreRow);
    QVariant display(const RequestRecord &r, int column) const;

    HistoryService *m_history;
    HistoryReader::RequestQuery m_filter;
    qint64 m_count = 0;
    qint64 m_pinnedId = 0;     // the list holds rows with id <= this
    qint64 m_pendingNew = 0;
    qint64 m_pendingNewestId = 0;
    bool m_counting = false;
    std::uint64_t m_generation = 1; // bumped whenever rows move; older pages are stale
    std::uint64_t m_loadGeneration = 0;
    std::map<int, CachedRow> m_cache;
    // Pages the view asked for during the last paint, and pages on their way (per generation).
    mutable std::set<int> m_wanted;
    std::set<int> m_inFlight;
    QTimer *m_dispatch = nullptr;
    mutable Stats m_stats;
};

} // namespace sb
