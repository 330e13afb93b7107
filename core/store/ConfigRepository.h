#pragma once

#include "model/EngineConfig.h"
#include "store/Database.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace sb {

class Clock;
class SecretStore;

// The configuration tables of the database (providers, api_keys, channels, routes, settings,
// prices): loads an immutable EngineConfig, saves an edited one in one transaction. API key secrets
// go through the SecretStore; the tables keep only a masked preview. Use from the thread that
// called open() (Qt SQL connections are per thread); ConfigStore wraps it for the rest of the app.
class ConfigRepository {
public:
    struct SaveResult {
        EngineConfigPtr config; // what is now stored, as load() would return it; null on failure
        QStringList errors;     // sentences a user can act on
        bool ok() const { return config != nullptr; }
    };

    struct KeyPreview {
        int keyId = 0;
        int providerId = 0;
        QString label;
        QString maskedPreview; // "sk-…a1F3"
        bool enabled = true;
        QString disabledReason;
    };

    ConfigRepository(QString dbPath, SecretStore &secrets, Clock &clock);

    bool open(QString *error = nullptr);
    Database &database() { return m_db; }
    // Where secrets are read and written from now on (after SecretMove put them in another store).
    void useSecretStore(SecretStore &secrets) { m_secrets = &secrets; }
    SecretStore &secretStore() const { return *m_secrets; }

    // True until a configuration has ever been saved or seeded in this database.
    bool isEmpty() const;
    // On first start with an empty database: store DemoConfig, so the console works with no API key.
    // Returns true when it seeded; false when there already was a configuration (or on error, with
    // *error set).
    bool seedDemoIfEmpty(QString *error = nullptr);

    // The stored configuration with its secrets; null (and *error) when it cannot be read.
    EngineConfigPtr load(QString *error = nullptr);

    // Validates, then replaces the stored configuration in one transaction and records a
    // config_change event. Keys whose secret is empty keep the secret already stored under their id
    // (an import without secrets must not wipe them). Keys and routes with id <= 0 get new ids.
    SaveResult save(const EngineConfig &config, const QString &reason = QString());

    std::vector<KeyPreview> keyPreviews() const;

    // The provider refused key `keyId` (401/403, a spent quota): kept for the key's stored secret when
    // it still is the one whose masked form is `maskedPreview`, so the next load() has it refused
    // (ApiKeyConfig::refusedAtMs) until a save gives the key a new secret or reenableKey() runs.
    // True when it was stored; false (*error only on a database failure) when the key is gone or has
    // another secret since.
    bool recordKeyRefused(int keyId, const QString &maskedPreview, const QString &reason, qint64 atMs, QString *error = nullptr);
    // The user's explicit "re-enable": forgets the key's refusal and records a config_change event.
    // False with a sentence when the key has no refusal or the database fails.
    bool reenableKey(int keyId, QString *error = nullptr);

    // History retention in days (default 30), kept beside the configuration.
    int historyRetentionDays() const;
    bool setHistoryRetentionDays(int days, QString *error = nullptr);

    // The SecretStore name of a key's secret as stored now ("api-key/7/r12"); empty if none.
    QString secretRefOf(int keyId) const;
    static constexpr int DefaultRetentionDays = 30;

private:
    QString meta(const QString &key, const QString &fallback = QString()) const;

    Database m_db;
    SecretStore *m_secrets;
    Clock &m_clock;
};

} // namespace sb
