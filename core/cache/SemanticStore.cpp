#include "cache/SemanticStore.h"

#include "store/Database.h"

#include <QSqlError>
#include <QSqlQuery>

#include <spdlog/spdlog.h>

#include <cstring>

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

bool SemanticStore::open(const QString &path, qint64 nowMs, std::vector<Row> *rows, QString *error)
{
    QString loadError;
    const bool opened = m_thread.open(path, QStringLiteral("semantic-cache"), [nowMs, rows, &loadError](Database &db) {
        QSqlQuery q(db.connection());
        q.prepare(QStringLiteral("DELETE FROM semantic_cache WHERE expires_ms <= ?"));
        q.addBindValue(nowMs);
        if (!q.exec()) {
            loadError = QStringLiteral("Cannot read the semantic cache: %1").arg(q.lastError().text());
            return;
        }
        if (!q.exec(QStringLiteral("SELECT id, scope, created_ms, expires_ms, embedding, answer FROM semantic_cache ORDER BY id"))) {
            loadError = QStringLiteral("Cannot read the semantic cache: %1").arg(q.lastError().text());
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
    }, error);
    if (opened && !loadError.isEmpty())
        m_thread.close(); // a table it cannot read is no cache: entries are then not kept
    if (!opened || !loadError.isEmpty()) {
        if (error && !loadError.isEmpty())
            *error = loadError;
        return false;
    }
    return true;
}

void SemanticStore::insert(Row row)
{
    m_thread.post([row = std::move(row)](Database &db) {
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
    m_thread.post([ids = std::move(ids)](Database &db) {
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

} // namespace sb
