#include "store/SecretStoreFactory.h"

#include "store/DatabaseSecretStore.h"
#include "store/KeychainSecretStore.h"

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
} // namespace

SecretStoreChoice SecretStoreFactory::create(const QString &dbPath, Preference preference, std::chrono::milliseconds probeTimeout)
{
    SecretStoreChoice choice;
    QString why;
    if (preference != Preference::DatabaseOnly) {
        if (KeychainSecretStore::probe(probeTimeout, &why)) {
            choice.store = std::make_unique<KeychainSecretStore>(scopeFor(dbPath));
            choice.backend = SecretBackend::Keyring;
            return choice;
        }
        if (preference == Preference::KeyringOnly) {
            choice.error = QStringLiteral("No keyring is available (%1).").arg(why);
            return choice;
        }
    }
    auto store = std::make_unique<DatabaseSecretStore>(dbPath);
    QString error;
    if (!store->open(&error)) {
        choice.error = error;
        return choice;
    }
    choice.store = std::move(store);
    choice.backend = SecretBackend::Database;
    choice.warning = why.isEmpty()
        ? QStringLiteral("API keys are stored unencrypted in the database file (readable by your user only).")
        : QStringLiteral("No keyring is available (%1): API keys are stored unencrypted in the database file "
                         "(readable by your user only).").arg(why);
    return choice;
}

} // namespace sb
