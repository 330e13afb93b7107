#pragma once

#include "store/SecretStore.h"

#include <QString>

#include <chrono>
#include <memory>

namespace sb {

struct SecretStoreChoice {
    std::unique_ptr<SecretStore> store; // null only when the database could not be opened
    SecretBackend backend = SecretBackend::Database;
    // Non-empty when keys are in the database file, or in a keyring that cannot be reached: the
    // console shows it where keys are edited.
    QString warning;
    QString error;
};

// Opens the store that holds a database's API keys. The database records which one that is
// (SecretBackendRecord), and every process follows the record: the console and `--headless` read
// the same keys, and a keyring that does not answer gives an UnreadableSecretStore that says why,
// never an empty file store that quietly has no keys. Only a database without a record chooses,
// by the preference, and records its choice. Moving keys to the other store is SecretMove's job.
class SecretStoreFactory {
public:
    enum class Preference {
        Auto,               // a new database: the keyring when one answers, else the file (the console)
        FileForNewDatabase, // a new database: the file, as a service has no keyring login (`--headless`)
        DatabaseOnly,       // never asks a keyring (tests); a database recorded as keyring is unreadable
        KeyringOnly,        // the keyring or an error
    };

    static constexpr std::chrono::milliseconds kProbeTimeout{2000};

    static SecretStoreChoice create(const QString &dbPath, Preference preference = Preference::Auto,
                                    std::chrono::milliseconds probeTimeout = kProbeTimeout);
    // Exactly the given store for dbPath, or null and *error (a keyring that does not answer).
    static std::unique_ptr<SecretStore> open(const QString &dbPath, SecretBackend backend, QString *error,
                                             std::chrono::milliseconds probeTimeout = kProbeTimeout);

    // What the console says while keys are in the database file; why names a keyring's absence.
    static QString databaseFileWarning(const QString &why = {});
};

} // namespace sb
