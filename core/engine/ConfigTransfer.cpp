#include "engine/ConfigTransfer.h"

#include "model/ConfigExportFile.h"
#include "model/ConfigJson.h"
#include "store/ConfigRepository.h"
#include "store/Database.h"
#include "store/SecretStoreFactory.h"

namespace sb {

ConfigTransfer::ConfigTransfer(Clock &clock) : m_clock(clock) {}

ConfigTransfer::~ConfigTransfer() = default;

bool ConfigTransfer::open(const QString &dbPath, SecretStoreFactory::Preference secrets, QString *error)
{
    m_dbPath = dbPath.isEmpty() ? Database::defaultPath(error) : dbPath;
    if (m_dbPath.isEmpty())
        return false;
    SecretStoreChoice choice = SecretStoreFactory::create(m_dbPath, secrets);
    if (!choice.store) {
        *error = choice.error.isEmpty() ? QStringLiteral("Cannot open %1 for API keys.").arg(m_dbPath) : choice.error;
        return false;
    }
    m_secrets = std::move(choice.store);
    m_repository = std::make_unique<ConfigRepository>(m_dbPath, *m_secrets, m_clock);
    return m_repository->open(error);
}

EngineConfigPtr ConfigTransfer::stored(QString *error)
{
    // What a first start would seed: an export of a new database is the demo, as the console shows it.
    if (m_repository->isEmpty() && !m_repository->seedDemoIfEmpty(error) && !error->isEmpty())
        return nullptr;
    return m_repository->load(error);
}

bool ConfigTransfer::exportTo(const QString &path, bool includeSecrets, QStringList *warnings, QString *error)
{
    const EngineConfigPtr config = stored(error);
    if (!config)
        return false;
    ConfigExportOptions options;
    options.includeSecrets = includeSecrets;
    const ConfigExport exported = exportConfigJson(*config, options);
    *warnings = exported.warnings;
    if (includeSecrets)
        for (const ProviderConfig &p : config->providers)
            for (const ApiKeyConfig &k : p.keys)
                if (k.secretUnreadable())
                    *warnings << QStringLiteral("Provider \"%1\" key \"%2\" is exported without its secret: %3").arg(p.name, k.label, k.unreadableReason);
    return writeConfigExport(exported, path, includeSecrets, error);
}

ConfigImportPlan ConfigTransfer::plan(const QString &path)
{
    QString error;
    // An empty database is compared as empty: importing into it leaves no demo behind to seed.
    EngineConfigPtr current = m_repository->isEmpty() ? std::make_shared<const EngineConfig>() : m_repository->load(&error);
    if (!current) {
        ConfigImportPlan refused;
        refused.errors << QStringLiteral("Cannot read the stored configuration of %1: %2").arg(m_dbPath, error);
        return refused;
    }
    return planConfigImportFile(*current, path);
}

bool ConfigTransfer::apply(const ConfigImportPlan &plan, const QString &reason, QStringList *errors)
{
    if (!plan.ok()) {
        *errors = plan.errors;
        return false;
    }
    const ConfigRepository::SaveResult saved = m_repository->save(plan.config, reason);
    *errors = saved.errors;
    return saved.ok();
}

} // namespace sb
