#pragma once

#include "control/Gateway.h"
#include "store/SecretStoreFactory.h"

#include <QObject>
#include <QString>

class QLockFile;

#include <chrono>
#include <memory>

namespace sb {

class ConfigRepository;
class ConfigStore;
class HistoryWriter;
class SecretStore;

// Everything a running Switchboard is made of, assembled in one place for the console and the
// headless service alike: the database (configuration, secrets, history), the Gateway, and the
// wiring that writes requests, events and per-second health samples to the history and applies
// saved configuration live.
class EngineHost : public QObject {
    Q_OBJECT
public:
    struct Options {
        QString dbPath;     // empty: QStandardPaths::AppDataLocation/switchboard.db
        QString configPath; // a JSON configuration that replaces the stored one for this run
        QString listen;     // HOST:PORT overriding the configured address
        QString redisUrl;   // overrides fleet.redis_url: this instance joins that fleet
        QString tlsCertFile; // with tlsKeyFile, overrides proxy.tls_cert_file / tls_key_file: HTTPS
        QString tlsKeyFile;
        bool seedDemo = true; // an empty database gets the demo configuration
        // Where a database that has no keys yet puts them; one that has keys keeps them where they
        // are (SecretStoreFactory). Tests say DatabaseOnly: never the user's keyring.
        SecretStoreFactory::Preference secrets = SecretStoreFactory::Preference::Auto;
        // The console's answer to a proxy port in use at start: listen here instead, and keep it in
        // the stored configuration so the next start uses it too. 0: the configured port. Ignored
        // when the address is pinned (--listen, or a --config file the database does not hold).
        quint16 movePortTo = 0;
    };

    // Why start() failed, for a caller that can do better than show the sentence.
    enum class StartFailure {
        None,
        AlreadyRunning, // another Switchboard holds this database's lock file (lockOwnerPid())
        PortInUse,      // the proxy's address is taken (busyHost(), busyPort())
        Other,
    };

    EngineHost(Clock &clock, Random &random, QObject *parent = nullptr);
    ~EngineHost() override;

    // False with a sentence that says what to do.
    bool start(const Options &options, QString *error);
    void stop(std::chrono::milliseconds drain = std::chrono::seconds(10));

    Gateway *gateway() const { return m_gateway.get(); }
    ConfigStore *configStore() const { return m_configStore.get(); }
    HistoryWriter *historyWriter() const { return m_history.get(); }
    QString databasePath() const { return m_dbPath; }
    // Where API keys are kept, and a warning when that is the database file rather than a keyring,
    // or a keyring that cannot be reached.
    QString secretStorageWarning() const { return m_secretWarning; }
    SecretBackend secretBackend() const;
    bool secretsReadable() const;
    // The console's explicit "move keys": every stored secret to the other store, all or nothing
    // (SecretMove); the running configuration is unchanged. False with a sentence; *note (if given)
    // gets what is worth telling after a move that worked (an old copy left behind).
    bool moveSecretsTo(SecretBackend target, QString *error, QString *note = nullptr);
    bool configFromFile() const { return m_configFromFile; }

    // POST /admin/reload and SIGHUP (systemctl reload): the configuration read again from where this
    // run took it (the --config file or the database), with the --listen override kept, applied
    // live. False with the sentence, the running configuration unchanged, when it cannot work.
    bool reloadConfiguration(QString *message) { return reload(message); }

    StartFailure startFailure() const { return m_failure; }
    qint64 lockOwnerPid() const { return m_lockOwnerPid; }
    QString busyHost() const { return m_busyHost; }
    quint16 busyPort() const { return m_busyPort; }
    // The listen address was given for this run (--listen) or comes from a --config file: moving it
    // would not be remembered where it was set.
    bool listenPinned() const { return !m_options.listen.isEmpty() || !m_options.configPath.isEmpty(); }
    // The lock file that keeps one Switchboard per database ("<database>.lock").
    static QString lockPathFor(const QString &dbPath);

signals:
    void secretStorageChanged();

private:
    void restoreSpend(const EngineConfig &config);
    void warnUnservable(const QStringList &problems) const; // a stored configuration's, said in the log
    void wireHistory();
    // Keys the provider refuses stay refused in the database (ConfigStore::recordKeyRefused), and
    // POST /admin/keys/{id}/enable takes one back.
    void wireKeyRefusals();
    // POST /admin/reload: the configuration read again from where this run took it (the --config
    // file or the database), with the --listen override kept, applied live.
    bool reload(QString *message);
    // What is applied to the engine for a stored configuration: --listen still wins over it.
    EngineConfigPtr withOverrides(const EngineConfigPtr &config) const;
    bool startParts(const Options &options, QString *error);
    bool lockDatabase(QString *error);
    // The configured port was taken: says so, and which program may hold it.
    void notePortInUse(const EngineConfig &config, QString *error);
    EngineConfigPtr movedPort(const EngineConfigPtr &config, QString *error);

    Clock &m_clock;
    Random &m_random;
    QString m_dbPath;
    QString m_secretWarning;
    bool m_configFromFile = false;
    Options m_options;
    StartFailure m_failure = StartFailure::None;
    qint64 m_lockOwnerPid = 0;
    QString m_busyHost;
    quint16 m_busyPort = 0;
    std::unique_ptr<QLockFile> m_lock;
    std::unique_ptr<SecretStore> m_secrets;
    std::unique_ptr<ConfigRepository> m_repository;
    std::unique_ptr<ConfigStore> m_configStore;
    std::unique_ptr<HistoryWriter> m_history;
    std::unique_ptr<Gateway> m_gateway;
};

} // namespace sb
