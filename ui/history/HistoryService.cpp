#include "history/HistoryService.h"

#include "history/HistoryQueryWorker.h"

#include <QThread>

namespace sb {

HistoryService::HistoryService(QString dbPath, QObject *parent) : QObject(parent), m_dbPath(std::move(dbPath))
{
    m_thread = new QThread(this);
    m_thread->setObjectName(QStringLiteral("history-reader"));
    m_worker = new HistoryQueryWorker(m_dbPath);
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread->start(QThread::LowPriority);
}

HistoryService::~HistoryService()
{
    m_stopping = true;
    m_thread->quit();
    // The worker (and its reader connection) is deleted on its own thread as the thread
    // finishes (finished -> deleteLater), where Qt SQL wants a connection closed.
    m_thread->wait();
}

std::uint64_t HistoryService::submit(QObject *context, const QString &key, Job job, Done done)
{
    const std::uint64_t id = ++m_nextId;
    ++m_stats.submitted;
    if (!key.isEmpty()) {
        std::lock_guard lock(m_keysMutex);
        m_latestByKey.insert(key, id);
    }
    ++m_pending;
    QPointer<QObject> guard(context);
    QMetaObject::invokeMethod(m_worker, [this, id, key, guard, job = std::move(job), done = std::move(done)] {
        Outcome outcome = Outcome::Skipped;
        QString error;
        if (!m_stopping && isCurrent(key, id)) {
            outcome = m_worker->run(job) ? Outcome::Ran : Outcome::Failed;
            if (outcome == Outcome::Failed)
                error = m_worker->lastError();
        }
        // Back on the GUI thread through this service (it outlives the thread), never straight
        // to the context, which the GUI thread may be deleting right now.
        QMetaObject::invokeMethod(this, [this, id, key, guard, done, outcome, error] {
            deliver(id, key, guard, done, outcome, error);
        }, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
    return id;
}

bool HistoryService::isCurrent(const QString &key, std::uint64_t id) const
{
    if (key.isEmpty())
        return true;
    std::lock_guard lock(m_keysMutex);
    return m_latestByKey.value(key) == id;
}

void HistoryService::deliver(std::uint64_t id, const QString &key, const QPointer<QObject> &context, const Done &done,
                             Outcome outcome, const QString &error)
{
    --m_pending;
    if (outcome == Outcome::Failed) {
        ++m_stats.failed;
        if (!m_reportedUnavailable) {
            m_reportedUnavailable = true; // one sentence, not one per query
            emit unavailable(error);
        }
        return;
    }
    if (outcome == Outcome::Skipped || !context || !isCurrent(key, id)) {
        ++m_stats.superseded;
        return;
    }
    ++m_stats.completed;
    if (done)
        done();
}

} // namespace sb
