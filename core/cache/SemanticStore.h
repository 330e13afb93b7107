#pragma once

#include <QByteArray>
#include <QString>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sb {

class Database;

// The semantic cache's table (semantic_cache, schema migration 3) on a thread of its own: Qt SQL
// connections belong to the thread that opened them, and a worker thread must never wait for the
// disk. Loading happens once at open; inserts and deletes are queued and written in order.
class SemanticStore {
public:
    struct Row {
        qint64 id = 0;
        QByteArray scope;
        qint64 createdMs = 0;
        qint64 expiresMs = 0;
        std::vector<float> embedding;
        QByteArray answer; // CachedAnswer::serialize()
    };

    SemanticStore();
    ~SemanticStore(); // writes what is queued, then closes

    // Opens (and migrates) the database, drops expired rows and returns the others, oldest first.
    bool open(const QString &path, qint64 nowMs, std::vector<Row> *rows, QString *error);
    bool isOpen() const { return m_thread.joinable(); }

    void insert(Row row);
    void remove(std::vector<qint64> ids);
    // Waits until everything queued so far is written (tests, shutdown).
    void flush();

private:
    using Job = std::function<void(Database &)>;
    void post(Job job);
    void run(QString path, std::function<void(Database *, const QString &)> opened);

    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::deque<Job> m_jobs;
    bool m_busy = false;
    bool m_stopping = false;
};

} // namespace sb
