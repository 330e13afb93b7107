#pragma once

#include "model/EngineConfig.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <vector>

namespace sb {

// The documented JSON form of a whole EngineConfig (core/model/CONFIG_FORMAT.md): what the console
// imports and exports and what `--config FILE.json` reads. Providers and channels are referred to by
// name so a hand-written file needs no ids.

inline constexpr int ConfigJsonVersion = 1;

struct ConfigExportOptions {
    // API keys (and the local proxy token) are left out unless asked for: an exported file gets
    // mailed around, pasted in tickets and committed by accident.
    bool includeSecrets = false;
};

struct ConfigExport {
    QJsonObject json;
    QStringList warnings; // e.g. "3 API keys were left out …"
    QByteArray toBytes() const;
};

struct ConfigImport {
    EngineConfig config;
    QStringList warnings; // things that were ignored or defaulted; the import still worked
    QStringList errors;   // why it did not work; config is meaningless then
    bool ok() const { return errors.isEmpty(); }
};

ConfigExport exportConfigJson(const EngineConfig &config, const ConfigExportOptions &options = {});
ConfigImport importConfigJson(const QByteArray &json);
ConfigImport importConfigJson(const QJsonObject &json);
// Reads a file; a missing or unreadable file is an error sentence, not a crash.
ConfigImport importConfigFile(const QString &path);

// Every engine threshold as "<section>.<name>" (e.g. "health.window_s") with its JSON value: the
// rows of the settings table and, nested by section, the "settings" object of the JSON format.
// The local proxy token is not among them (it is a secret, see ConfigRepository).
std::vector<std::pair<QString, QJsonValue>> engineSettings(const EngineConfig &config);
// Sets one setting; returns an error sentence (and leaves the config alone) when the key is unknown
// or the value has the wrong type.
QString applyEngineSetting(EngineConfig *config, const QString &key, const QJsonValue &value);
QStringList engineSettingKeys();

} // namespace sb
