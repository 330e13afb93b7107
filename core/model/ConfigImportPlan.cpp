#include "model/ConfigImportPlan.h"

#include "model/ConfigJson.h"

#include <QFile>

namespace sb {

namespace {

// A key the file brings without its secret keeps the secret stored under its id, but only where
// that id belongs to a key of the same provider here: a file from another database numbers its keys
// its own way, and its key 3 must not pick up this database's key 3 of another provider.
void forgetForeignKeyIds(EngineConfig &config, const EngineConfig &current)
{
    for (auto &provider : config.providers) {
        const ProviderConfig *here = nullptr;
        for (const auto &p : current.providers)
            if (p.name == provider.name)
                here = &p;
        for (auto &key : provider.keys) {
            if (!key.secret.isEmpty() || key.id <= 0)
                continue;
            bool ours = false;
            if (here)
                for (const auto &k : here->keys)
                    ours = ours || k.id == key.id;
            if (!ours)
                key.id = 0; // a new key: the save gives it an id of this database, with no secret
        }
    }
}

} // namespace

ConfigImportPlan planConfigImport(const EngineConfig &current, const QByteArray &json)
{
    ConfigImportPlan plan;
    ConfigImport imported = importConfigJson(json);
    plan.warnings = imported.warnings;
    plan.errors = imported.errors;
    if (!plan.ok())
        return plan;
    plan.config = std::move(imported.config);
    forgetForeignKeyIds(plan.config, current);
    for (const QString &problem : plan.config.validate())
        if (!plan.errors.contains(problem))
            plan.errors << problem;
    if (!plan.ok())
        return plan;
    plan.diff = diffConfigs(current, plan.config);
    return plan;
}

ConfigImportPlan planConfigImportFile(const EngineConfig &current, const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        ConfigImportPlan plan;
        plan.errors << QStringLiteral("Cannot read the configuration file \"%1\": %2.").arg(path, file.errorString());
        return plan;
    }
    return planConfigImport(current, file.readAll());
}

} // namespace sb
