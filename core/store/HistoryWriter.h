#pragma once

#include "store/RowQueue.h"
#include "telemetry/HistoryRecords.h"

#include <QString>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sb {

class Clock;

// The only writer of history rows (ARCHITECTURE.md, "Threads"). Any thread enqueues; the
// writer's own thread writes batches in one transaction each with prepared statements, every
// flushInterval or as soon as flushRows rows are waiting. The queue is bounded: when it is full the
// oldest health samples go first (the next second brings a fresh one); request and event rows are
// never dropped silently — when nothing else can give way the new row is refused and counted.
// It also rolls health samples older than 24 h up to one row per channel and minute, and deletes
// history older than the retention.
class HistoryWriter {
public:
    struct Options {
        int flushRows = 500;                                // written as soon as this many wait, else every flushInterval
        std::chrono::milliseconds flushInterval{250};
        std::size_t capacity = 100'000;                     // rows waiting, all kinds together
        int maxBatchRows = 100;                             // per transaction: under 1 ms of CPU, short for readers
                                                            // and for a request thread sharing the core
        int retentionDays = 30;                             // a month of incidents to look back on
        std::chrono::hours rollupAfter{24};                 // per-minute after 24 h: a day at full detail
        std::chrono::minutes maintenanceEvery{10};          // rollup + retention, by the Clock
    };

    struct Stats {
        std::uint64_t requestsWritten = 0;
        std::uint64_t eventsWritten = 0;
        std::uint64_t healthWritten = 0;
        std::uint64_t rowsWritten = 0;
        std::uint64_t batches = 0;
        std::uint64_t queueDepth = 0;
        std::uint64_t droppedHealth = 0;    // oldest samples given up under back-pressure
        std::uint64_t droppedRequests = 0;  // refused: the queue was full of requests and events
        std::uint64_t droppedEvents = 0;
        std::uint64_t writeErrors = 0;      // batches SQLite refused (their rows are counted as dropped)
        std::uint64_t samplesRolledUp = 0;
        std::uint64_t rowsPurged = 0;
        double lastBatchMillis = 0.0;
    };

    HistoryWriter(QString dbPath, Clock &clock, Options options);
    HistoryWriter(QString dbPath, Clock &clock);
    ~HistoryWriter(); // stops, writing what is queued
    HistoryWriter(const HistoryWriter &) = delete;
    HistoryWriter &operator=(const HistoryWriter &) = delete;

    // Starts the thread and opens its connection; false (and *error) when the database cannot be
    // opened. Rows enqueued before start() wait in the queue.
    bool start(QString *error = nullptr);
    // Writes what is queued, then stops the thread.
    void stop();

    // Thread-safe, never blocks on SQLite. False when the row was refused (counted in Stats).
    bool enqueue(RequestRecord record);
    bool enqueue(EventRecord record);
    bool enqueue(HealthSample sample);

    // Blocks until every row enqueued before the call is written (tests, shutdown, benchmarks).
    void flush();
    // Blocks until a rollup and retention pass has run now (tests; it also runs on its own).
    void runMaintenance();

    Stats stats() const;

    // The console's retention setting applies from the next maintenance pass, without a restart.
    void setRetentionDays(int days);
    int retentionDays() const { return m_retentionDays.load(); }
    // Called on the writer's thread after each retention run with its cut (wall-clock ms), for
    // what is kept elsewhere under the same retention (stored responses, in their own file);
    // once it is replaced or cleared it is not called again.
    using RetentionListener = std::function<void(qint64 cutMs)>;
    void setRetentionListener(RetentionListener listener);

private:
    void run(QString dbPath);
    bool makeRoomLocked();
    void tellRetentionListener(qint64 cutMs);

    const Options m_options;
    Clock &m_clock;
    QString m_dbPath;
    std::atomic<int> m_retentionDays;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    RowQueue<RequestRecord> m_requests; // one a request: a deque allocated a block for every two

    std::deque<EventRecord> m_events;
    std::deque<HealthSample> m_health;
    bool m_stopping = false;
    bool m_started = false;
    std::uint64_t m_flushRequested = 0;
    std::uint64_t m_flushCompleted = 0;
    std::uint64_t m_maintenanceRequested = 0;
    std::uint64_t m_maintenanceCompleted = 0;
    Stats m_stats; // guarded by m_mutex
    std::mutex m_retentionListenerMutex;
    RetentionListener m_retentionListener; // guarded by m_retentionListenerMutex
    std::thread m_thread;
};

} // namespace sb
