#pragma once

#include "model/ConfigDiff.h"
#include "model/EngineConfig.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace sb {

// An import, read and checked but not yet written: what the file says, what it would change in the
// configuration there is now, and the configuration to save. Nothing is written until the caller
// saves `config` (ConfigStore::save or ConfigRepository::save, one transaction); an import with
// errors has nothing to save. The console's import preview and `switchboard --import` both use it,
// so they agree on what an import does (CONFIG_FORMAT.md, "Secrets").
struct ConfigImportPlan {
    EngineConfig config;  // to save; meaningless when errors is not empty
    ConfigDiff diff;      // from the current configuration to config
    QStringList warnings; // the file's: ignored fields, secrets left out, …
    QStringList errors;   // why it cannot be imported, each a sentence that says what to fix
    bool ok() const { return errors.isEmpty(); }
};

ConfigImportPlan planConfigImport(const EngineConfig &current, const QByteArray &json);
// Reads the file first; one that cannot be read is an error sentence naming it.
ConfigImportPlan planConfigImportFile(const EngineConfig &current, const QString &path);

} // namespace sb
