#pragma once

#include "engine/EngineHost.h"

#include <QString>

namespace sb {
struct EngineConfig;
}

namespace sb::test {

// An EngineHost as `switchboard --headless --config FILE` runs it, with both of its files in `dir`:
// the configuration file switchboard.json and the history database switchboard.db. The keyring is
// off, so a test never reads or writes the user's.
EngineHost::Options headlessOptions(const QString &dir);

// Writes `config`, API keys included, as the JSON file `--config` reads; false when it cannot.
bool writeConfigFile(const QString &path, const EngineConfig &config);

} // namespace sb::test
