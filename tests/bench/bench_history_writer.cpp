// How many request rows per second the HistoryWriter sustains (the aim: >= 5,000/s), and whether a
// console reading at the same time stays responsive. Prints figures; asserts nothing.
//
//   bench_history_writer [--rows N] [--rate R] [--seconds S] [--db PATH]
//
// Phase 1 (burst): N request rows (two attempts each) plus one health sample per 100 rows, enqueued
// as fast as one thread can, while a "console" thread pages the newest 200 requests and the totals
// in a loop on its own connection. Phase 2 (paced): R rows/s for S seconds; the queue must not grow.

#include "common/Clock.h"
#include "store/HistoryReader.h"
#include "store/HistoryWriter.h"

#include <QCoreApplication>
#include <QTemporaryDir>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

using namespace sb;
using BenchClock = std::chrono::steady_clock;

namespace {

RequestRecord makeRow(qint64 timeMs, int i)
{
    RequestRecord r;
    r.requestId = QStringLiteral("req-%1").arg(i);
    r.timeMs = timeMs;
    r.logicalModel = i % 3 ? QStringLiteral("gpt-4o") : QStringLiteral("claude-3-5-sonnet");
    r.channelId = 1 + i % 2;
    r.channelName = r.channelId == 1 ? QStringLiteral("gpt-4o/A") : QStringLiteral("gpt-4o/B");
    r.httpStatus = 200;
    r.ttftMs = 250 + i % 100;
    r.latencyMs = 1800 + i % 700;
    r.inputTokens = 150;
    r.outputTokens = 420;
    r.costUsd = 0.0045;
    r.failover = i % 20 == 0;
    r.streamed = true;
    r.attempts = {AttemptRecord{1, QStringLiteral("gpt-4o/A"), 7, r.failover ? OutcomeKind::ProviderDown : OutcomeKind::Success,
                                OutcomePhase::BeforeFirstByte, r.failover ? 503 : 200, timeMs, 40, -1, {}}};
    if (r.failover)
        r.attempts.push_back(AttemptRecord{2, QStringLiteral("gpt-4o/B"), 9, OutcomeKind::Success, OutcomePhase::BeforeFirstByte, 200,
                                           timeMs + 41, 1700, 240, {}});
    return r;
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p * double(v.size())))];
}

struct ConsoleLoop {
    std::atomic<bool> stop{false};
    std::vector<double> millis;       // newest 200 requests (the History page)
    std::vector<double> totalsMillis; // totals over the last minute (the Overview counters)
    std::thread thread;

    explicit ConsoleLoop(const QString &path)
    {
        thread = std::thread([this, path] {
            HistoryReader reader(path);
            if (!reader.open())
                return;
            while (!stop.load()) {
                const auto t0 = BenchClock::now();
                HistoryReader::RequestQuery q;
                q.limit = 200;
                const auto rows = reader.requests(q);
                const auto t1 = BenchClock::now();
                HistoryReader::RequestQuery lastMinute;
                lastMinute.fromMs = SystemClock::instance().wallMillis() - 60'000;
                const auto totals = reader.totals(lastMinute);
                (void)rows;
                (void)totals;
                millis.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
                totalsMillis.push_back(std::chrono::duration<double, std::milli>(BenchClock::now() - t1).count());
                std::this_thread::sleep_for(std::chrono::milliseconds(50)); // a page refresh, not a busy loop
            }
        });
    }
    void finish()
    {
        stop = true;
        thread.join();
    }
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int rows = 100'000;
    int rate = 5'000;
    int seconds = 5;
    QString path;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == u"--rows")
            rows = args[i + 1].toInt();
        else if (args[i] == u"--rate")
            rate = args[i + 1].toInt();
        else if (args[i] == u"--seconds")
            seconds = args[i + 1].toInt();
        else if (args[i] == u"--db")
            path = args[i + 1];
    }
    QTemporaryDir dir;
    if (path.isEmpty())
        path = dir.filePath(QStringLiteral("bench.db"));

    SystemClock &clock = SystemClock::instance();
    HistoryWriter writer(path, clock);
    QString error;
    if (!writer.start(&error)) {
        std::fprintf(stderr, "cannot start the writer: %s\n", qPrintable(error));
        return 1;
    }

    // Phase 1: burst.
    {
        ConsoleLoop console(path);
        const qint64 t = clock.wallMillis();
        const auto start = BenchClock::now();
        for (int i = 0; i < rows; ++i) {
            writer.enqueue(makeRow(t + i / 10, i));
            if (i % 100 == 0)
                writer.enqueue(HealthSample{t + i / 10, 1 + (i / 100) % 2, 95.0, 0.01, 0.0, 1200.0, QStringLiteral("closed")});
        }
        const double enqueueSeconds = std::chrono::duration<double>(BenchClock::now() - start).count();
        writer.flush();
        const double totalSeconds = std::chrono::duration<double>(BenchClock::now() - start).count();
        console.finish();
        const auto s = writer.stats();
        std::printf("burst: %d request rows (+%llu health) written in %.2f s: %.0f request rows/s (%.0f rows/s all kinds); "
                    "enqueue took %.2f s\n",
                    rows, static_cast<unsigned long long>(s.healthWritten), totalSeconds, double(s.requestsWritten) / totalSeconds,
                    double(s.rowsWritten) / totalSeconds, enqueueSeconds);
        std::printf("burst: %llu batches (%.0f rows each on average), dropped %llu requests / %llu health samples\n",
                    static_cast<unsigned long long>(s.batches), double(s.rowsWritten) / double(std::max<std::uint64_t>(1, s.batches)),
                    static_cast<unsigned long long>(s.droppedRequests), static_cast<unsigned long long>(s.droppedHealth));
        std::printf("burst: console reads while writing (%zu rounds): newest 200 requests p50 %.1f ms, p95 %.1f ms, max %.1f ms; "
                    "last-minute totals p50 %.1f ms, p95 %.1f ms\n",
                    console.millis.size(), percentile(console.millis, 0.5), percentile(console.millis, 0.95),
                    percentile(console.millis, 1.0), percentile(console.totalsMillis, 0.5), percentile(console.totalsMillis, 0.95));
    }

    // Phase 2: paced at `rate` rows/s; report the deepest the queue got.
    {
        const auto before = writer.stats();
        std::uint64_t maxDepth = 0;
        const auto start = BenchClock::now();
        const int total = rate * seconds;
        const int perTick = std::max(1, rate / 100); // 10 ms ticks
        int sent = 0;
        for (int tick = 0; sent < total; ++tick) {
            const qint64 t = clock.wallMillis();
            for (int i = 0; i < perTick && sent < total; ++i, ++sent)
                writer.enqueue(makeRow(t, sent));
            maxDepth = std::max(maxDepth, writer.stats().queueDepth);
            std::this_thread::sleep_until(start + std::chrono::milliseconds(10 * (tick + 1)));
        }
        writer.flush();
        const double elapsed = std::chrono::duration<double>(BenchClock::now() - start).count();
        const auto after = writer.stats();
        std::printf("paced: %d rows/s offered for %d s: %.0f rows/s written, deepest queue %llu rows, dropped %llu\n", rate, seconds,
                    double(after.requestsWritten - before.requestsWritten) / elapsed, static_cast<unsigned long long>(maxDepth),
                    static_cast<unsigned long long>(after.droppedRequests - before.droppedRequests));
    }
    writer.stop();
    return 0;
}
