#include "store/DatabaseSecretStore.h"

#include <QSqlError>
#include <QSqlQuery>

namespace sb {

DatabaseSecretStore::DatabaseSecretStore(QString dbPath)
    : m_db(std::move(dbPath), QStringLiteral("secrets"))
{
}

bool DatabaseSecretStore::open(QString *error)
{
    if (!m_db.open(error))
        return false;
    return Database::restrictPermissions(m_db.path(), error);
}

bool DatabaseSecretStore::store(const QString &keyId, const QString &secret, QString *error)
{
    if (!m_db.isOpen() && !open(error))
        return false;
    QSqlQuery q(m_db.connection());
    q.prepare(QStringLiteral("INSERT INTO secrets (key_id, secret) VALUES (?, ?) "
                             "ON CONFLICT(key_id) DO UPDATE SET secret = excluded.secret"));
    q.addBindValue(keyId);
    q.addBindValue(secret);
    if (!q.exec()) {
        if (error)
            *error = QStringLiteral("Cannot store the secret of %1: %2.").arg(keyId, q.lastError().text());
        return false;
    }
    // The -wal file appears with the first write; keep it owner-only as well.
    Database::restrictPermissions(m_db.path());
    return true;
}

std::optional<QString> DatabaseSecretStore::load(const QString &keyId, QString *error)
{
    if (!m_db.isOpen() && !open(error))
        return std::nullopt;
    QSqlQuery q(m_db.connection());
    q.prepare(QStringLiteral("SELECT secret FROM secrets WHERE key_id = ?"));
    q.addBindValue(keyId);
    if (!q.exec()) {
        if (error)
            *error = QStringLiteral("Cannot read the secret of %1: %2.").arg(keyId, q.lastError().text());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return q.value(0).toString();
}

bool DatabaseSecretStore::remove(const QString &keyId, QString *error)
{
    if (!m_db.isOpen() && !open(error))
        return false;
    QSqlQuery q(m_db.connection());
    q.prepare(QStringLiteral("DELETE FROM secrets WHERE key_id = ?"));
    q.addBindValue(keyId);
    if (!q.exec()) {
        if (error)
            *error = QStringLiteral("Cannot remove the secret of %1: %2.").arg(keyId, q.lastError().text());
        return false;
    }
    return true;
}

} // namespace sb
