// Config JSON import (what --config and the console's import read): any bytes give either errors or
// a config; an accepted config exports and re-imports (secrets included) to an accepted config.
#include "FuzzEntries.h"

#include "model/ConfigJson.h"

namespace sb::fuzz {

int fuzzConfigJson(const std::uint8_t *data, std::size_t size)
{
    const QByteArray json(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const ConfigImport imported = importConfigJson(json);
    if (!imported.ok())
        return 0;
    (void)imported.config.validate();
    ConfigExportOptions options;
    options.includeSecrets = true;
    const ConfigExport exported = exportConfigJson(imported.config, options);
    const ConfigImport again = importConfigJson(exported.toBytes());
    fuzzCheck(again.ok(), "an imported config exports to a file that imports again");
    return 0;
}

} // namespace sb::fuzz
