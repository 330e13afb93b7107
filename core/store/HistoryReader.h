#pragma once

#include "store/Database.h"
#include "telemetry/HistoryRecords.h"

#include <QString>

#include <chrono>
#include <limits>
#include <optional>
#include <vector>

namespace sb {

// Read side of the history for the console, on its own connection (WAL lets it read while the
// HistoryWriter writes). Use from the thread that opened it; the console runs it off the GUI
// thread. Every list comes newest first unless it says otherwise.
class HistoryReader {
public:
    struct RequestQuery {
        qint64 fromMs = 0;                                       // inclusive
        qint64 toMs = std::numeric_limits<qint64>::max();        // exclusive
        QString logicalModel;                                    // empty: any
        int channelId = 0;                                       // 0: any
        std::optional<RequestStatus> status;
        bool failoverOnly = false;
        bool cacheHitsOnly = false;
        int limit = 200;
        // Paging, newest first: pass the last row of the previous page (its timeMs and id); 0 = start
        // at the newest. The order is (time, id) so the time index serves it without a sort.
        qint64 beforeTimeMs = 0;
        qint64 beforeId = 0;
    };

    struct RequestTotals {
        qint64 count = 0;
        qint64 errors = 0;
        qint64 failovers = 0;
        qint64 cacheHits = 0;
        double costUsd = 0.0;
        qint64 inputTokens = 0;
        qint64 outputTokens = 0;
    };

    explicit HistoryReader(QString dbPath);

    bool open(QString *error = nullptr);

    std::vector<RequestRecord> requests(const RequestQuery &query);
    RequestTotals totals(const RequestQuery &query); // limit and beforeId are ignored
    std::vector<EventRecord> events(qint64 fromMs, qint64 toMs, std::optional<EventKind> kind = std::nullopt, int limit = 1000);
    // Oldest first (for charts). channelId 0 = every channel.
    std::vector<HealthSample> healthSamples(qint64 fromMs, qint64 toMs, int channelId = 0);
    std::vector<HealthMinute> healthMinutes(qint64 fromMs, qint64 toMs, int channelId = 0);
    // A health chart over any range: per-minute rows (rolled up, or computed on the fly from
    // samples that are not rolled up yet), oldest first. For ranges past 24 h the samples are gone
    // and only this view has them.
    std::vector<HealthMinute> healthPerMinute(qint64 fromMs, qint64 toMs, int channelId = 0);

    QString lastError() const { return m_lastError; }

private:
    Database m_db;
    QString m_lastError;
};

} // namespace sb
