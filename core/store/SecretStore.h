#pragma once

#include <QString>

#include <optional>

namespace sb {

enum class SecretBackend { Keyring, Database };

// Where API keys live. A seam with two implementations: the desktop keyring
// (KeychainSecretStore) when one answers, else the database file at mode 0600
// (DatabaseSecretStore). Key ids are opaque strings such as "api-key/7". Implementations never log
// a secret; error sentences name the key id only.
class SecretStore {
public:
    virtual ~SecretStore() = default;

    virtual bool store(const QString &keyId, const QString &secret, QString *error = nullptr) = 0;
    // std::nullopt when there is no such key (error stays empty) or it could not be read (error set).
    virtual std::optional<QString> load(const QString &keyId, QString *error = nullptr) = 0;
    // Removing a key that does not exist succeeds.
    virtual bool remove(const QString &keyId, QString *error = nullptr) = 0;

    virtual SecretBackend backend() const = 0;
    // "keyring" or "database", for the console's status line.
    virtual QString backendName() const = 0;
    // False when the store this database's keys were put in cannot be reached from here (a keyring
    // with no Secret Service on this bus): every load then fails with a sentence saying why.
    virtual bool readable() const { return true; }
};

} // namespace sb
