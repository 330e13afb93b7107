#pragma once

#include "store/SecretStore.h"

#include <QString>

#include <chrono>
#include <memory>

namespace sb {

enum class SecretBackend { Keyring, Database };

struct SecretStoreChoice {
    std::unique_ptr<SecretStore> store; // null only when even the database could not be opened
    SecretBackend backend = SecretBackend::Database;
    // Non-empty when keys end up in the database file: the console shows it where keys are edited.
    QString warning;
    QString error;
};

// Picks where API keys live: the keyring when one answers within probeTimeout, else the database.
class SecretStoreFactory {
public:
    enum class Preference { Auto, KeyringOnly, DatabaseOnly };

    static SecretStoreChoice create(const QString &dbPath, Preference preference = Preference::Auto,
                                    std::chrono::milliseconds probeTimeout = std::chrono::milliseconds(2000));
};

} // namespace sb
