#include "HeadlessHost.h"

#include "model/ConfigJson.h"

#include <QDir>
#include <QFile>

namespace sb::test {

EngineHost::Options headlessOptions(const QString &dir)
{
    EngineHost::Options options;
    options.dbPath = QDir(dir).filePath(QStringLiteral("switchboard.db"));
    options.configPath = QDir(dir).filePath(QStringLiteral("switchboard.json"));
    options.seedDemo = false;
    options.secrets = sb::SecretStoreFactory::Preference::DatabaseOnly;
    return options;
}

bool writeConfigFile(const QString &path, const EngineConfig &config)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    const QByteArray json = exportConfigJson(config, ConfigExportOptions{true}).toBytes();
    return file.write(json) == json.size();
}

} // namespace sb::test
