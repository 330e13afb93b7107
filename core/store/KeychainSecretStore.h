#pragma once

#include "store/SecretStore.h"

#include <chrono>

namespace sb {

// Secrets in the desktop keyring (Secret Service / KWallet) through QtKeychain. QtKeychain's jobs
// are asynchronous; each call here runs a short local event loop with a timeout, so a keyring that
// hangs (a locked wallet nobody unlocks) costs seconds, not a frozen console. Needs a
// QCoreApplication. Without QtKeychain in the build, every call fails and probe() says why.
class KeychainSecretStore final : public SecretStore {
public:
    // scope keeps the keys of two databases apart in the one keyring (ConfigRepository passes a
    // digest of the database path).
    explicit KeychainSecretStore(QString scope, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

    // Whether a keyring service answers within the timeout: a read of a key that does not exist
    // must come back "not found" rather than "no backend" or silence.
    static bool probe(std::chrono::milliseconds timeout, QString *why = nullptr);

    bool store(const QString &keyId, const QString &secret, QString *error = nullptr) override;
    std::optional<QString> load(const QString &keyId, QString *error = nullptr) override;
    bool remove(const QString &keyId, QString *error = nullptr) override;
    SecretBackend backend() const override { return SecretBackend::Keyring; }
    QString backendName() const override { return QStringLiteral("keyring"); }

    static QString serviceName();

private:
    QString entryName(const QString &keyId) const;

    QString m_scope;
    std::chrono::milliseconds m_timeout;
};

} // namespace sb
