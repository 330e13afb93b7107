#include "store/HistoryReader.h"

#include "store/HistoryCodec.h"

#include <QSqlError>
#include <QSqlQuery>

#include <map>

namespace sb {

namespace {

struct Where {
    QStringList clauses;
    QVariantList values;
};

Where requestWhere(const HistoryReader::RequestQuery &q, bool paging)
{
    Where w;
    w.clauses << QStringLiteral("time_ms >= ?") << QStringLiteral("time_ms < ?");
    w.values << q.fromMs << q.toMs;
    if (!q.logicalModel.isEmpty()) {
        w.clauses << QStringLiteral("logical_model = ?");
        w.values << q.logicalModel;
    }
    if (!q.clientApi.isEmpty()) {
        w.clauses << QStringLiteral("client_api = ?");
        w.values << q.clientApi;
    }
    if (q.channelId != 0) {
        w.clauses << QStringLiteral("channel_id = ?");
        w.values << q.channelId;
    }
    if (q.status) {
        w.clauses << QStringLiteral("status = ?");
        w.values << HistoryCodec::statusName(*q.status);
    }
    if (q.failoverOnly)
        w.clauses << QStringLiteral("failover = 1");
    if (q.cacheHitsOnly)
        w.clauses << QStringLiteral("cache_hit = 1");
    if (q.maxId > 0) {
        w.clauses << QStringLiteral("id <= ?");
        w.values << q.maxId;
    }
    if (q.minIdExclusive > 0) {
        w.clauses << QStringLiteral("id > ?");
        w.values << q.minIdExclusive;
    }
    if (q.attemptChannelId != 0) {
        // Attempts are compact JSON with sorted keys, so "ch" comes first in each object and is
        // followed by a comma: the pattern cannot match a longer id (1 vs 12).
        w.clauses << QStringLiteral("(channel_id = ? OR attempts LIKE ?)");
        w.values << q.attemptChannelId << QStringLiteral("%{\"ch\":%1,%").arg(q.attemptChannelId);
    }
    if (paging && q.beforeId > 0) {
        w.clauses << QStringLiteral("(time_ms < ? OR (time_ms = ? AND id < ?))");
        w.values << q.beforeTimeMs << q.beforeTimeMs << q.beforeId;
    }
    return w;
}

bool execWith(QSqlQuery &q, const QString &sql, const QVariantList &values, QString *error)
{
    if (!q.prepare(sql)) {
        *error = q.lastError().text();
        return false;
    }
    for (int i = 0; i < values.size(); ++i)
        q.bindValue(i, values[i]);
    if (!q.exec()) {
        *error = q.lastError().text();
        return false;
    }
    return true;
}

const QString kRequestColumns = QStringLiteral(
    "id, time_ms, request_id, logical_model, channel_id, channel_name, status, outcome, http_status,"
    " ttft_ms, latency_ms, input_tokens, output_tokens, cost_usd, failover, cache_hit, streamed, error, attempts,"
    " cost_known, auto_tier, client_api, cache_read_tokens, cache_write_tokens, key_id");

RequestRecord requestFrom(const QSqlQuery &q)
{
    RequestRecord r;
    r.id = q.value(0).toLongLong();
    r.timeMs = q.value(1).toLongLong();
    r.requestId = q.value(2).toString();
    r.logicalModel = q.value(3).toString();
    r.channelId = q.value(4).toInt();
    r.channelName = q.value(5).toString();
    r.status = HistoryCodec::statusFromName(q.value(6).toString());
    r.outcome = outcomeKindFromString(q.value(7).toString()).value_or(OutcomeKind::ProviderDown);
    r.httpStatus = q.value(8).toInt();
    r.ttftMs = q.value(9).toInt();
    r.latencyMs = q.value(10).toInt();
    r.inputTokens = q.value(11).toInt();
    r.outputTokens = q.value(12).toInt();
    r.costUsd = q.value(13).toDouble();
    r.failover = q.value(14).toBool();
    r.cacheHit = q.value(15).toBool();
    r.streamed = q.value(16).toBool();
    r.error = q.value(17).toString();
    r.costKnown = q.value(19).toBool();
    r.autoTier = q.value(20).toString();
    r.clientApi = q.value(21).toString();
    r.cacheReadTokens = q.value(22).toInt();
    r.cacheWriteTokens = q.value(23).toInt();
    r.attempts = HistoryCodec::attemptsFromStored(q.value(18).toString(), r, q.value(24).toInt()); // after the columns it may repeat
    return r;
}

HealthMinute minuteFrom(const QSqlQuery &q)
{
    HealthMinute m;
    m.minuteMs = q.value(0).toLongLong();
    m.channelId = q.value(1).toInt();
    m.samples = q.value(2).toInt();
    m.scoreAvg = q.value(3).toDouble();
    m.scoreMin = q.value(4).toDouble();
    m.errorRateAvg = q.value(5).toDouble();
    m.fastErrorRateMax = q.value(6).toDouble();
    m.p95MaxMs = q.value(7).toDouble();
    m.state = q.value(8).toString();
    return m;
}

} // namespace

HistoryReader::HistoryReader(QString dbPath)
    : m_db(std::move(dbPath), QStringLiteral("history-reader"))
{
}

bool HistoryReader::open(QString *error)
{
    return m_db.open(error);
}

std::vector<RequestRecord> HistoryReader::requests(const RequestQuery &query)
{
    std::vector<RequestRecord> out;
    const Where w = requestWhere(query, true);
    QSqlQuery q(m_db.connection());
    q.setForwardOnly(true);
    QVariantList values = w.values;
    values << std::max(0, query.limit) << std::max<qint64>(0, query.offset);
    if (!execWith(q, QStringLiteral("SELECT %1 FROM requests WHERE %2 ORDER BY time_ms DESC, id DESC LIMIT ? OFFSET ?")
                         .arg(kRequestColumns, w.clauses.join(QStringLiteral(" AND "))),
                  values, &m_lastError))
        return out;
    while (q.next())
        out.push_back(requestFrom(q));
    return out;
}

qint64 HistoryReader::count(const RequestQuery &query)
{
    const Where w = requestWhere(query, false);
    QSqlQuery q(m_db.connection());
    if (!execWith(q, QStringLiteral("SELECT COUNT(*) FROM requests WHERE %1").arg(w.clauses.join(QStringLiteral(" AND "))),
                  w.values, &m_lastError)
        || !q.next())
        return 0;
    return q.value(0).toLongLong();
}

std::optional<RequestRecord> HistoryReader::request(qint64 id)
{
    QSqlQuery q(m_db.connection());
    if (!execWith(q, QStringLiteral("SELECT %1 FROM requests WHERE id = ?").arg(kRequestColumns), {id}, &m_lastError) || !q.next())
        return std::nullopt;
    return requestFrom(q);
}

qint64 HistoryReader::latestRequestId()
{
    QSqlQuery q(m_db.connection());
    if (!execWith(q, QStringLiteral("SELECT COALESCE(MAX(id), 0) FROM requests"), {}, &m_lastError) || !q.next())
        return 0;
    return q.value(0).toLongLong();
}

std::vector<HistoryReader::ChannelName> HistoryReader::channelNames()
{
    std::vector<ChannelName> out;
    QSqlQuery q(m_db.connection());
    q.setForwardOnly(true);
    if (!execWith(q, QStringLiteral("SELECT id, name FROM channels ORDER BY position, id"), {}, &m_lastError))
        return out;
    while (q.next())
        out.push_back({q.value(0).toInt(), q.value(1).toString()});
    return out;
}

double HistoryReader::spentSince(const QString &route, qint64 fromMs)
{
    const qint64 fromMinute = fromMs - fromMs % 60000;
    QSqlQuery q(m_db.connection());
    const bool ok = route.isEmpty()
        ? execWith(q, QStringLiteral("SELECT COALESCE(SUM(cost_usd), 0) FROM spend_minutes WHERE minute_ms >= ?"),
                   {fromMinute}, &m_lastError)
        : execWith(q, QStringLiteral("SELECT COALESCE(SUM(cost_usd), 0) FROM spend_minutes WHERE logical_model = ? AND minute_ms >= ?"),
                   {route, fromMinute}, &m_lastError);
    return ok && q.next() ? q.value(0).toDouble() : 0.0;
}

QStringList HistoryReader::logicalModels()
{
    // The configured routes, plus whatever the history holds; DISTINCT over the requests would
    // read every row, so the history part only looks at the newest 10,000.
    QStringList out;
    QSqlQuery q(m_db.connection());
    q.setForwardOnly(true);
    if (execWith(q, QStringLiteral("SELECT logical_model FROM routes UNION SELECT DISTINCT logical_model FROM"
                                   " (SELECT logical_model FROM requests ORDER BY id DESC LIMIT 10000)"),
                 {}, &m_lastError)) {
        while (q.next())
            out << q.value(0).toString();
    }
    out.removeDuplicates();
    out.sort();
    return out;
}

std::vector<HistoryReader::RequestMinute> HistoryReader::requestsPerMinute(qint64 fromMs, qint64 toMs)
{
    std::vector<RequestMinute> out;
    QSqlQuery q(m_db.connection());
    q.setForwardOnly(true);
    if (!execWith(q, QStringLiteral("SELECT (time_ms / 60000) * 60000 AS m, COUNT(*), SUM(status != 'ok'), SUM(failover),"
                                    " AVG(CASE WHEN ttft_ms >= 0 THEN ttft_ms END), MAX(ttft_ms)"
                                    " FROM requests WHERE time_ms >= ? AND time_ms < ? GROUP BY m ORDER BY m"),
                  {fromMs, toMs}, &m_lastError))
        return out;
    while (q.next()) {
        RequestMinute m;
        m.minuteMs = q.value(0).toLongLong();
        m.count = q.value(1).toLongLong();
        m.errors = q.value(2).toLongLong();
        m.failovers = q.value(3).toLongLong();
        m.ttftAvgMs = q.value(4).isNull() ? -1.0 : q.value(4).toDouble();
        m.ttftMaxMs = q.value(5).toDouble();
        out.push_back(m);
    }
    return out;
}

HistoryReader::RequestTotals HistoryReader::totals(const RequestQuery &query)
{
    RequestTotals t;
    const Where w = requestWhere(query, false);
    QSqlQuery q(m_db.connection());
    if (!execWith(q, QStringLiteral("SELECT COUNT(*), COALESCE(SUM(status != 'ok'), 0), COALESCE(SUM(failover), 0), COALESCE(SUM(cache_hit), 0),"
                                    " COALESCE(SUM(cost_usd), 0), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),"
                                    " COALESCE(SUM(status = 'error' AND http_status = 404 AND outcome = 'NON_RETRYABLE_PARAM_ERROR'), 0)"
                                    " FROM requests WHERE %1").arg(w.clauses.join(QStringLiteral(" AND "))),
                  w.values, &m_lastError)
        || !q.next())
        return t;
    t.count = q.value(0).toLongLong();
    t.errors = q.value(1).toLongLong();
    t.failovers = q.value(2).toLongLong();
    t.cacheHits = q.value(3).toLongLong();
    t.costUsd = q.value(4).toDouble();
    t.inputTokens = q.value(5).toLongLong();
    t.outputTokens = q.value(6).toLongLong();
    t.callerErrors = q.value(7).toLongLong();
    return t;
}

std::vector<EventRecord> HistoryReader::events(qint64 fromMs, qint64 toMs, std::optional<EventKind> kind, int limit)
{
    std::vector<EventRecord> out;
    QSqlQuery q(m_db.connection());
    q.setForwardOnly(true);
    QVariantList values{fromMs, toMs};
    QString sql = QStringLiteral("SELECT id, time_ms, kind, channel_id, provider_id, key_id, from_state, to_state, message FROM events"
                                 " WHERE time_ms >= ? AND time_ms < ?");
    if (kind) {
        sql += QStringLiteral(" AND kind = ?");
        values << QString::fromLatin1(toString(*kind));
    }
    sql += QStringLiteral(" ORDER BY time_ms DESC, id DESC LIMIT ?");
    values << std::max(0, limit);
    if (!execWith(q, sql, values, &m_lastError))
        return out;
    while (q.next()) {
        EventRecord e;
        e.id = q.value(0).toLongLong();
        e.timeMs = q.value(1).toLongLong();
        e.kind = HistoryCodec::eventKindFromName(q.value(2).toString());
        e.channelId = q.value(3).toInt();
        e.providerId = q.value(4).toInt();
        e.keyId = q.value(5).toInt();
        e.fromState = q.value(6).toString();
        e.toState = q.value(7).toString();
        e.message = q.value(8).toString();
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<HealthSample> HistoryReader::healthSamples(qint64 fromMs, qint64 toMs, int channelId)
{
    std::vector<HealthSample> out;
    QSqlQuery q(m_db.connection());
    q.setForwardOnly(true);
    QVariantList values{fromMs, toMs};
    QString sql = QStringLiteral("SELECT time_ms, channel_id, score, error_rate, fast_error_rate, p95_ms, state FROM health_samples"
                                 " WHERE time_ms >= ? AND time_ms < ?");
    if (channelId != 0) {
        sql += QStringLiteral(" AND channel_id = ?");
        values << channelId;
    }
    sql += QStringLiteral(" ORDER BY time_ms, channel_id");
    if (!execWith(q, sql, values, &m_lastError))
        return out;
    while (q.next())
        out.push_back(HealthSample{q.value(0).toLongLong(), q.value(1).toInt(), q.value(2).toDouble(), q.value(3).toDouble(),
                                   q.value(4).toDouble(), q.value(5).toDouble(), q.value(6).toString()});
    return out;
}

std::vector<HealthMinute> HistoryReader::healthMinutes(qint64 fromMs, qint64 toMs, int channelId)
{
    std::vector<HealthMinute> out;
    QSqlQuery q(m_db.connection());
    q.setForwardOnly(true);
    QVariantList values{fromMs, toMs};
    QString sql = QStringLiteral("SELECT minute_ms, channel_id, samples, score_avg, score_min, error_rate_avg, fast_error_rate_max,"
                                 " p95_max_ms, state FROM health_minutes WHERE minute_ms >= ? AND minute_ms < ?");
    if (channelId != 0) {
        sql += QStringLiteral(" AND channel_id = ?");
        values << channelId;
    }
    sql += QStringLiteral(" ORDER BY minute_ms, channel_id");
    if (!execWith(q, sql, values, &m_lastError))
        return out;
    while (q.next())
        out.push_back(minuteFrom(q));
    return out;
}

std::vector<HealthMinute> HistoryReader::healthPerMinute(qint64 fromMs, qint64 toMs, int channelId)
{
    // Rolled-up minutes plus minutes computed from raw samples; a minute can be in both only if
    // late samples arrived after its rollup, and then the rolled-up row wins (it has the most).
    std::map<std::pair<qint64, int>, HealthMinute> merged;
    QSqlQuery q(m_db.connection());
    q.setForwardOnly(true);
    QVariantList values{fromMs, toMs};
    QString sql = QStringLiteral(
        "SELECT (s.time_ms / 60000) * 60000 AS m, s.channel_id, COUNT(*), AVG(s.score), MIN(s.score), AVG(s.error_rate),"
        " MAX(s.fast_error_rate), MAX(s.p95_ms),"
        " (SELECT l.state FROM health_samples l WHERE l.channel_id = s.channel_id AND l.time_ms >= (s.time_ms / 60000) * 60000"
        "  AND l.time_ms < (s.time_ms / 60000) * 60000 + 60000 ORDER BY l.time_ms DESC LIMIT 1)"
        " FROM health_samples s WHERE s.time_ms >= ? AND s.time_ms < ?");
    if (channelId != 0) {
        sql += QStringLiteral(" AND s.channel_id = ?");
        values << channelId;
    }
    sql += QStringLiteral(" GROUP BY m, s.channel_id");
    if (!execWith(q, sql, values, &m_lastError))
        return {};
    while (q.next()) {
        const HealthMinute m = minuteFrom(q);
        merged[{m.minuteMs, m.channelId}] = m;
    }
    for (const HealthMinute &m : healthMinutes(fromMs, toMs, channelId))
        merged[{m.minuteMs, m.channelId}] = m;
    std::vector<HealthMinute> out;
    out.reserve(merged.size());
    for (auto &[key, m] : merged)
        out.push_back(std::move(m));
    return out;
}

} // namespace sb
