#pragma once

#include "store/Database.h"
#include "telemetry/HistoryRecords.h"

#include <QString>
#include <QStringList>

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
        QString clientApi;                                       // "openai_chat", "openai_responses", "anthropic_messages"; empty: any
        int channelId = 0;                                       // 0: any
        std::optional<RequestStatus> status;
        bool failoverOnly = false;
        bool cacheHitsOnly = false;
        int limit = 200;
        // Paging, newest first: pass the last row of the previous page (its timeMs and id); 0 = start
        // at the newest. The order is (time, id) so the time index serves it without a sort.
        qint64 beforeTimeMs = 0;
        qint64 beforeId = 0;
        // Rows to skip after the cursor: a jump into the middle of a long list starts from the
        // nearest page it already has instead of counting from the top.
        qint64 offset = 0;
        // Only rows written up to this id (0: no bound). A list pinned to an id does not shift
        // while new rows arrive; the console asks for the newer ones separately (live tail).
        qint64 maxId = 0;
        qint64 minIdExclusive = 0;                               // only rows written after this id
        // A channel that any attempt went to (answered or failed over from); 0: any. Unlike
        // channelId this finds the requests an incident on that channel touched.
        int attemptChannelId = 0;
    };

    struct RequestTotals {
        qint64 count = 0;
        qint64 errors = 0;
        // Of the errors, the 404s for a model no route or provider has: the caller's mistake, which
        // availability leaves out (ARCHITECTURE.md, "Errors and outcomes").
        qint64 callerErrors = 0;
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
    qint64 count(const RequestQuery &query);         // COUNT(*) only; limit, cursor and offset ignored
    std::optional<RequestRecord> request(qint64 id);
    qint64 latestRequestId();                        // 0 when there is none
    // What `route` spent from `fromMs` on (every route's together when it is empty), in whole
    // minutes: the minute holding `fromMs` counts whole. Budgets' periods start on a minute.
    double spentSince(const QString &route, qint64 fromMs);

    struct ChannelName {
        int channelId = 0;
        QString name;
    };
    // Channels as configured now (id and name), in their configured order.
    std::vector<ChannelName> channelNames();
    QStringList logicalModels();                     // every model a request asked for, sorted

    // Requests per minute for the Overview's TTFT chart in history mode, oldest first.
    struct RequestMinute {
        qint64 minuteMs = 0;
        qint64 count = 0;
        qint64 errors = 0;
        qint64 failovers = 0;
        double ttftAvgMs = -1.0;                     // over requests that measured one
        double ttftMaxMs = -1.0;
    };
    std::vector<RequestMinute> requestsPerMinute(qint64 fromMs, qint64 toMs);
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
