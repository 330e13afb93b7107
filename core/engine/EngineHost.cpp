#include "engine/EngineHost.h"

#include "control/HealthEventRecord.h"
#include "model/ConfigJson.h"
#include "net/ListenAddress.h"
#include "net/PortProbe.h"
#include "store/ConfigRepository.h"
#include "store/ConfigStore.h"
#include "store/Database.h"
#include "store/HistoryReader.h"
#include "store/HistoryWriter.h"
#include "store/SecretBackendRecord.h"
#include "store/SecretMove.h"
#include "store/SecretStore.h"
#include "store/SecretStoreFactory.h"

#include <QDir>
#include <QFileInfo>
#include <QLockFile>

#include <spdlog/spdlog.h>

namespace sb {

namespace {

QString stateOf(const ChannelSnapshot &channel)
{
    if (channel.pool == PoolState::Ejected || channel.pool == PoolState::Drained || channel.pool == PoolState::Misconfigured)
        return QLatin1String(toString(channel.pool));
    return QLatin1String(toString(channel.breaker));
}

} // namespace

EngineHost::EngineHost(Clock &clock, Random &random, QObject *parent) : QObject(parent), m_clock(clock), m_random(random) {}

EngineHost::~EngineHost()
{
    stop(std::chrono::milliseconds(0));
}

QString EngineHost::lockPathFor(const QString &dbPath)
{
    return dbPath + QStringLiteral(".lock");
}

bool EngineHost::start(const Options &options, QString *error)
{
    m_failure = StartFailure::Other;
    m_lockOwnerPid = 0;
    m_busyHost.clear();
    m_busyPort = 0;
    if (!startParts(options, error)) {
        // Nothing half-started stays behind (a history thread, the lock): the console may start
        // this host again once the user has answered (another port).
        const StartFailure failure = m_failure;
        stop(std::chrono::milliseconds(0));
        m_failure = failure;
        return false;
    }
    m_failure = StartFailure::None;
    return true;
}

bool EngineHost::lockDatabase(QString *error)
{
    QDir().mkpath(QFileInfo(m_dbPath).absolutePath());
    m_lock = std::make_unique<QLockFile>(lockPathFor(m_dbPath));
    // Never stale by age: a Switchboard runs for weeks. A lock whose process is gone is taken over
    // (QLockFile checks the process id), so a crash does not lock the database out.
    m_lock->setStaleLockTime(0);
    if (m_lock->tryLock(0))
        return true;
    qint64 pid = 0;
    QString hostName;
    QString application;
    const bool known = m_lock->getLockInfo(&pid, &hostName, &application);
    if (m_lock->error() == QLockFile::LockFailedError) {
        m_failure = StartFailure::AlreadyRunning;
        m_lockOwnerPid = known ? pid : 0;
        const QString who = known ? QStringLiteral("process %1 on %2").arg(pid).arg(hostName) : QStringLiteral("another process");
        *error = QStringLiteral("Switchboard is already running on %1 (%2). One Switchboard runs per database: use that one "
                                "(its tray icon brings its window back), or start this one on another database with --db.")
                     .arg(m_dbPath, who);
    } else {
        *error = QStringLiteral("Cannot create the lock file %1 beside the database; check that its folder is writable.")
                     .arg(lockPathFor(m_dbPath));
    }
    m_lock.reset();
    return false;
}

void EngineHost::notePortInUse(const EngineConfig &config, QString *error)
{
    const QString host = config.proxy.listenHost == QLatin1String("localhost") ? QStringLiteral("127.0.0.1") : config.proxy.listenHost;
    const auto port = static_cast<quint16>(config.proxy.listenPort);
    if (port == 0 || isPortFree(QHostAddress(host), port))
        return; // refused for another reason (the address is not this machine's, a permission)
    m_failure = StartFailure::PortInUse;
    m_busyHost = host;
    m_busyPort = port;
    *error = QStringLiteral("Port %1 on %2 is in use by another program, so the proxy cannot open it. Choose another port "
                            "with --listen HOST:PORT or in the console's Settings.").arg(port).arg(host);
}

EngineConfigPtr EngineHost::movedPort(const EngineConfigPtr &config, QString *error)
{
    if (m_options.movePortTo == 0 || listenPinned() || config->proxy.listenPort == m_options.movePortTo)
        return config;
    EngineConfig moved = *config;
    const int from = moved.proxy.listenPort;
    moved.proxy.listenPort = m_options.movePortTo;
    // Saved, so the next start listens there too: the user chose it because the other was taken.
    const ConfigRepository::SaveResult saved =
        m_configStore->save(moved, QStringLiteral("port %1 was in use at start; the proxy moved to %2").arg(from).arg(m_options.movePortTo));
    if (!saved.ok()) {
        *error = QStringLiteral("Cannot keep the new port: %1").arg(saved.errors.join(QStringLiteral(" ")));
        return nullptr;
    }
    spdlog::info("port {} was in use; the proxy listens on {} from now on", from, m_options.movePortTo);
    return saved.config;
}

bool EngineHost::startParts(const Options &options, QString *error)
{
    m_options = options;
    m_dbPath = options.dbPath.isEmpty() ? Database::defaultPath(error) : options.dbPath;
    if (m_dbPath.isEmpty())
        return false;
    if (!lockDatabase(error))
        return false;

    SecretStoreChoice secrets = SecretStoreFactory::create(m_dbPath, options.secrets);
    if (!secrets.store) {
        *error = secrets.error.isEmpty() ? QStringLiteral("Cannot open %1 for API keys.").arg(m_dbPath) : secrets.error;
        return false;
    }
    m_secrets = std::move(secrets.store);
    m_secretWarning = secrets.warning;

    m_repository = std::make_unique<ConfigRepository>(m_dbPath, *m_secrets, m_clock);
    if (!m_repository->open(error))
        return false;
    m_configStore = std::make_unique<ConfigStore>(*m_repository);

    EngineConfigPtr config;
    if (!options.configPath.isEmpty()) {
        ConfigImport imported = importConfigFile(options.configPath);
        if (!imported.ok()) {
            *error = QStringLiteral("%1: %2").arg(options.configPath, imported.errors.join(QStringLiteral(" ")));
            return false;
        }
        for (const QString &warning : imported.warnings)
            spdlog::warn("{}: {}", options.configPath.toStdString(), warning.toStdString());
        // A file runs as written: no database fills in the secrets it leaves out.
        if (const QStringList problems = imported.config.validateAsWritten(); !problems.isEmpty()) {
            *error = QStringLiteral("%1: %2").arg(options.configPath, problems.join(QStringLiteral(" ")));
            return false;
        }
        config = std::make_shared<const EngineConfig>(std::move(imported.config));
        m_configFromFile = true;
    } else if (options.seedDemo) {
        if (!m_configStore->initialize(error))
            return false;
        config = movedPort(m_configStore->current(), error);
        if (!config)
            return false;
    } else {
        config = m_repository->load(error);
        if (!config)
            return false;
    }

    if (!options.listen.isEmpty()) {
        QString listenError;
        if (!ListenAddress::parse(options.listen, &listenError)) {
            *error = QStringLiteral("--listen %1: %2").arg(options.listen, listenError);
            return false;
        }
    }
    config = withOverrides(config);
    const ConfigProblems problems = config->problems();
    if (!problems.whole.isEmpty() || (m_configFromFile && !problems.providers.isEmpty())) {
        *error = QStringLiteral("The configuration has problems: %1").arg((problems.whole + problems.providers).join(QStringLiteral(" ")));
        return false;
    }
    warnUnservable(problems.providers);

    m_history = std::make_unique<HistoryWriter>(m_dbPath, m_clock);
    if (!m_history->start(error))
        return false;
    m_history->setRetentionDays(m_repository->historyRetentionDays());

    m_gateway = std::make_unique<Gateway>(m_clock, m_random, config);
    // Semantic cache entries live in the same database so they survive a restart.
    if (QString cacheError; !m_gateway->context().cache().openStore(m_dbPath, &cacheError))
        spdlog::warn("semantic cache kept in memory only: {}", cacheError.toStdString());
    // Stored Responses API responses too, so that previous_response_id works across a restart
    // (in a file of their own beside the database), under the history's retention.
    if (QString storeError; !m_gateway->context().responses().open(m_dbPath, &storeError))
        spdlog::warn("stored responses kept in memory only: {}", storeError.toStdString());
    restoreSpend(*config);
    wireHistory();
    if (!m_gateway->start(error)) {
        m_gateway.reset();
        notePortInUse(*config, error);
        return false;
    }
    ResponseStore *responses = &m_gateway->context().responses();
    m_history->setRetentionListener([responses](qint64 cutMs) { responses->deleteBefore(cutMs); });
    // Saved edits apply live, the listen address too (the Gateway rebinds, or keeps the old
    // address and says why through Gateway::listenFailed).
    m_configStore->addListener([this](const EngineConfigPtr &saved) {
        if (m_gateway)
            m_gateway->applyConfig(withOverrides(saved)); // the repository already logged the config_change event
    });
    m_gateway->setReloadHandler([this](QString *message) { return reload(message); });
    wireKeyRefusals();
    return true;
}

EngineConfigPtr EngineHost::withOverrides(const EngineConfigPtr &config) const
{
    if (m_options.listen.isEmpty() && m_options.redisUrl.isEmpty() && m_options.tlsCertFile.isEmpty())
        return config;
    auto edited = std::make_shared<EngineConfig>(*config);
    QString ignored;
    if (const auto address = ListenAddress::parse(m_options.listen, &ignored); address && !m_options.listen.isEmpty()) {
        edited->proxy.listenHost = address->host.toString();
        edited->proxy.listenPort = address->port;
    }
    if (!m_options.redisUrl.isEmpty())
        edited->fleet.redisUrl = m_options.redisUrl;
    if (!m_options.tlsCertFile.isEmpty()) {
        edited->proxy.tlsCertFile = m_options.tlsCertFile;
        edited->proxy.tlsKeyFile = m_options.tlsKeyFile;
    }
    return edited;
}

SecretBackend EngineHost::secretBackend() const
{
    return m_secrets ? m_secrets->backend() : SecretBackend::Database;
}

bool EngineHost::secretsReadable() const
{
    return m_secrets && m_secrets->readable();
}

bool EngineHost::moveSecretsTo(SecretBackend target, QString *error, QString *note)
{
    if (!m_secrets || !m_repository) {
        *error = QStringLiteral("No database is open.");
        return false;
    }
    if (!m_secrets->readable()) {
        *error = QStringLiteral("The keys cannot be moved: %1.").arg(m_secretWarning);
        return false;
    }
    std::unique_ptr<SecretStore> to = SecretStoreFactory::open(m_dbPath, target, error);
    if (!to)
        return false;
    const SecretMove::Result moved = SecretMove::run(m_repository->database(), *m_secrets, *to, m_clock.wallMillis());
    if (!moved.ok) {
        *error = moved.error;
        return false;
    }
    m_repository->useSecretStore(*to);
    m_secrets = std::move(to);
    m_secretWarning = target == SecretBackend::Database ? SecretStoreFactory::databaseFileWarning() : QString();
    if (note)
        *note = moved.leftOver;
    if (!moved.leftOver.isEmpty())
        spdlog::warn("secrets: {}", moved.leftOver.toStdString());
    spdlog::info("secrets: {} secrets moved to the {}", moved.moved, SecretBackendRecord::name(target).toStdString());
    emit secretStorageChanged();
    return true;
}

bool EngineHost::reload(QString *message)
{
    if (!m_gateway || !m_repository)
        return false;
    EngineConfigPtr config;
    QString source;
    if (m_configFromFile) {
        ConfigImport imported = importConfigFile(m_options.configPath);
        if (!imported.ok()) {
            *message = QStringLiteral("%1: %2 The running configuration is unchanged.")
                           .arg(m_options.configPath, imported.errors.join(QStringLiteral(" ")));
            return false;
        }
        if (const QStringList problems = imported.config.validateAsWritten(); !problems.isEmpty()) {
            *message = QStringLiteral("%1: %2 The running configuration is unchanged.")
                           .arg(m_options.configPath, problems.join(QStringLiteral(" ")));
            return false;
        }
        config = std::make_shared<const EngineConfig>(std::move(imported.config));
        source = m_options.configPath;
    } else {
        QString error;
        config = m_repository->load(&error);
        if (!config) {
            *message = QStringLiteral("Cannot read the stored configuration (%1). The running configuration is unchanged.").arg(error);
            return false;
        }
        source = m_dbPath;
    }
    const EngineConfigPtr applied = withOverrides(config);
    const ConfigProblems problems = applied->problems();
    if (!problems.whole.isEmpty() || (m_configFromFile && !problems.providers.isEmpty())) {
        *message = QStringLiteral("The configuration in %1 has problems: %2 The running configuration is unchanged.")
                       .arg(source, (problems.whole + problems.providers).join(QStringLiteral(" ")));
        return false;
    }
    warnUnservable(problems.providers);
    if (m_configFromFile)
        m_gateway->applyConfig(applied);
    else
        m_configStore->adoptReloaded(config); // its listener applies it (with the overrides) to the Gateway
    *message = QStringLiteral("Configuration reloaded from %1.").arg(source);
    spdlog::info("{}", message->toStdString());
    return true;
}

void EngineHost::warnUnservable(const QStringList &problems) const
{
    // A database saved before these were refused may hold them: the engine runs the rest, and the
    // console's Providers page is where they are mended (a save refuses them).
    for (const QString &problem : problems)
        spdlog::warn("{}: {} Its requests fail over until it is fixed in Providers.", m_dbPath.toStdString(), problem.toStdString());
}

void EngineHost::restoreSpend(const EngineConfig &config)
{
    // Budgets hold across restarts: this day's and this month's spend are the history's sums (its
    // spend per route and minute).
    HistoryReader reader(m_dbPath);
    QString error;
    if (!reader.open(&error)) {
        spdlog::warn("cost: cannot read the spend back from the history ({}); budgets start from zero", error.toStdString());
        return;
    }
    QStringList routes;
    for (const RouteConfig &route : config.routes)
        routes << route.logicalModel;
    m_gateway->context().costMeter().restore(routes, m_clock.wallMillis(), [&reader](const QString &route, qint64 fromMs) {
        return reader.spentSince(route, fromMs);
    });
}

void EngineHost::wireHistory()
{
    HistoryWriter *history = m_history.get();
    m_gateway->context().setRequestSink([history](RequestRecord &&record) { history->enqueue(std::move(record)); });
    connect(m_gateway.get(), &Gateway::healthEvent, this, [history](const HealthEvent &event) { history->enqueue(toEventRecord(event)); },
            Qt::DirectConnection);
    connect(m_gateway.get(), &Gateway::snapshotReady, this, [history](const MetricsSnapshot &snapshot) {
        for (const ChannelSnapshot &channel : snapshot.channels) {
            HealthSample sample;
            sample.timeMs = snapshot.wallMillis;
            sample.channelId = channel.channelId;
            sample.score = channel.score;
            sample.errorRate = channel.errorRate5m;
            sample.fastErrorRate = channel.errorRate30s;
            sample.p95Ms = channel.calls5m ? channel.p95Ms : -1.0;
            sample.state = stateOf(channel);
            history->enqueue(std::move(sample));
        }
    }, Qt::DirectConnection);
}

void EngineHost::wireKeyRefusals()
{
    // A run on a --config file keeps refusals in memory only: the file is read-only and its keys are
    // not the database's.
    if (m_configFromFile)
        return;
    // The ring's "disabled" event is the refusal; it is stored on this (the store's) thread.
    connect(m_gateway.get(), &Gateway::healthEvent, this, [this](const HealthEvent &event) {
        if (event.type != HealthEvent::Type::Key || event.to != QLatin1String("disabled") || event.keyId <= 0 || !m_configStore)
            return;
        m_configStore->recordKeyRefused(event.keyId, event.keyMasked, event.cause, event.wallMillis);
    }, Qt::QueuedConnection);
    m_gateway->setKeyReenableHandler([this](int keyId, QString *message) {
        if (!m_configStore->reenableKey(keyId, message))
            return false;
        *message = QStringLiteral("API key %1 is back in rotation.").arg(keyId);
        return true;
    });
}

void EngineHost::stop(std::chrono::milliseconds drain)
{
    if (m_history)
        m_history->setRetentionListener({}); // the stored responses go with the gateway
    if (m_gateway) {
        m_gateway->stop(drain);
        m_gateway->context().setRequestSink({});
        m_gateway.reset();
    }
    if (m_history) {
        m_history->stop();
        m_history.reset();
    }
    m_configStore.reset();
    m_repository.reset();
    m_secrets.reset();
    m_lock.reset(); // unlocks: the database is free for the next Switchboard
}

} // namespace sb
