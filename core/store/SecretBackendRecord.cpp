#include "store/SecretBackendRecord.h"

#include "store/Database.h"

#include <QSqlError>
#include <QSqlQuery>

namespace sb {

namespace {
constexpr auto kMetaKey = "secrets.backend";

bool any(const Database &db, const QString &sql)
{
    QSqlQuery q(db.connection());
    return q.exec(sql) && q.next();
}
} // namespace

QString SecretBackendRecord::name(SecretBackend backend)
{
    return backend == SecretBackend::Keyring ? QStringLiteral("keyring") : QStringLiteral("database");
}

std::optional<SecretBackend> SecretBackendRecord::parse(const QString &name)
{
    if (name == u"keyring")
        return SecretBackend::Keyring;
    if (name == u"database")
        return SecretBackend::Database;
    return std::nullopt;
}

namespace {
std::optional<SecretBackend> recordedValue(const Database &db)
{
    QSqlQuery q(db.connection());
    q.prepare(QStringLiteral("SELECT value FROM meta WHERE key = ?"));
    q.addBindValue(QString::fromLatin1(kMetaKey));
    return q.exec() && q.next() ? SecretBackendRecord::parse(q.value(0).toString()) : std::nullopt;
}
} // namespace

bool SecretBackendRecord::stored(const Database &db)
{
    return recordedValue(db).has_value();
}

std::optional<SecretBackend> SecretBackendRecord::read(const Database &db)
{
    if (const auto recorded = recordedValue(db))
        return recorded;
    if (any(db, QStringLiteral("SELECT 1 FROM secrets LIMIT 1")))
        return SecretBackend::Database;
    if (any(db, QStringLiteral("SELECT 1 FROM api_keys WHERE secret_ref != '' LIMIT 1"))
        || any(db, QStringLiteral("SELECT 1 FROM meta WHERE key = 'proxy.local_token_ref' AND value != '' LIMIT 1")))
        return SecretBackend::Keyring;
    return std::nullopt;
}

bool SecretBackendRecord::write(const Database &db, SecretBackend backend, QString *error)
{
    QSqlQuery q(db.connection());
    q.prepare(QStringLiteral("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"));
    q.addBindValue(QString::fromLatin1(kMetaKey));
    q.addBindValue(name(backend));
    if (q.exec())
        return true;
    if (error)
        *error = QStringLiteral("Cannot record where API keys are kept: %1.").arg(q.lastError().text());
    return false;
}

} // namespace sb
