#pragma once

#include "store/Database.h"
#include "store/HistoryCodec.h"
#include "telemetry/HistoryRecords.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QtTest>

namespace sb::test {

// A history database for the console's history pages, made through the real schema (Database's
// migrations). bulkRequests() writes many rows in one SQL statement (a recursive CTE): a million
// rows through the HistoryWriter would take minutes, and the table is the same either way.
// Row x (1-based) has id x, time base + 10·x ms, so the newest-first list shows id N - row at row.
struct HistoryFixture {
    static constexpr qint64 kBaseMs = 1'790'000'000'000;
    static constexpr qint64 kStepMs = 10;

    // Channels 1 and 2 ("gpt-4o/A", "gpt-4o/B") as the configuration tables hold them.
    static void addChannels(Database &db)
    {
        QVERIFY(db.exec(QStringLiteral("INSERT INTO providers (id, name, dialect, base_url, enabled, connect_timeout_ms, primary_timeout_ms,"
                                       " fallback_timeout_ms, requests_per_minute, tokens_per_minute, burst, account, region, egress_proxy, position)"
                                       " VALUES (1, 'openai', 'openai_compat', 'http://127.0.0.1:1/v1', 1, 5000, 30000, 20000, 0, 0, 0, '', '', '', 0)")));
        QVERIFY(db.exec(QStringLiteral("INSERT INTO channels (id, name, provider_id, upstream_model, weight, enabled, account, region, egress_proxy, position)"
                                       " VALUES (1, 'gpt-4o/A', 1, 'gpt-4o', 1, 1, '', '', '', 0), (2, 'gpt-4o/B', 1, 'gpt-4o', 1, 1, '', '', '', 1)")));
    }

    static AttemptRecord attempt(int channel, OutcomeKind outcome, int http, qint64 startedMs, int latencyMs, const QString &message = {})
    {
        AttemptRecord a;
        a.channelId = channel;
        a.channelName = channel == 1 ? QStringLiteral("gpt-4o/A") : QStringLiteral("gpt-4o/B");
        a.keyId = channel * 10;
        a.outcome = outcome;
        a.httpStatus = http;
        a.startedMs = startedMs;
        a.latencyMs = latencyMs;
        a.ttftMs = outcome == OutcomeKind::Success ? latencyMs / 3 : -1;
        a.message = message;
        return a;
    }

    // Every 4th row asks for gpt-4o-mini, the rest gpt-4o; every 10th failed over from channel 1
    // to 2; every 25th is an error; rows alternate channels 1 and 2 otherwise.
    static void bulkRequests(Database &db, int rows)
    {
        const QString one = QString::fromUtf8(HistoryCodec::encodeAttempts({attempt(1, OutcomeKind::Success, 200, 0, 300)}));
        const QString two = QString::fromUtf8(HistoryCodec::encodeAttempts({attempt(2, OutcomeKind::Success, 200, 0, 300)}));
        const QString failover = QString::fromUtf8(HistoryCodec::encodeAttempts(
            {attempt(1, OutcomeKind::ProviderDown, 503, 0, 40, QStringLiteral("upstream 503")), attempt(2, OutcomeKind::Success, 200, 40, 300)}));
        QSqlQuery q(db.connection());
        QVERIFY(q.prepare(QStringLiteral(
            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?)"
            " INSERT INTO requests (id, time_ms, request_id, logical_model, channel_id, channel_name, status, outcome, http_status,"
            " ttft_ms, latency_ms, input_tokens, output_tokens, cost_usd, failover, cache_hit, streamed, error, attempts)"
            " SELECT x, ? + x * ?, 'req-' || x, CASE WHEN x % 4 = 0 THEN 'gpt-4o-mini' ELSE 'gpt-4o' END,"
            " CASE WHEN x % 10 = 0 THEN 2 ELSE 1 + x % 2 END, CASE WHEN x % 10 = 0 OR x % 2 = 1 THEN 'gpt-4o/B' ELSE 'gpt-4o/A' END,"
            " CASE WHEN x % 25 = 0 THEN 'error' ELSE 'ok' END, CASE WHEN x % 25 = 0 THEN 'PROVIDER_DOWN' ELSE 'SUCCESS' END,"
            " CASE WHEN x % 25 = 0 THEN 503 ELSE 200 END, 100 + x % 200, 300 + x % 500, 50, 20, 0.0001, x % 10 = 0, 0, 1,"
            " CASE WHEN x % 25 = 0 THEN 'all channels failed' ELSE '' END,"
            " CASE WHEN x % 10 = 0 THEN ? WHEN x % 2 = 1 THEN ? ELSE ? END FROM n")));
        q.addBindValue(rows);
        q.addBindValue(kBaseMs);
        q.addBindValue(kStepMs);
        q.addBindValue(failover);
        q.addBindValue(two);
        q.addBindValue(one);
        QVERIFY2(q.exec(), qPrintable(q.lastError().text()));
    }
};

} // namespace sb::test
