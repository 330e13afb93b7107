#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>

class QThread;

namespace sb {

class HistoryQueryWorker;
class HistoryReader;

// The console's one way into the history database (the GUI thread never waits on SQLite, so a
// slow query never freezes the console during an incident). Jobs run one after another on a
// history thread with its own reader connection; each
// answer comes back on the GUI thread, to a context object that may have been deleted meanwhile
// (then the answer is dropped). A job submitted under a key supersedes the earlier ones with the
// same key: those that have not started are skipped and late answers are dropped, so a user who
// changes a filter five times sees the answer to the fifth and the database runs at most two.
class HistoryService : public QObject {
    Q_OBJECT
public:
    using Job = std::function<void(HistoryReader &)>; // history thread
    using Done = std::function<void()>;               // GUI thread, after the job

    struct Stats {
        std::uint64_t submitted = 0;
        std::uint64_t completed = 0;  // answers delivered
        std::uint64_t superseded = 0; // skipped before running, or answered too late
        std::uint64_t failed = 0;     // the database could not be opened
    };

    explicit HistoryService(QString dbPath, QObject *parent = nullptr);
    // Stops the thread after the job that is running (shutdown only; later jobs are skipped).
    ~HistoryService() override;

    // Returns the query id (increasing). `key` may be empty (never superseded).
    std::uint64_t submit(QObject *context, const QString &key, Job job, Done done);
    // True while `id` is the newest job submitted under `key` (answers can check it themselves).
    bool isCurrent(const QString &key, std::uint64_t id) const;

    QString databasePath() const { return m_dbPath; }
    Stats stats() const { return m_stats; }
    int pending() const { return m_pending.load(); }

signals:
    // The database could not be opened (every page shows the same sentence).
    void unavailable(const QString &message);

private:
    enum class Outcome { Ran, Skipped, Failed };
    void deliver(std::uint64_t id, const QString &key, const QPointer<QObject> &context, const Done &done,
                 Outcome outcome, const QString &error);

    QString m_dbPath;
    QThread *m_thread = nullptr;
    HistoryQueryWorker *m_worker = nullptr;
    std::atomic<bool> m_stopping{false};
    std::atomic<int> m_pending{0};
    std::uint64_t m_nextId = 0;
    mutable std::mutex m_keysMutex;
    QHash<QString, std::uint64_t> m_latestByKey; // read by the history thread too
    Stats m_stats;
    bool m_reportedUnavailable = false;
};

} // namespace sb
