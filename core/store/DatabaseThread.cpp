#include "store/DatabaseThread.h"

#include "store/Database.h"

#include <future>

namespace sb {

void DatabaseThread::close()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
    std::lock_guard lock(m_mutex);
    m_stopping = false;
}

bool DatabaseThread::open(const QString &path, const QString &purpose, const Job &first, QString *error)
{
    return open(path, purpose, DatabaseLayout{Database::migrations(), 0}, first, error);
}

bool DatabaseThread::open(const QString &path, const QString &purpose, const DatabaseLayout &layout, const Job &first, QString *error)
{
    if (m_thread.joinable()) {
        if (error)
            *error = QStringLiteral("The %1 store is already open.").arg(purpose);
        return false;
    }
    std::promise<QString> result;
    std::future<QString> done = result.get_future();
    m_thread = std::thread([this, path, purpose, &layout, &first, &result] {
        run(path, purpose, layout, first, [&result](const QString &openError) { result.set_value(openError); });
    });
    const QString message = done.get();
    if (message.isEmpty())
        return true;
    if (error)
        *error = message;
    m_thread.join();
    return false;
}

void DatabaseThread::run(QString path, QString purpose, const DatabaseLayout &layout, const Job &first,
                         std::function<void(const QString &)> opened)
{
    Database db(path, purpose);
    QString error;
    if (!db.open(layout, &error)) {
        opened(error.isEmpty() ? QStringLiteral("Cannot open the database \"%1\" for the %2 store.").arg(path, purpose) : error);
        return;
    }
    if (first)
        first(db);
    opened(QString()); // `first` is the caller's and may not be touched after this
    for (;;) {
        Queued next;
        {
            std::unique_lock lock(m_mutex);
            m_busy = false;
            m_idle.notify_all();
            m_wake.wait(lock, [this] { return m_stopping || !m_jobs.empty(); });
            if (m_jobs.empty())
                return; // stopping, and everything queued has run
            next = std::move(m_jobs.front());
            m_jobs.pop_front();
            m_busy = true;
            if (next.gather.count() > 0)
                m_wake.wait_for(lock, next.gather, [this] { return m_stopping || m_flushing > 0 || !m_jobs.empty(); });
        }
        next.job(db);
    }
}

void DatabaseThread::post(Job job)
{
    postGathering(std::chrono::milliseconds(0), std::move(job));
}

void DatabaseThread::postGathering(std::chrono::milliseconds gather, Job job)
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_jobs.push_back(Queued{std::move(job), gather});
    }
    m_wake.notify_one();
}

void DatabaseThread::flush()
{
    std::unique_lock lock(m_mutex);
    ++m_flushing;
    m_wake.notify_all();
    m_idle.wait(lock, [this] { return m_jobs.empty() && !m_busy; });
    --m_flushing;
}

} // namespace sb
