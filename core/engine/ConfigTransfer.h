#pragma once

#include "model/ConfigImportPlan.h"
#include "store/SecretStoreFactory.h"

#include <QString>
#include <QStringList>

#include <memory>

namespace sb {

class Clock;
class ConfigRepository;
class SecretStore;

// `switchboard --export FILE` and `--import FILE`: the stored configuration of a database written
// to a file, or a file's configuration checked, previewed and saved into the database in one
// transaction, without starting the engine. The secrets are where the database keeps them; a new
// database puts them where `secrets` says (as in EngineHost::Options). A Switchboard running on that database
// applies an import on its next reload (SIGHUP, POST /admin/reload).
class ConfigTransfer {
public:
    explicit ConfigTransfer(Clock &clock);
    ~ConfigTransfer();

    // Opens the database (empty dbPath: the default one) and its secrets. False with a sentence.
    bool open(const QString &dbPath, SecretStoreFactory::Preference secrets, QString *error);
    QString databasePath() const { return m_dbPath; }

    // The stored configuration; an empty database holds the demo configuration, as at a first start.
    bool exportTo(const QString &path, bool includeSecrets, QStringList *warnings, QString *error);

    // Reads and checks the file against what is stored; nothing is written.
    ConfigImportPlan plan(const QString &path);
    // Saves a plan that is ok(): one transaction, recorded as a config_change event.
    bool apply(const ConfigImportPlan &plan, const QString &reason, QStringList *errors);

private:
    EngineConfigPtr stored(QString *error);

    Clock &m_clock;
    QString m_dbPath;
    std::unique_ptr<SecretStore> m_secrets;
    std::unique_ptr<ConfigRepository> m_repository;
};

} // namespace sb
