#include "store/SecretMove.h"

#include "store/Database.h"
#include "store/SecretBackendRecord.h"
#include "store/SecretStore.h"
#include "telemetry/HistoryRecords.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>

namespace sb {

namespace {
QStringList referencedSecrets(Database &db, QString *error)
{
    QStringList refs;
    QSqlQuery q(db.connection());
    if (!q.exec(QStringLiteral("SELECT secret_ref FROM api_keys WHERE secret_ref != ''"
                               " UNION SELECT value FROM meta WHERE key = 'proxy.local_token_ref' AND value != ''"))) {
        *error = QStringLiteral("Cannot list the stored keys: %1.").arg(q.lastError().text());
        return {};
    }
    while (q.next())
        refs << q.value(0).toString();
    return refs;
}

QString place(const SecretStore &store)
{
    return store.backend() == SecretBackend::Keyring ? QStringLiteral("the keyring") : QStringLiteral("the database file");
}
} // namespace

SecretMove::Result SecretMove::run(Database &db, SecretStore &from, SecretStore &to, qint64 nowMs)
{
    Result result;
    if (from.backend() == to.backend()) {
        result.error = QStringLiteral("The keys already are in %1.").arg(place(to));
        return result;
    }
    const QStringList refs = referencedSecrets(db, &result.error);
    if (!result.error.isEmpty())
        return result;

    QStringList copied;
    auto undo = [&] {
        for (const QString &ref : copied)
            to.remove(ref);
    };
    for (const QString &ref : refs) {
        QString error;
        const std::optional<QString> secret = from.load(ref, &error);
        if (!secret) {
            result.error = error.isEmpty() ? QStringLiteral("%1 is missing from %2; nothing was moved.").arg(ref, place(from))
                                           : QStringLiteral("%1 cannot be read (%2); nothing was moved.").arg(ref, error);
            undo();
            return result;
        }
        if (!to.store(ref, *secret, &error) || to.load(ref).value_or(QString()) != *secret) {
            copied << ref;
            result.error = QStringLiteral("%1 Nothing was moved.").arg(error.isEmpty() ? QStringLiteral("%1 did not read back from %2.").arg(ref, place(to)) : error);
            undo();
            return result;
        }
        copied << ref;
    }

    QString error;
    bool ok = db.exec(QStringLiteral("BEGIN IMMEDIATE"), &error) && SecretBackendRecord::write(db, to.backend(), &error);
    if (ok) {
        QSqlQuery event(db.connection());
        event.prepare(QStringLiteral("INSERT INTO events (time_ms, kind, channel_id, provider_id, key_id, from_state, to_state, message)"
                                     " VALUES (?, ?, 0, 0, 0, ?, ?, ?)"));
        event.addBindValue(nowMs);
        event.addBindValue(QString::fromLatin1(toString(EventKind::ConfigChange)));
        event.addBindValue(SecretBackendRecord::name(from.backend()));
        event.addBindValue(SecretBackendRecord::name(to.backend()));
        event.addBindValue(QStringLiteral("API keys moved from %1 to %2 (%3 secrets)").arg(place(from), place(to)).arg(refs.size()));
        ok = event.exec();
        if (!ok)
            error = event.lastError().text();
    }
    if (!ok || !db.exec(QStringLiteral("COMMIT"), &error)) {
        db.exec(QStringLiteral("ROLLBACK"));
        undo();
        result.error = QStringLiteral("Cannot record the move: %1. Nothing was moved.").arg(error);
        return result;
    }

    QStringList stray;
    for (const QString &ref : refs)
        if (!from.remove(ref))
            stray << ref;
    if (!stray.isEmpty())
        result.leftOver = QStringLiteral("The keys were moved, but %1 could not remove its old copies of %2.").arg(place(from), stray.join(QStringLiteral(", ")));
    result.ok = true;
    result.moved = int(refs.size());
    return result;
}

} // namespace sb
