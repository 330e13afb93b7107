#include "cache/SemanticStore.h"

#include "store/Database.h"

#include <QSqlError>
#include <QSqlQuery>

#include <spdlog/spdlog.h>

#include <cstring>
#include <future>

namespace sb {

namespace {

QByteArray floatsToBlob(const std::vector<float> &v)
{
    return QByteArray(reinterpret_cast<const char *>(v.data()), qsizetype(v.size() * sizeof(float)));
}

std::vector<float> blobToFloats(const QByteArray &blob)
{
    std::vector<float> v(std::size_t(blob.size()) / sizeof(float));
    std::memcpy(v.data(), blob.constData(), v.size() * sizeof(float));
    return v;
}

} // namespace

SemanticStore::SemanticStore() = default;

SemanticStore::~SemanticStore()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

bool SemanticStore::open(const QString &path, qint64 nowMs, std::vector<Row> *rows, QString *error)
{
    if (m_thread.joinable()) {
        if (error)
            *error = QStringLiteral("The semantic cache store is already open.");
        return false;
    }
    std::promise<QString> result;
    std::future<QString> done = result.get_future();
    m_thread = std::thread([this, path, nowMs, rows, &result] {
        run(path, [nowMs, rows, &result](Database *db, const QString &openError) {
            if (!db) {
                result.set_value(openError);
                return;
            }
            QSqlQuery q(db->connection());
            q.prepare(QStringLiteral("DELETE FROM semantic_cache WHERE expires_ms <= ?"));
            q.addBindValue(nowMs);
            if (!q.exec()) {
                result.set_value(QStringLiteral("Cannot read the semantic cache: %1").arg(q.lastError().text()));
                return;
            }
            if (!q.exec(QStringLiteral("SELECT id, scope, created_ms, expires_ms, embedding, answer FROM semantic_cache ORDER BY id"))) {
                result.set_value(QStringLiteral("Cannot read the semantic cache: %1").arg(q.lastError().text()));
                return;
            }
            while (q.next()) {
                Row row;
                row.id = q.value(0).toLongLong();
                row.scope = q.value(1).toByteArray();
                row.createdMs = q.value(2).toLongLong();
                row.expiresMs = q.value(3).toLongLong();
                row.embedding = blobToFloats(q.value(4).toByteArray());
                row.answer = q.value(5).toByteArray();
                rows->push_back(std::move(row));
            }
            result.set_value(QString());
        });
    });
    const QString message = done.get();
    if (message.isEmpty())
        return true;
    if (error)
        *error = message;
    m_thread.join();
    return false;
}

void SemanticStore::run(QString path, std::function<void(Database *, const QString &)> opened)
{
    Database db(path, QStringLiteral("semantic-cache"));
    QString error;
    if (!db.open(&error)) {
        opened(nullptr, error.isEmpty() ? QStringLiteral("Cannot open the semantic cache's database \"%1\".").arg(path) : error);
        return;
    }
    opened(&db, QString());
    for (;;) {
        Job job;
        {
            std::unique_lock lock(m_mutex);
            m_busy = false;
            m_idle.notify_all();
            m_wake.wait(lock, [this] { return m_stopping || !m_jobs.empty(); });
            if (m_jobs.empty())
                return; // stopping, and everything queued is written
            job = std::move(m_jobs.front());
            m_jobs.pop_front();
            m_busy = true;
        }
        job(db);
    }
}

void SemanticStore::post(Job job)
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_jobs.push_back(std::move(job));
    }
    m_wake.notify_one();
}

void SemanticStore::insert(Row row)
{
    post([row = std::move(row)](Database &db) {
        QSqlQuery q(db.connection());
        q.prepare(QStringLiteral("INSERT OR REPLACE INTO semantic_cache (id, scope, created_ms, expires_ms, embedding, answer) VALUES (?,?,?,?,?,?)"));
        q.addBindValue(row.id);
        q.addBindValue(row.scope);
        q.addBindValue(row.createdMs);
        q.addBindValue(row.expiresMs);
        q.addBindValue(floatsToBlob(row.embedding));
        q.addBindValue(row.answer);
        if (!q.exec())
            spdlog::warn("semantic cache: cannot save an entry: {}", q.lastError().text().toStdString());
    });
}

void SemanticStore::remove(std::vector<qint64> ids)
{
    if (ids.empty())
        return;
    post([ids = std::move(ids)](Database &db) {
        QSqlQuery q(db.connection());
        db.connection().transaction();
        q.prepare(QStringLiteral("DELETE FROM semantic_cache WHERE id = ?"));
        for (qint64 id : ids) {
            q.bindValue(0, id);
            q.exec();
        }
        db.connection().commit();
    });
}

void SemanticStore::flush()
{
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [this] { return m_jobs.empty() && !m_busy; });
}

} // namespace sb
