#include "store/Database.h"
#include "store/HistoryReader.h"
#include "store/HistoryWriter.h"

#include "FakeClock.h"

#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <thread>

using namespace sb;
using namespace std::chrono_literals;

namespace {

constexpr qint64 MinuteMs = 60'000;
constexpr qint64 HourMs = 3'600'000;
constexpr qint64 DayMs = 24 * HourMs;

RequestRecord request(qint64 timeMs, const QString &model = QStringLiteral("gpt-4o"), RequestStatus status = RequestStatus::Ok)
{
    RequestRecord r;
    r.requestId = QStringLiteral("req-%1").arg(timeMs);
    r.timeMs = timeMs;
    r.logicalModel = model;
    r.channelId = 1;
    r.channelName = QStringLiteral("gpt-4o/A");
    r.status = status;
    r.httpStatus = status == RequestStatus::Ok ? 200 : 503;
    return r;
}

HealthSample sample(qint64 timeMs, int channel, double score, const QString &state = QStringLiteral("closed"))
{
    HealthSample h;
    h.timeMs = timeMs;
    h.channelId = channel;
    h.score = score;
    h.errorRate = (100.0 - score) / 100.0;
    h.fastErrorRate = h.errorRate * 2;
    h.p95Ms = 1000.0 - score;
    h.state = state;
    return h;
}

struct Fixture {
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("history.db"));
    test::FakeClock clock;
};

} // namespace

class tst_HistoryWriter : public QObject {
    Q_OBJECT
private slots:
    void everyKindOfRowIsWrittenAndReadBack()
    {
        Fixture f;
        HistoryWriter writer(f.path, f.clock);
        QString error;
        QVERIFY2(writer.start(&error), qPrintable(error));
        const qint64 t = f.clock.wallMillis();

        RequestRecord r = request(t);
        r.channelId = 2;
        r.channelName = QStringLiteral("gpt-4o/B");
        r.outcome = OutcomeKind::Success;
        r.ttftMs = 280;
        r.latencyMs = 1900;
        r.inputTokens = 120;
        r.outputTokens = 480;
        r.cacheReadTokens = 90; // parts of the 120 input tokens
        r.cacheWriteTokens = 20;
        r.costUsd = 0.0051;
        r.failover = true;
        r.cacheHit = false;
        r.streamed = true;
        AttemptRecord first{1, QStringLiteral("gpt-4o/A"), 7, OutcomeKind::ProviderDown, OutcomePhase::BeforeFirstByte, 503, t, 40, -1,
                            QStringLiteral("upstream said 503")};
        AttemptRecord second{2, QStringLiteral("gpt-4o/B"), 9, OutcomeKind::Success, OutcomePhase::BeforeFirstByte, 200, t + 41, 1850, 239, {}};
        r.attempts = {first, second};
        QVERIFY(writer.enqueue(r));

        EventRecord e;
        e.timeMs = t + 5;
        e.kind = EventKind::CircuitTransition;
        e.channelId = 1;
        e.providerId = 3;
        e.fromState = QStringLiteral("closed");
        e.toState = QStringLiteral("open");
        e.message = QStringLiteral("gpt-4o/A opened: 5 failures in a row");
        QVERIFY(writer.enqueue(e));
        QVERIFY(writer.enqueue(sample(t, 1, 42.5, QStringLiteral("open"))));
        writer.flush();

        const auto stats = writer.stats();
        QCOMPARE(stats.requestsWritten, 1u);
        QCOMPARE(stats.eventsWritten, 1u);
        QCOMPARE(stats.healthWritten, 1u);
        QCOMPARE(stats.rowsWritten, 3u);
        QCOMPARE(stats.queueDepth, 0u);

        HistoryReader reader(f.path);
        QVERIFY(reader.open());
        const auto rows = reader.requests({});
        QCOMPARE(rows.size(), std::size_t(1));
        const RequestRecord &got = rows[0];
        QVERIFY(got.id > 0);
        QCOMPARE(got.requestId, r.requestId);
        QCOMPARE(got.timeMs, t);
        QCOMPARE(got.channelName, QStringLiteral("gpt-4o/B"));
        QCOMPARE(got.status, RequestStatus::Ok);
        QCOMPARE(got.ttftMs, 280);
        QCOMPARE(got.latencyMs, 1900);
        QCOMPARE(got.inputTokens, 120);
        QCOMPARE(got.outputTokens, 480);
        QCOMPARE(got.cacheReadTokens, 90);
        QCOMPARE(got.cacheWriteTokens, 20);
        QCOMPARE(got.costUsd, 0.0051);
        QVERIFY(got.failover);
        QVERIFY(!got.cacheHit);
        QVERIFY(got.streamed);
        QCOMPARE(got.attempts.size(), std::size_t(2));
        QCOMPARE(got.attempts[0].outcome, OutcomeKind::ProviderDown);
        QCOMPARE(got.attempts[0].httpStatus, 503);
        QCOMPARE(got.attempts[0].keyId, 7);
        QCOMPARE(got.attempts[0].message, QStringLiteral("upstream said 503"));
        QCOMPARE(got.attempts[1].ttftMs, 239);
        QCOMPARE(got.attempts[1].startedMs, t + 41);

        const auto events = reader.events(t, t + 1000);
        QCOMPARE(events.size(), std::size_t(1));
        QCOMPARE(events[0].kind, EventKind::CircuitTransition);
        QCOMPARE(events[0].toState, QStringLiteral("open"));
        QCOMPARE(events[0].message, e.message);
        QCOMPARE(reader.events(t, t + 1000, EventKind::Failover).size(), std::size_t(0));

        const auto health = reader.healthSamples(t - 1, t + 1);
        QCOMPARE(health.size(), std::size_t(1));
        QCOMPARE(health[0].score, 42.5);
        QCOMPARE(health[0].state, QStringLiteral("open"));
    }

    void rowsAreWrittenInBatchesOfAtMostMaxBatchRows()
    {
        Fixture f;
        HistoryWriter::Options options;
        options.maxBatchRows = 100;
        HistoryWriter writer(f.path, f.clock, options);
        for (int i = 0; i < 1000; ++i) // queued before the thread starts: one drain, ten transactions
            QVERIFY(writer.enqueue(request(f.clock.wallMillis() + i)));
        QCOMPARE(writer.stats().queueDepth, 1000u);
        QVERIFY(writer.start());
        writer.flush();
        QCOMPARE(writer.stats().batches, 10u);
        QCOMPARE(writer.stats().requestsWritten, 1000u);
    }

    // A batch goes in several rows to a statement and the rest one by one: 37 rows, each with its
    // own value in every column, come back whole and in the order they were queued.
    void rowsWrittenSeveralToAStatementKeepEveryValue()
    {
        Fixture f;
        HistoryWriter writer(f.path, f.clock);
        const qint64 t = f.clock.wallMillis();
        std::vector<RequestRecord> sent;
        for (int i = 0; i < 37; ++i) {
            RequestRecord r = request(t + i, QStringLiteral("model-%1").arg(i), i % 5 ? RequestStatus::Ok : RequestStatus::Error);
            r.channelId = 100 + i;
            r.channelName = QStringLiteral("channel-%1").arg(i);
            r.outcome = i % 5 ? OutcomeKind::Success : OutcomeKind::ProviderDown;
            r.httpStatus = 200 + i;
            r.ttftMs = 10 + i;
            r.latencyMs = 20 + i;
            r.inputTokens = 30 + i;
            r.outputTokens = 40 + i;
            r.costUsd = 0.001 * i;
            r.costKnown = i % 2 == 0;
            r.failover = i % 3 == 0;
            r.cacheHit = i % 4 == 0;
            r.streamed = i % 2 == 1;
            r.error = i % 5 ? QString() : QStringLiteral("error %1 — ü").arg(i);
            r.autoTier = QStringLiteral("tier-%1").arg(i);
            r.clientApi = QStringLiteral("api-%1").arg(i);
            r.cacheReadTokens = i;
            r.cacheWriteTokens = 2 * i;
            r.attempts = {AttemptRecord{r.channelId, r.channelName, i, r.outcome, OutcomePhase::BeforeFirstByte, r.httpStatus,
                                        t + i, r.latencyMs, r.ttftMs, QStringLiteral("attempt %1").arg(i)}};
            sent.push_back(r);
            QVERIFY(writer.enqueue(r));
        }
        QVERIFY(writer.start()); // queued before the thread starts: one transaction
        writer.flush();
        QCOMPARE(writer.stats().batches, 1u);

        HistoryReader reader(f.path);
        QVERIFY(reader.open());
        HistoryReader::RequestQuery all;
        all.limit = 100;
        std::vector<RequestRecord> got = reader.requests(all);
        QCOMPARE(got.size(), sent.size());
        std::reverse(got.begin(), got.end()); // newest first
        for (std::size_t i = 0; i < sent.size(); ++i) {
            const RequestRecord &s = sent[i];
            const RequestRecord &g = got[i];
            if (i > 0)
                QVERIFY(g.id > got[i - 1].id);
            QCOMPARE(g.requestId, s.requestId);
            QCOMPARE(g.timeMs, s.timeMs);
            QCOMPARE(g.logicalModel, s.logicalModel);
            QCOMPARE(g.channelId, s.channelId);
            QCOMPARE(g.channelName, s.channelName);
            QCOMPARE(g.status, s.status);
            QCOMPARE(g.outcome, s.outcome);
            QCOMPARE(g.httpStatus, s.httpStatus);
            QCOMPARE(g.ttftMs, s.ttftMs);
            QCOMPARE(g.latencyMs, s.latencyMs);
            QCOMPARE(g.inputTokens, s.inputTokens);
            QCOMPARE(g.outputTokens, s.outputTokens);
            QCOMPARE(g.costUsd, s.costUsd);
            QCOMPARE(g.costKnown, s.costKnown);
            QCOMPARE(g.failover, s.failover);
            QCOMPARE(g.cacheHit, s.cacheHit);
            QCOMPARE(g.streamed, s.streamed);
            QCOMPARE(g.error, s.error);
            QCOMPARE(g.autoTier, s.autoTier);
            QCOMPARE(g.clientApi, s.clientApi);
            QCOMPARE(g.cacheReadTokens, s.cacheReadTokens);
            QCOMPARE(g.cacheWriteTokens, s.cacheWriteTokens);
            QCOMPARE(g.attempts.size(), std::size_t(1));
            QCOMPARE(g.attempts[0].keyId, s.attempts[0].keyId);
            QCOMPARE(g.attempts[0].message, s.attempts[0].message);
        }
    }

    // A request its first attempt served (most of them) is written without an attempts array: the
    // row's columns and its key_id say it. It reads back with that attempt, and a search for the
    // requests a channel was tried on finds it.
    void aRequestServedByItsFirstAttemptStoresNoArray()
    {
        Fixture f;
        HistoryWriter writer(f.path, f.clock);
        QVERIFY(writer.start());
        const qint64 t = f.clock.wallMillis();
        RequestRecord plain = request(t);
        plain.channelId = 3;
        plain.latencyMs = 812;
        plain.ttftMs = 240;
        plain.attempts = {AttemptRecord{3, plain.channelName, 9, OutcomeKind::Success, OutcomePhase::BeforeFirstByte, 200, t, 812, 240, {}}};
        RequestRecord retried = plain;
        retried.requestId = QStringLiteral("retried");
        retried.failover = true;
        retried.attempts.insert(retried.attempts.begin(), AttemptRecord{4, QStringLiteral("gpt-4o/B"), 2, OutcomeKind::RetryableRateLimit,
                                                                        OutcomePhase::BeforeFirstByte, 429, t, 5, -1, {}});
        QVERIFY(writer.enqueue(plain));
        QVERIFY(writer.enqueue(retried));
        writer.flush();

        Database db(f.path, QStringLiteral("test"));
        QVERIFY(db.open());
        QSqlQuery raw(db.connection());
        QVERIFY(raw.exec(QStringLiteral("SELECT attempts, key_id FROM requests ORDER BY id")));
        QVERIFY(raw.next());
        QCOMPARE(raw.value(0).toString(), QString());
        QCOMPARE(raw.value(1).toInt(), 9);
        QVERIFY(raw.next());
        QVERIFY(raw.value(0).toString().startsWith(QLatin1String("[{")));
        QCOMPARE(raw.value(1).toInt(), 9); // the last attempt's

        HistoryReader reader(f.path);
        QVERIFY(reader.open());
        HistoryReader::RequestQuery onChannel3;
        onChannel3.attemptChannelId = 3;
        const std::vector<RequestRecord> got = reader.requests(onChannel3);
        QCOMPARE(got.size(), std::size_t(2));
        const RequestRecord &back = got[0].requestId == plain.requestId ? got[0] : got[1];
        QCOMPARE(back.requestId, plain.requestId);
        QCOMPARE(back.attempts.size(), std::size_t(1));
        const AttemptRecord &a = back.attempts[0];
        QCOMPARE(a.channelId, 3);
        QCOMPARE(a.channelName, plain.channelName);
        QCOMPARE(a.keyId, 9);
        QCOMPARE(a.outcome, OutcomeKind::Success);
        QCOMPARE(a.phase, OutcomePhase::BeforeFirstByte);
        QCOMPARE(a.httpStatus, 200);
        QCOMPARE(a.startedMs, t);
        QCOMPARE(a.latencyMs, 812);
        QCOMPARE(a.ttftMs, 240);
        QVERIFY(a.message.isEmpty());
        const RequestRecord &twice = got[0].requestId == plain.requestId ? got[1] : got[0];
        QCOMPARE(twice.attempts.size(), std::size_t(2));
        QCOMPARE(twice.attempts[0].keyId, 2);
        QCOMPARE(twice.attempts[1].keyId, 9);
    }

    void requestsCanBeFilteredAndPaged()
    {
        Fixture f;
        HistoryWriter writer(f.path, f.clock);
        QVERIFY(writer.start());
        const qint64 t0 = f.clock.wallMillis();
        for (int i = 0; i < 50; ++i) {
            RequestRecord r = request(t0 + i * 1000, i % 2 ? QStringLiteral("gpt-4o") : QStringLiteral("claude"),
                                      i % 5 == 0 ? RequestStatus::Error : RequestStatus::Ok);
            r.failover = i % 10 == 3;
            r.cacheHit = i == 7;
            r.costUsd = 0.01;
            r.channelId = i < 25 ? 1 : 2;
            writer.enqueue(r);
        }
        writer.flush();
        HistoryReader reader(f.path);
        QVERIFY(reader.open());

        HistoryReader::RequestQuery q;
        q.logicalModel = QStringLiteral("gpt-4o");
        QCOMPARE(reader.requests(q).size(), std::size_t(25));
        q = {};
        q.status = RequestStatus::Error;
        QCOMPARE(reader.requests(q).size(), std::size_t(10));
        q = {};
        q.failoverOnly = true;
        QCOMPARE(reader.requests(q).size(), std::size_t(5));
        q = {};
        q.cacheHitsOnly = true;
        QCOMPARE(reader.requests(q).size(), std::size_t(1));
        q = {};
        q.channelId = 2;
        q.fromMs = t0 + 30'000;
        q.toMs = t0 + 40'000; // exclusive
        QCOMPARE(reader.requests(q).size(), std::size_t(10));

        const auto totals = reader.totals({});
        QCOMPARE(totals.count, qint64(50));
        QCOMPARE(totals.errors, qint64(10));
        QCOMPARE(totals.failovers, qint64(5));
        QCOMPARE(totals.cacheHits, qint64(1));
        QVERIFY(qAbs(totals.costUsd - 0.5) < 1e-9);

        // Pages: newest first, no overlap, nothing missed.
        q = {};
        q.limit = 20;
        QSet<qint64> seen;
        qint64 previousTime = std::numeric_limits<qint64>::max();
        for (int page = 0; page < 3; ++page) {
            const auto rows = reader.requests(q);
            QCOMPARE(rows.size(), std::size_t(page < 2 ? 20 : 10));
            for (const auto &r : rows) {
                QVERIFY(!seen.contains(r.id));
                QVERIFY(r.timeMs < previousTime);
                previousTime = r.timeMs;
                seen.insert(r.id);
            }
            q.beforeTimeMs = rows.back().timeMs;
            q.beforeId = rows.back().id;
        }
        QCOMPARE(seen.size(), 50);
        QVERIFY(reader.requests(q).empty());
    }

    // A 404 for a model no route has is the caller's mistake: the Overview's 1 h / 24 h availability
    // leaves it out, and it must be told apart from a 404 that is no such thing.
    void totalsTellTheCallersUnknownModelFromOtherErrors()
    {
        Fixture f;
        HistoryWriter writer(f.path, f.clock);
        QVERIFY(writer.start());
        const qint64 t0 = f.clock.wallMillis();
        writer.enqueue(request(t0));
        RequestRecord unknownModel = request(t0 + 1, QStringLiteral("gpt-5"), RequestStatus::Error);
        unknownModel.httpStatus = 404;
        unknownModel.channelId = 0;
        unknownModel.outcome = OutcomeKind::NonRetryableParamError;
        writer.enqueue(unknownModel);
        writer.enqueue(unknownModel);
        RequestRecord outage = request(t0 + 2, QStringLiteral("gpt-4o"), RequestStatus::Error);
        outage.outcome = OutcomeKind::ProviderDown;
        writer.enqueue(outage);
        RequestRecord endpointGone = outage; // a provider's 404 for its endpoint is the provider's
        endpointGone.httpStatus = 404;
        writer.enqueue(endpointGone);
        writer.flush();

        HistoryReader reader(f.path);
        QVERIFY(reader.open());
        const auto totals = reader.totals({});
        QCOMPARE(totals.count, qint64(5));
        QCOMPARE(totals.errors, qint64(4));
        QCOMPARE(totals.callerErrors, qint64(2));
    }

    void aFullQueueDropsTheOldestHealthSamplesFirstAndCountsRefusedRequests()
    {
        Fixture f;
        HistoryWriter::Options options;
        options.capacity = 10;
        HistoryWriter writer(f.path, f.clock, options); // not started: the queue only fills
        const qint64 t = f.clock.wallMillis();
        for (int i = 0; i < 5; ++i)
            QVERIFY(writer.enqueue(sample(t + i, 1, 90)));
        for (int i = 0; i < 5; ++i)
            QVERIFY(writer.enqueue(request(t + i)));
        QCOMPARE(writer.stats().queueDepth, 10u);

        // Full: each new request pushes out the oldest health sample.
        for (int i = 5; i < 10; ++i)
            QVERIFY(writer.enqueue(request(t + i)));
        auto s = writer.stats();
        QCOMPARE(s.droppedHealth, 5u);
        QCOMPARE(s.droppedRequests, 0u);
        QCOMPARE(s.queueDepth, 10u);

        // Nothing left to give way: the new rows are refused, and counted, never lost silently.
        QVERIFY(!writer.enqueue(request(t + 10)));
        EventRecord e;
        e.timeMs = t;
        QVERIFY(!writer.enqueue(e));
        QVERIFY(!writer.enqueue(sample(t + 10, 1, 90)));
        s = writer.stats();
        QCOMPARE(s.droppedRequests, 1u);
        QCOMPARE(s.droppedEvents, 1u);
        QCOMPARE(s.droppedHealth, 6u);

        QVERIFY(writer.start());
        writer.flush();
        s = writer.stats();
        QCOMPARE(s.requestsWritten, 10u);
        QCOMPARE(s.healthWritten, 0u);
        HistoryReader reader(f.path);
        QVERIFY(reader.open());
        const auto rows = reader.requests({});
        QCOMPARE(rows.size(), std::size_t(10));
        QCOMPARE(rows.front().timeMs, t + 9); // the ten that were accepted, in order
        QCOMPARE(rows.back().timeMs, t);
    }

    void healthOlderThan24HoursIsRolledUpPerMinute()
    {
        Fixture f;
        HistoryWriter writer(f.path, f.clock);
        QVERIFY(writer.start());
        const qint64 now = f.clock.wallMillis();
        const qint64 oldMinute = ((now - 25 * HourMs) / MinuteMs) * MinuteMs;
        // Two old minutes of channel 1 at one sample per second, and one of channel 2.
        for (int s = 0; s < 120; ++s)
            writer.enqueue(sample(oldMinute + s * 1000, 1, s < 60 ? 80.0 + (s % 2) * 10.0 : 20.0,
                                  s == 119 ? QStringLiteral("open") : QStringLiteral("closed")));
        for (int s = 0; s < 60; ++s)
            writer.enqueue(sample(oldMinute + s * 1000, 2, 100.0));
        // Recent samples stay as they are.
        const qint64 recent = now - HourMs;
        for (int s = 0; s < 30; ++s)
            writer.enqueue(sample(recent + s * 1000, 1, 70.0));
        writer.flush();
        writer.runMaintenance();

        HistoryReader reader(f.path);
        QVERIFY(reader.open());
        QVERIFY(reader.healthSamples(oldMinute, oldMinute + 2 * MinuteMs).empty());
        QCOMPARE(reader.healthSamples(recent, now).size(), std::size_t(30));
        QCOMPARE(writer.stats().samplesRolledUp, 180u);

        const auto minutes = reader.healthMinutes(oldMinute, oldMinute + 2 * MinuteMs, 1);
        QCOMPARE(minutes.size(), std::size_t(2));
        QCOMPARE(minutes[0].minuteMs, oldMinute);
        QCOMPARE(minutes[0].samples, 60);
        QCOMPARE(minutes[0].scoreAvg, 85.0);
        QCOMPARE(minutes[0].scoreMin, 80.0);
        QCOMPARE(minutes[0].state, QStringLiteral("closed"));
        QCOMPARE(minutes[1].scoreAvg, 20.0);
        QCOMPARE(minutes[1].p95MaxMs, 980.0);
        QCOMPARE(minutes[1].state, QStringLiteral("open")); // the last state of the minute
        QCOMPARE(reader.healthMinutes(oldMinute, oldMinute + 2 * MinuteMs).size(), std::size_t(3));

        // A chart over the whole day and more: rolled-up minutes plus minutes computed from samples.
        const auto series = reader.healthPerMinute(oldMinute, now, 1);
        QCOMPARE(series.size(), std::size_t(3));
        QCOMPARE(series[2].samples, 30);
        QCOMPARE(series[2].scoreAvg, 70.0);

        // A late sample for a rolled-up minute merges into it instead of replacing it.
        writer.enqueue(sample(oldMinute + 30'500, 1, 25.0));
        writer.flush();
        writer.runMaintenance();
        const auto merged = reader.healthMinutes(oldMinute, oldMinute + MinuteMs, 1);
        QCOMPARE(merged.size(), std::size_t(1));
        QCOMPARE(merged[0].samples, 61);
        QCOMPARE(merged[0].scoreMin, 25.0);
        QVERIFY(qAbs(merged[0].scoreAvg - (85.0 * 60 + 25.0) / 61) < 1e-9);
    }

    void spendIsReadBackByRouteAndMinute()
    {
        // What budgets read at start: each route's spend from a time on, summed by the writer into
        // minutes as batches go in, whichever batch a row came in and however the rows interleave.
        Fixture f;
        HistoryWriter writer(f.path, f.clock);
        QVERIFY(writer.start());
        const qint64 dayStart = (f.clock.wallMillis() / DayMs) * DayMs;
        struct Row { qint64 atMs; const char *route; double cost; };
        const std::vector<Row> rows = {
            {dayStart - 1, "gpt-4o", 100.0},                  // yesterday
            {dayStart, "gpt-4o", 0.5}, {dayStart + 59'999, "gpt-4o", 0.25},
            {dayStart + MinuteMs, "gpt-4o", 1.0}, {dayStart + 10, "mini", 2.0},
            {dayStart + 2 * HourMs, "mini", 0.0}, {dayStart + 2 * HourMs + 5, "gpt-4o", 4.0},
        };
        for (std::size_t i = 0; i < rows.size(); ++i) {
            RequestRecord r = request(rows[i].atMs, QString::fromLatin1(rows[i].route));
            r.costUsd = rows[i].cost;
            QVERIFY(writer.enqueue(r));
            if (i % 2) // several batches, a minute's rows split between them
                writer.flush();
        }
        RequestRecord again = request(dayStart + 20, QStringLiteral("gpt-4o"));
        again.costUsd = 8.0;
        QVERIFY(writer.enqueue(again));
        writer.flush();

        HistoryReader reader(f.path);
        QVERIFY(reader.open());
        QCOMPARE(reader.spentSince(QStringLiteral("gpt-4o"), dayStart), 0.5 + 0.25 + 1.0 + 4.0 + 8.0);
        QCOMPARE(reader.spentSince(QStringLiteral("gpt-4o"), dayStart - DayMs), 100.0 + 0.5 + 0.25 + 1.0 + 4.0 + 8.0);
        QCOMPARE(reader.spentSince(QStringLiteral("gpt-4o"), dayStart + MinuteMs), 1.0 + 4.0);
        QCOMPARE(reader.spentSince(QStringLiteral("gpt-4o"), dayStart + MinuteMs + 1), 1.0 + 4.0); // its minute counts whole
        QCOMPARE(reader.spentSince(QStringLiteral("mini"), dayStart), 2.0);
        QCOMPARE(reader.spentSince(QStringLiteral("nobody"), dayStart), 0.0);
        QCOMPARE(reader.spentSince(QString(), dayStart), 0.5 + 0.25 + 1.0 + 4.0 + 8.0 + 2.0);
        // The same as the rows' own sums.
        HistoryReader::RequestQuery today;
        today.fromMs = dayStart;
        today.logicalModel = QStringLiteral("gpt-4o");
        QCOMPARE(reader.totals(today).costUsd, reader.spentSince(QStringLiteral("gpt-4o"), dayStart));
    }

    void historyOlderThanTheRetentionIsDeleted()
    {
        Fixture f;
        HistoryWriter::Options options;
        options.retentionDays = 2;
        HistoryWriter writer(f.path, f.clock, options);
        QVERIFY(writer.start());
        const qint64 now = f.clock.wallMillis();
        RequestRecord oldRequest = request(now - 3 * DayMs);
        oldRequest.costUsd = 1.0;
        writer.enqueue(oldRequest);
        RequestRecord newerRequest = request(now - 1 * DayMs);
        newerRequest.costUsd = 2.0;
        writer.enqueue(newerRequest);
        EventRecord old;
        old.timeMs = now - 3 * DayMs;
        writer.enqueue(old);
        EventRecord fresh;
        fresh.timeMs = now - HourMs;
        writer.enqueue(fresh);
        writer.enqueue(sample(now - 3 * DayMs, 1, 50));
        writer.flush();
        writer.runMaintenance();

        HistoryReader reader(f.path);
        QVERIFY(reader.open());
        const auto rows = reader.requests({});
        QCOMPARE(rows.size(), std::size_t(1));
        QCOMPARE(rows[0].timeMs, now - DayMs);
        QCOMPARE(reader.events(0, now).size(), std::size_t(1));
        QCOMPARE(reader.spentSince(QString(), 0), 2.0); // the old request's spend went with it
        QVERIFY(reader.healthMinutes(0, now).empty()); // rolled up, then past retention
        QVERIFY(writer.stats().rowsPurged >= 3u);

        // Time passes (by the clock, not by sleeping): the next pass removes the other request.
        f.clock.advance(std::chrono::hours(25));
        writer.runMaintenance();
        QVERIFY(reader.requests({}).empty());

        // A shorter retention set from the console applies on the next pass.
        writer.enqueue(request(f.clock.wallMillis() - 12 * HourMs));
        writer.flush();
        writer.setRetentionDays(2);
        writer.runMaintenance();
        QCOMPARE(reader.requests({}).size(), std::size_t(1));
        writer.setRetentionDays(0); // at least one day, whatever is asked
        QCOMPARE(writer.retentionDays(), 1);
        f.clock.advance(std::chrono::hours(13));
        writer.runMaintenance();
        QVERIFY(reader.requests({}).empty());
    }

    void rowsFromManyThreadsAllArrive()
    {
        Fixture f;
        HistoryWriter writer(f.path, f.clock);
        QVERIFY(writer.start());
        std::vector<std::thread> producers;
        for (int p = 0; p < 4; ++p)
            producers.emplace_back([&writer, &f, p] {
                for (int i = 0; i < 2000; ++i)
                    writer.enqueue(request(f.clock.wallMillis() + p * 10'000 + i));
            });
        for (auto &t : producers)
            t.join();
        writer.stop(); // stopping writes what is queued
        QCOMPARE(writer.stats().requestsWritten, 8000u);
        QCOMPARE(writer.stats().droppedRequests, 0u);
        HistoryReader reader(f.path);
        QVERIFY(reader.open());
        QCOMPARE(reader.totals({}).count, qint64(8000));
    }
};

QTEST_GUILESS_MAIN(tst_HistoryWriter)
#include "tst_HistoryWriter.moc"
