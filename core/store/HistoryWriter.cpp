#include "store/HistoryWriter.h"

#include "common/Clock.h"
#include "store/Database.h"
#include "store/HistoryCodec.h"
#include "store/SqliteStatement.h"

#include <QSqlError>
#include <QSqlQuery>

#include <spdlog/spdlog.h>

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <future>
#include <map>
#include <thread>
#include <utility>
#include <vector>

namespace sb {

namespace {

constexpr qint64 MinuteMs = 60'000;
constexpr qint64 DayMs = 86'400'000;

qint64 retentionCutAt(qint64 nowMs, int retentionDays)
{
    return nowMs - qint64(retentionDays) * DayMs;
}

struct Batch {
    std::vector<EventRecord> events;
    std::vector<RequestRecord> requests;
    std::vector<HealthSample> health;
    std::size_t size() const { return events.size() + requests.size() + health.size(); }
};

template <class T>
void take(std::deque<T> &from, std::vector<T> &to, std::size_t *budget)
{
    const std::size_t n = std::min(*budget, from.size());
    to.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        to.push_back(std::move(from.front()));
        from.pop_front();
    }
    *budget -= n;
}

template <class T>
void take(RowQueue<T> &from, std::vector<T> &to, std::size_t *budget)
{
    const std::size_t n = std::min(*budget, from.size());
    from.takeInto(to, n);
    *budget -= n;
}

// The history is background work and must not hold up requests. On a small machine a 500-row
// batch (3.5-4.6 ms of CPU) sharing a core with the proxy's workers or its clients was the
// requests' p99 (tests/bench, one connection: p90 0.19 ms, p99 2.7-3.1 ms); transactions of
// maxBatchRows with a yield between them bring that to 1.2 ms (nice alone did not: the batch kept
// its core for its whole slice). Larger transactions cost less CPU a row (250 rows: about a sixth
// less on this thread, in fewer commits) but lost requests a second and tail at 50 connections
// on 2 cores (tests/bench/ab.sh, 6 rounds against 100: 0.92x, p99 1.19x). Nice +5 lowers its share of a contended core, and it keeps up: 20 s at about 35,000
// requests a second left every row written within a second of the last. Linux applies nice per
// thread.
void runInBackground()
{
    pthread_setname_np(pthread_self(), "sb-history");
    setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 5);
}

// The writer thread's connection and its prepared statements.
class Sink {
public:
    explicit Sink(const QString &path) : m_db(path, QStringLiteral("history-writer")) {}

    bool open(QString *error)
    {
        if (!m_db.open(error))
            return false;
        const QSqlDatabase c = m_db.connection();
        return m_begin.prepare(c, "BEGIN IMMEDIATE", error) && m_commit.prepare(c, "COMMIT", error)
            && m_request.prepare(c, requestInsert(1).constData(), error)
            && m_requestGroup.prepare(c, requestInsert(kRowsPerInsert).constData(), error)
            && m_event.prepare(c,
                               "INSERT INTO events (time_ms, kind, channel_id, provider_id, key_id, from_state, to_state, message)"
                               " VALUES (?,?,?,?,?,?,?,?)",
                               error)
            && m_health.prepare(c,
                                "INSERT INTO health_samples (time_ms, channel_id, score, error_rate, fast_error_rate, p95_ms, state)"
                                " VALUES (?,?,?,?,?,?,?)",
                                error)
            && m_spend.prepare(c,
                               "INSERT INTO spend_minutes (logical_model, minute_ms, cost_usd) VALUES (?,?,?)"
                               " ON CONFLICT (logical_model, minute_ms) DO UPDATE SET cost_usd = cost_usd + excluded.cost_usd",
                               error);
    }

    bool write(const Batch &batch, QString *error)
    {
        if (!m_begin.exec(error))
            return false;
        bool ok = true;
        for (const auto &e : batch.events) {
            m_event.bind(0, e.timeMs);
            m_event.bind(1, toString(e.kind));
            m_event.bind(2, e.channelId);
            m_event.bind(3, e.providerId);
            m_event.bind(4, e.keyId);
            m_event.bind(5, e.fromState);
            m_event.bind(6, e.toState);
            m_event.bind(7, e.message);
            if (!(ok = m_event.exec(error)))
                break;
        }
        // Whole groups through the many-row statement, the rest one by one.
        std::size_t next = 0;
        for (; ok && next + kRowsPerInsert <= batch.requests.size(); next += kRowsPerInsert) {
            for (std::size_t row = 0; row < kRowsPerInsert; ++row)
                bindRequest(m_requestGroup, int(row) * kRequestColumns, batch.requests[next + row]);
            ok = m_requestGroup.exec(error);
        }
        for (; ok && next < batch.requests.size(); ++next) {
            bindRequest(m_request, 0, batch.requests[next]);
            ok = m_request.exec(error);
        }
        ok = ok && addSpend(batch.requests, error);
        for (std::size_t i = 0; ok && i < batch.health.size(); ++i) {
            const HealthSample &h = batch.health[i];
            m_health.bind(0, h.timeMs);
            m_health.bind(1, h.channelId);
            m_health.bind(2, h.score);
            m_health.bind(3, h.errorRate);
            m_health.bind(4, h.fastErrorRate);
            m_health.bind(5, h.p95Ms);
            m_health.bind(6, h.state);
            ok = m_health.exec(error);
        }
        if (!ok) {
            m_db.exec(QStringLiteral("ROLLBACK"));
            return false;
        }
        if (!m_commit.exec(error)) {
            m_db.exec(QStringLiteral("ROLLBACK"));
            return false;
        }
        return true;
    }

    // Rollup of old health samples to minutes, then retention; one transaction.
    bool maintain(qint64 nowMs, qint64 rollupAfterMs, int retentionDays, std::uint64_t *rolledUp, std::uint64_t *purged, QString *error)
    {
        // Whole minutes only, so a minute is never rolled up from part of its samples.
        const qint64 rollupCut = ((nowMs - rollupAfterMs) / MinuteMs) * MinuteMs;
        const qint64 retentionCut = retentionCutAt(nowMs, retentionDays);
        if (!m_db.exec(QStringLiteral("BEGIN IMMEDIATE"), error))
            return false;
        QSqlQuery q(m_db.connection());
        bool ok = q.prepare(QStringLiteral(
            "INSERT INTO health_minutes (minute_ms, channel_id, samples, score_avg, score_min, error_rate_avg, fast_error_rate_max,"
            " p95_max_ms, state)"
            " SELECT (s.time_ms / 60000) * 60000 AS m, s.channel_id, COUNT(*), AVG(s.score), MIN(s.score), AVG(s.error_rate),"
            " MAX(s.fast_error_rate), MAX(s.p95_ms),"
            " (SELECT l.state FROM health_samples l WHERE l.channel_id = s.channel_id AND l.time_ms >= (s.time_ms / 60000) * 60000"
            "  AND l.time_ms < (s.time_ms / 60000) * 60000 + 60000 ORDER BY l.time_ms DESC LIMIT 1)"
            " FROM health_samples s WHERE s.time_ms < ? GROUP BY m, s.channel_id"
            // Late samples for a minute already rolled up merge into it instead of replacing it.
            " ON CONFLICT (channel_id, minute_ms) DO UPDATE SET"
            "  score_avg = (score_avg * samples + excluded.score_avg * excluded.samples) / (samples + excluded.samples),"
            "  error_rate_avg = (error_rate_avg * samples + excluded.error_rate_avg * excluded.samples) / (samples + excluded.samples),"
            "  samples = samples + excluded.samples,"
            "  score_min = MIN(score_min, excluded.score_min),"
            "  fast_error_rate_max = MAX(fast_error_rate_max, excluded.fast_error_rate_max),"
            "  p95_max_ms = MAX(p95_max_ms, excluded.p95_max_ms),"
            "  state = excluded.state"));
        q.addBindValue(rollupCut);
        ok = ok && q.exec();
        QSqlQuery del(m_db.connection());
        if (ok) {
            ok = del.prepare(QStringLiteral("DELETE FROM health_samples WHERE time_ms < ?"));
            del.addBindValue(rollupCut);
            ok = ok && del.exec();
            *rolledUp += static_cast<std::uint64_t>(std::max(0, del.numRowsAffected()));
        }
        for (const char *sql : {"DELETE FROM requests WHERE time_ms < ?", "DELETE FROM events WHERE time_ms < ?",
                                "DELETE FROM health_samples WHERE time_ms < ?", "DELETE FROM health_minutes WHERE minute_ms < ?",
                                "DELETE FROM spend_minutes WHERE minute_ms < ?"}) {
            if (!ok)
                break;
            ok = del.prepare(QString::fromLatin1(sql));
            del.addBindValue(retentionCut);
            ok = ok && del.exec();
            *purged += static_cast<std::uint64_t>(std::max(0, del.numRowsAffected()));
        }
        if (!ok) {
            if (error)
                *error = q.lastError().isValid() ? q.lastError().text() : del.lastError().text();
            m_db.exec(QStringLiteral("ROLLBACK"));
            return false;
        }
        return m_db.exec(QStringLiteral("COMMIT"), error);
    }

private:
    // Rows of a batch go in groups, several to one INSERT: each statement run costs some 4,000
    // instructions beside its rows' (opening the table's and both indexes' cursors, halting), a
    // third as much again as a row; in groups of 16 it is spread thin.
    static constexpr std::size_t kRowsPerInsert = 16;
    static constexpr int kRequestColumns = 24;

    static QByteArray requestInsert(std::size_t rows)
    {
        QByteArray sql = "INSERT INTO requests (time_ms, request_id, logical_model, channel_id, channel_name, status,"
                         " outcome, http_status, ttft_ms, latency_ms, input_tokens, output_tokens, cost_usd, failover,"
                         " cache_hit, streamed, error, attempts, cost_known, auto_tier, client_api, cache_read_tokens,"
                         " cache_write_tokens, key_id) VALUES ";
        QByteArray row = "(?";
        for (int column = 1; column < kRequestColumns; ++column)
            row += ",?";
        row += ')';
        for (std::size_t i = 0; i < rows; ++i)
            sql += (i ? "," : "") + row;
        return sql;
    }

    // The batch's spend added to its routes' minutes: what budgets read back at start (a route's
    // day is at most 1,440 rows there, its month 44,640, not every request it served). A batch is
    // a quarter of a second of requests or less: one statement for each route that spent in it.
    bool addSpend(const std::vector<RequestRecord> &requests, QString *error)
    {
        std::map<std::pair<QString, qint64>, double> spend;
        for (const RequestRecord &r : requests)
            if (r.costUsd != 0.0)
                spend[{r.logicalModel, (r.timeMs / MinuteMs) * MinuteMs}] += r.costUsd;
        for (const auto &[routeMinute, costUsd] : spend) {
            m_spend.bind(0, routeMinute.first);
            m_spend.bind(1, routeMinute.second);
            m_spend.bind(2, costUsd);
            if (!m_spend.exec(error))
                return false;
        }
        return true;
    }

    // The row's 24 values, from parameter `first` on.
    static void bindRequest(SqliteStatement &insert, int first, const RequestRecord &r)
    {
        insert.bind(first + 0, r.timeMs);
        insert.bind(first + 1, r.requestId);
        insert.bind(first + 2, r.logicalModel);
        insert.bind(first + 3, r.channelId);
        insert.bind(first + 4, r.channelName);
        insert.bind(first + 5, HistoryCodec::statusName(r.status));
        insert.bind(first + 6, toString(r.outcome));
        insert.bind(first + 7, r.httpStatus);
        insert.bind(first + 8, r.ttftMs);
        insert.bind(first + 9, r.latencyMs);
        insert.bind(first + 10, r.inputTokens);
        insert.bind(first + 11, r.outputTokens);
        insert.bind(first + 12, r.costUsd);
        insert.bind(first + 13, r.failover);
        insert.bind(first + 14, r.cacheHit);
        insert.bind(first + 15, r.streamed);
        insert.bind(first + 16, r.error);
        insert.bind(first + 17, HistoryCodec::storedAttempts(r));
        insert.bind(first + 18, r.costKnown);
        insert.bind(first + 19, r.autoTier);
        insert.bind(first + 20, r.clientApi);
        insert.bind(first + 21, r.cacheReadTokens);
        insert.bind(first + 22, r.cacheWriteTokens);
        insert.bind(first + 23, HistoryCodec::lastKeyId(r));
    }

    Database m_db;
    // After m_db: finalized before its connection closes. A batch's BEGIN and COMMIT are prepared
    // too: through QSqlQuery each was parsed again and wrapped, some 8,000 instructions beside
    // what SQLite does to begin and commit.
    SqliteStatement m_begin;
    SqliteStatement m_commit;
    SqliteStatement m_request;
    SqliteStatement m_requestGroup;
    SqliteStatement m_event;
    SqliteStatement m_health;
    SqliteStatement m_spend;
};

} // namespace

HistoryWriter::HistoryWriter(QString dbPath, Clock &clock, Options options)
    : m_options(options)
    , m_clock(clock)
    , m_dbPath(std::move(dbPath))
    , m_retentionDays(std::max(1, options.retentionDays))
{
}

HistoryWriter::HistoryWriter(QString dbPath, Clock &clock)
    : HistoryWriter(std::move(dbPath), clock, Options{})
{
}

HistoryWriter::~HistoryWriter()
{
    stop();
}

bool HistoryWriter::start(QString *error)
{
    std::promise<QString> opened;
    std::future<QString> result = opened.get_future();
    {
        std::lock_guard lock(m_mutex);
        if (m_started)
            return true;
        m_started = true;
        m_stopping = false;
    }
    m_thread = std::thread([this, &opened] {
        runInBackground();
        Sink sink(m_dbPath);
        QString openError;
        if (!sink.open(&openError)) {
            opened.set_value(openError);
            return;
        }
        opened.set_value(QString());
        // `opened` belongs to start()'s frame; it is not touched after this point.
        Clock::TimePoint lastMaintenance = m_clock.now() - std::chrono::duration_cast<Clock::Duration>(m_options.maintenanceEvery);
        std::unique_lock lock(m_mutex);
        for (;;) {
            auto pending = [this] { return m_requests.size() + m_events.size() + m_health.size(); };
            m_wake.wait_for(lock, m_options.flushInterval, [&] {
                return m_stopping || pending() >= std::size_t(m_options.flushRows) || m_flushRequested > m_flushCompleted
                    || m_maintenanceRequested > m_maintenanceCompleted;
            });
            const std::uint64_t flushTarget = m_flushRequested;
            const std::uint64_t maintenanceTarget = m_maintenanceRequested;
            const bool stopping = m_stopping;
            const bool drainAll = stopping || flushTarget > m_flushCompleted;

            // What woke us is written, in transactions of at most maxBatchRows with a yield between
            // them, so a request thread that wakes meanwhile waits for one short transaction, not
            // the whole batch. Rows arriving during the write wait for the next wake-up unless a
            // full flushRows backlog builds (or a flush or stop asks for everything): looping on
            // whatever arrived during the last write would commit every few rows, one WAL sync and a
            // dozen page writes each (the throughput benchmark saw one commit per request).
            const std::size_t due = pending();
            std::size_t written = 0;
            while (pending() > 0 && (written < due || drainAll || pending() >= std::size_t(m_options.flushRows))) {
                if (written > 0) {
                    lock.unlock();
                    std::this_thread::yield();
                    lock.lock();
                }
                Batch batch;
                std::size_t budget = std::size_t(std::max(1, m_options.maxBatchRows));
                take(m_events, batch.events, &budget);
                take(m_requests, batch.requests, &budget);
                take(m_health, batch.health, &budget);
                lock.unlock();
                const Clock::TimePoint started = m_clock.now();
                QString writeError;
                const bool ok = sink.write(batch, &writeError);
                const double millis = toMillis(m_clock.now() - started);
                if (!ok)
                    spdlog::error("history: a batch of {} rows could not be written: {}", batch.size(), writeError.toStdString());
                lock.lock();
                m_stats.lastBatchMillis = millis;
                written += batch.size();
                if (ok) {
                    m_stats.batches += 1;
                    m_stats.eventsWritten += batch.events.size();
                    m_stats.requestsWritten += batch.requests.size();
                    m_stats.healthWritten += batch.health.size();
                    m_stats.rowsWritten += batch.size();
                } else {
                    m_stats.writeErrors += 1;
                    m_stats.droppedEvents += batch.events.size();
                    m_stats.droppedRequests += batch.requests.size();
                    m_stats.droppedHealth += batch.health.size();
                }
            }

            const Clock::TimePoint now = m_clock.now();
            if (maintenanceTarget > m_maintenanceCompleted || now - lastMaintenance >= m_options.maintenanceEvery) {
                lastMaintenance = now;
                lock.unlock();
                std::uint64_t rolled = 0, purged = 0;
                QString maintenanceError;
                const qint64 nowMs = m_clock.wallMillis();
                const int retentionDays = m_retentionDays.load();
                if (!sink.maintain(nowMs, std::chrono::duration_cast<std::chrono::milliseconds>(m_options.rollupAfter).count(),
                                   retentionDays, &rolled, &purged, &maintenanceError))
                    spdlog::error("history: rollup and retention failed: {}", maintenanceError.toStdString());
                else
                    tellRetentionListener(retentionCutAt(nowMs, retentionDays));
                lock.lock();
                m_stats.samplesRolledUp += rolled;
                m_stats.rowsPurged += purged;
            }
            m_flushCompleted = flushTarget;
            m_maintenanceCompleted = maintenanceTarget;
            m_done.notify_all();
            if (stopping)
                break;
        }
    });

    const QString openError = result.get();
    if (!openError.isEmpty()) {
        m_thread.join();
        std::lock_guard lock(m_mutex);
        m_started = false;
        if (error)
            *error = openError;
        return false;
    }
    return true;
}

void HistoryWriter::stop()
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_started)
            return;
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
    std::lock_guard lock(m_mutex);
    m_started = false;
    m_stopping = false;
}

bool HistoryWriter::makeRoomLocked()
{
    if (m_requests.size() + m_events.size() + m_health.size() < m_options.capacity)
        return true;
    if (!m_health.empty()) {
        m_health.pop_front();
        m_stats.droppedHealth += 1;
        return true;
    }
    return false;
}

bool HistoryWriter::enqueue(RequestRecord record)
{
    std::size_t depth = 0;
    {
        std::lock_guard lock(m_mutex);
        if (!makeRoomLocked()) {
            m_stats.droppedRequests += 1;
            // Loud, but not once per row: a stuck disk would otherwise flood the log.
            if (m_stats.droppedRequests == 1 || m_stats.droppedRequests % 10'000 == 0)
                spdlog::warn("history: the write queue is full; {} request rows were not recorded", m_stats.droppedRequests);
            return false;
        }
        m_requests.push_back(std::move(record));
        depth = m_requests.size() + m_events.size() + m_health.size();
    }
    if (depth == std::size_t(m_options.flushRows))
        m_wake.notify_one();
    return true;
}

bool HistoryWriter::enqueue(EventRecord record)
{
    std::size_t depth = 0;
    {
        std::lock_guard lock(m_mutex);
        if (!makeRoomLocked()) {
            m_stats.droppedEvents += 1;
            if (m_stats.droppedEvents == 1 || m_stats.droppedEvents % 10'000 == 0)
                spdlog::warn("history: the write queue is full; {} events were not recorded", m_stats.droppedEvents);
            return false;
        }
        m_events.push_back(std::move(record));
        depth = m_requests.size() + m_events.size() + m_health.size();
    }
    if (depth == std::size_t(m_options.flushRows))
        m_wake.notify_one();
    return true;
}

bool HistoryWriter::enqueue(HealthSample sample)
{
    std::size_t depth = 0;
    {
        std::lock_guard lock(m_mutex);
        if (!makeRoomLocked()) {
            m_stats.droppedHealth += 1; // the queue holds only requests and events: they win
            return false;
        }
        m_health.push_back(std::move(sample));
        depth = m_requests.size() + m_events.size() + m_health.size();
    }
    if (depth == std::size_t(m_options.flushRows))
        m_wake.notify_one();
    return true;
}

void HistoryWriter::flush()
{
    std::unique_lock lock(m_mutex);
    if (!m_started)
        return;
    const std::uint64_t target = ++m_flushRequested;
    m_wake.notify_one();
    m_done.wait(lock, [&] { return m_flushCompleted >= target || !m_started; });
}

void HistoryWriter::runMaintenance()
{
    std::unique_lock lock(m_mutex);
    if (!m_started)
        return;
    const std::uint64_t target = ++m_maintenanceRequested;
    m_wake.notify_one();
    m_done.wait(lock, [&] { return m_maintenanceCompleted >= target || !m_started; });
}

void HistoryWriter::setRetentionDays(int days)
{
    m_retentionDays.store(std::max(1, days));
}

void HistoryWriter::setRetentionListener(RetentionListener listener)
{
    std::lock_guard lock(m_retentionListenerMutex);
    m_retentionListener = std::move(listener);
}

void HistoryWriter::tellRetentionListener(qint64 cutMs)
{
    // Called under its lock, so that whoever clears it may then free what it points to.
    std::lock_guard lock(m_retentionListenerMutex);
    if (m_retentionListener)
        m_retentionListener(cutMs);
}

HistoryWriter::Stats HistoryWriter::stats() const
{
    std::lock_guard lock(m_mutex);
    Stats s = m_stats;
    s.queueDepth = m_requests.size() + m_events.size() + m_health.size();
    return s;
}

} // namespace sb
