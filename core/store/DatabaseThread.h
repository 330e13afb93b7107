#pragma once

#include <QString>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace sb {

class Database;
struct DatabaseLayout;

// One Database connection on a thread of its own, running jobs in the order they were posted.
// Qt SQL connections belong to the thread that opened them, and a worker thread must never wait
// for the disk: stores that a request path writes or reads (the semantic cache, stored responses)
// hand their SQL to one of these.
class DatabaseThread {
public:
    using Job = std::function<void(Database &)>;

    DatabaseThread() = default;
    ~DatabaseThread() { close(); }
    DatabaseThread(const DatabaseThread &) = delete;
    DatabaseThread &operator=(const DatabaseThread &) = delete;

    // Opens (and migrates) the database on the new thread and runs `first` there before any posted
    // job (loading what the store keeps in memory). False, with *error, when it cannot be opened.
    bool open(const QString &path, const QString &purpose, const Job &first, QString *error);
    // The same for a database file of another kind than the Switchboard database.
    bool open(const QString &path, const QString &purpose, const DatabaseLayout &layout, const Job &first, QString *error);
    bool isOpen() const { return m_thread.joinable(); }
    // Runs what is queued, then stops the thread; open() may be called again.
    void close();

    // Queues a job; dropped when the thread is not open.
    void post(Job job);
    // Queues a job that waits up to `gather` before it runs, so that what its store collects
    // meanwhile (the job takes it all when it runs) shares one transaction: a commit costs far
    // more than a row. Any other job, a flush or close runs it at once.
    void postGathering(std::chrono::milliseconds gather, Job job);
    // Waits until everything queued so far has run (tests, shutdown).
    void flush();

private:
    void run(QString path, QString purpose, const DatabaseLayout &layout, const Job &first, std::function<void(const QString &)> opened);

    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    struct Queued {
        Job job;
        std::chrono::milliseconds gather{0};
    };
    std::deque<Queued> m_jobs;
    int m_flushing = 0; // callers waiting in flush(): a gathering job stops waiting for them
    bool m_busy = false;
    bool m_stopping = false;
};

} // namespace sb
