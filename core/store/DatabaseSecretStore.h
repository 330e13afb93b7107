#pragma once

#include "store/Database.h"
#include "store/SecretStore.h"

namespace sb {

// Secrets in the `secrets` table of the Switchboard database, for machines without a keyring
// service. The file and its -wal/-shm are made owner-only (0600) on open; the console shows a
// warning that keys are stored unencrypted. Use from the thread that opened it.
class DatabaseSecretStore final : public SecretStore {
public:
    explicit DatabaseSecretStore(QString dbPath);

    bool open(QString *error = nullptr);

    bool store(const QString &keyId, const QString &secret, QString *error = nullptr) override;
    std::optional<QString> load(const QString &keyId, QString *error = nullptr) override;
    bool remove(const QString &keyId, QString *error = nullptr) override;
    SecretBackend backend() const override { return SecretBackend::Database; }
    QString backendName() const override { return QStringLiteral("database"); }

private:
    Database m_db;
};

} // namespace sb
