#include "store/ConfigStore.h"

#include <spdlog/spdlog.h>

namespace sb {

ConfigStore::ConfigStore(ConfigRepository &repository, QObject *parent)
    : QObject(parent)
    , m_repository(repository)
{
    // Queued connections to the engine's threads copy the pointer, so the type must be known.
    qRegisterMetaType<sb::EngineConfigPtr>("sb::EngineConfigPtr");
}

bool ConfigStore::initialize(QString *error)
{
    QString seedError;
    m_seededDemo = m_repository.seedDemoIfEmpty(&seedError);
    if (!seedError.isEmpty()) {
        if (error)
            *error = seedError;
        return false;
    }
    EngineConfigPtr config = m_repository.load(error);
    if (!config)
        return false;
    std::lock_guard lock(m_mutex);
    m_current = std::move(config);
    return true;
}

EngineConfigPtr ConfigStore::current() const
{
    std::lock_guard lock(m_mutex);
    return m_current;
}

ConfigRepository::SaveResult ConfigStore::save(const EngineConfig &config, const QString &reason)
{
    ConfigRepository::SaveResult result = m_repository.save(config, reason);
    if (result.ok())
        publish(result.config);
    return result;
}

bool ConfigStore::recordKeyRefused(int keyId, const QString &maskedPreview, const QString &reason, qint64 atMs)
{
    QString error;
    if (!m_repository.recordKeyRefused(keyId, maskedPreview, reason, atMs, &error)) {
        if (!error.isEmpty())
            spdlog::warn("config: {}", error.toStdString());
        return false;
    }
    return reloadAndPublish(&error);
}

bool ConfigStore::reenableKey(int keyId, QString *error)
{
    return m_repository.reenableKey(keyId, error) && reloadAndPublish(error);
}

bool ConfigStore::reloadAndPublish(QString *error)
{
    EngineConfigPtr config = m_repository.load(error);
    if (!config)
        return false;
    publish(config);
    return true;
}

void ConfigStore::addListener(Listener listener)
{
    std::lock_guard lock(m_mutex);
    m_listeners.push_back(std::move(listener));
}

void ConfigStore::publish(const EngineConfigPtr &config)
{
    std::vector<Listener> listeners;
    {
        std::lock_guard lock(m_mutex);
        m_current = config;
        listeners = m_listeners;
    }
    for (const auto &l : listeners)
        l(config);
    emit configChanged(config);
}

} // namespace sb
