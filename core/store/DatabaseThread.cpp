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
    if (m_thread.joinable()) {
        if (error)
            *error = QStringLiteral("The %1 store is already open.").arg(purpose);
        return false;
    }
    std::promise<QString> result;
    std::future<QString> done = result.get_future();
    m_thread = std::thread([this, path, purpose, &first, &result] {
        run(path, purpose, first, [&result](const QString &openError) { result.set_value(openError); });
    });
    const QString message = done.get();
    if (message.isEmpty())
        return true;
    if (error)
        *error = message;
    m_thread.join();
    return false;
}

void DatabaseThread::run(QString path, QString purpose, const Job &first, std::function<void(const QString &)> opened)
{
    Database db(path, purpose);
    QString error;
    if (!db.open(&error)) {
        opened(error.isEmpty() ? QStringLiteral("Cannot open the database \"%1\" for the %2 store.").arg(path, purpose) : error);
        return;
    }
    if (first)
        first(db);
    opened(QString()); // `first` is the caller's and may not be touched after this
    for (;;) {
        Job job;
        {
            std::unique_lock lock(m_mutex);
            m_busy = false;
            m_idle.notify_all();
            m_wake.wait(lock, [this] { return m_stopping || !m_jobs.empty(); });
            if (m_jobs.empty())
                return; // stopping, and everything queued has run
            job = std::move(m_jobs.front());
            m_jobs.pop_front();
            m_busy = true;
        }
        job(db);
    }
}

void DatabaseThread::post(Job job)
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_jobs.push_back(std::move(job));
    }
    m_wake.notify_one();
}

void DatabaseThread::flush()
{
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [this] { return m_jobs.empty() && !m_busy; });
}

} // namespace sb
