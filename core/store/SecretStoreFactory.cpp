#include "store/SecretStoreFactory.h"

#include "store/Database.h"
#include "store/DatabaseSecretStore.h"
#include "store/KeychainSecretStore.h"
#include "store/SecretBackendRecord.h"
#include "store/UnreadableSecretStore.h"

#include <QCryptographicHash>
#include <QFileInfo>

namespace sb {

namespace {
QString scopeFor(const QString &dbPath)
{
    // Two databases (say a test one via --db) must not share or overwrite each other's keys.
    const QString canonical = QFileInfo(dbPath).absoluteFilePath();
    return QString::fromLatin1(QCryptographicHash::hash(canonical.toUtf8(), QCryptographicHash::Sha1).toHex().left(12));
}

std::unique_ptr<SecretStore> openFile(const QString &dbPath, QString *error)
{
    auto store = std::make_unique<DatabaseSecretStore>(dbPath);
    if (!store->open(error))
        return nullptr;
    return store;
}

SecretStoreChoice chosen(std::unique_ptr<SecretStore> store, QString warning = {})
{
    SecretStoreChoice choice;
    choice.backend = store->backend();
    choice.store = std::move(store);
    choice.warning = std::move(warning);
    return choice;
}
} // namespace

QString SecretStoreFactory::databaseFileWarning(const QString &why)
{
    return why.isEmpty()
        ? QStringLiteral("API keys are stored unencrypted in the database file (readable by your user only).")
        : QStringLiteral("No keyring is available (%1): API keys are stored unencrypted in the database file "
                         "(readable by your user only).").arg(why);
}

std::unique_ptr<SecretStore> SecretStoreFactory::open(const QString &dbPath, SecretBackend backend, QString *error,
                                                      std::chrono::milliseconds probeTimeout)
{
    if (backend == SecretBackend::Database)
        return openFile(dbPath, error);
    QString why;
    if (!KeychainSecretStore::probe(probeTimeout, &why)) {
        if (error)
            *error = QStringLiteral("No keyring is available (%1).").arg(why);
        return nullptr;
    }
    return std::make_unique<KeychainSecretStore>(scopeFor(dbPath));
}

SecretStoreChoice SecretStoreFactory::create(const QString &dbPath, Preference preference, std::chrono::milliseconds probeTimeout)
{
    SecretStoreChoice choice;
    Database db(dbPath, QStringLiteral("secret-backend"));
    if (!db.open(&choice.error))
        return choice;
    const std::optional<SecretBackend> recorded = SecretBackendRecord::read(db);
    // The record is written once, when this open decides (or first reads an older database).
    const bool stored = SecretBackendRecord::stored(db);
    auto record = [&](SecretBackend backend) { return stored || SecretBackendRecord::write(db, backend, &choice.error); };

    if (recorded == SecretBackend::Keyring || (!recorded && preference != Preference::DatabaseOnly
                                               && preference != Preference::FileForNewDatabase)) {
        QString why = QStringLiteral("this process does not use a keyring");
        if (preference != Preference::DatabaseOnly && KeychainSecretStore::probe(probeTimeout, &why)) {
            if (!record(SecretBackend::Keyring))
                return choice;
            return chosen(std::make_unique<KeychainSecretStore>(scopeFor(dbPath)));
        }
        if (recorded) {
            // The keys are there and nowhere else: say so, and read none, rather than run keyless.
            auto unreadable = std::make_unique<UnreadableSecretStore>(why);
            const QString warning = QStringLiteral("This database's API keys are in the keyring, which cannot be reached (%1): "
                                                   "no request goes to a provider whose key cannot be read.").arg(why);
            return chosen(std::move(unreadable), warning);
        }
        if (preference == Preference::KeyringOnly) {
            choice.error = QStringLiteral("No keyring is available (%1).").arg(why);
            return choice;
        }
        auto file = openFile(dbPath, &choice.error);
        if (!file || !record(SecretBackend::Database))
            return SecretStoreChoice{nullptr, SecretBackend::Database, {}, choice.error};
        return chosen(std::move(file), databaseFileWarning(why));
    }

    auto file = openFile(dbPath, &choice.error);
    if (!file || !record(SecretBackend::Database))
        return SecretStoreChoice{nullptr, SecretBackend::Database, {}, choice.error};
    return chosen(std::move(file), databaseFileWarning());
}

} // namespace sb
