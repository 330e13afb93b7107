#pragma once

#include "store/SecretStore.h"

namespace sb {

// Stands for a keyring this database's keys were put in but that does not answer here (a service
// with no Secret Service on its bus, a locked wallet). Nothing is read or written: each call fails
// with a sentence that says why, so the configuration loads with its keys marked unreadable — the
// engine then sends nothing to their providers — and a save cannot scatter new keys into the file
// while the old ones stay in the keyring.
class UnreadableSecretStore final : public SecretStore {
public:
    explicit UnreadableSecretStore(QString why);

    bool store(const QString &keyId, const QString &secret, QString *error = nullptr) override;
    std::optional<QString> load(const QString &keyId, QString *error = nullptr) override;
    bool remove(const QString &keyId, QString *error = nullptr) override;
    SecretBackend backend() const override { return SecretBackend::Keyring; }
    QString backendName() const override { return QStringLiteral("keyring"); }
    bool readable() const override { return false; }

    // "the keyring, which cannot be reached (…)"
    QString reason() const;

private:
    QString m_why;
};

} // namespace sb
