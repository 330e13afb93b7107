#pragma once

#include "model/EngineConfig.h"
#include "store/ConfigRepository.h"

#include <QObject>

#include <functional>
#include <mutex>
#include <vector>

namespace sb {

// The application's handle on the configuration: holds the current immutable snapshot and tells
// whoever runs the engine when a save replaced it, so edits apply live (the engine swaps its
// EngineConfigPtr; requests in flight keep the snapshot they started with). Lives on the thread
// that owns the ConfigRepository (the GUI thread); current() may be called from any thread.
class ConfigStore : public QObject {
    Q_OBJECT
public:
    using Listener = std::function<void(const EngineConfigPtr &)>;

    explicit ConfigStore(ConfigRepository &repository, QObject *parent = nullptr);

    // Seeds the demo configuration into an empty database, then loads. False (and *error) when the
    // stored configuration cannot be read.
    bool initialize(QString *error = nullptr);

    EngineConfigPtr current() const;

    // Saves through the repository; on success current() is the new snapshot, configChanged is
    // emitted and every listener called (on this thread) before save() returns.
    ConfigRepository::SaveResult save(const EngineConfig &config, const QString &reason = QString());

    // The stored configuration was read again (POST /admin/reload after another process edited the
    // database): current() becomes it and listeners hear of it as after a save, so the console's
    // pages and the next save start from what runs, not from what ran before.
    void adoptReloaded(const EngineConfigPtr &config) { publish(config); }

    // The engine's report that the provider refused a key (EngineHost hears it from the key ring):
    // stored (ConfigRepository::recordKeyRefused), then the configuration is read again and published,
    // so the console shows the key refused and the next save keeps it so. False when nothing was
    // stored (the key is gone or has a new secret since; a database failure is logged).
    bool recordKeyRefused(int keyId, const QString &maskedPreview, const QString &reason, qint64 atMs);
    // The user's "Re-enable" of a refused key: its refusal is forgotten and the configuration
    // published again, so the engine takes the key back into rotation at once. False with a sentence.
    bool reenableKey(int keyId, QString *error = nullptr);

    // For code that is not a QObject (the engine's control thread wires itself here).
    void addListener(Listener listener);

    ConfigRepository &repository() { return m_repository; }
    bool seededDemo() const { return m_seededDemo; }

signals:
    void configChanged(sb::EngineConfigPtr config);

private:
    void publish(const EngineConfigPtr &config);
    bool reloadAndPublish(QString *error);

    ConfigRepository &m_repository;
    mutable std::mutex m_mutex;
    EngineConfigPtr m_current;
    std::vector<Listener> m_listeners;
    bool m_seededDemo = false;
};

} // namespace sb

Q_DECLARE_METATYPE(sb::EngineConfigPtr)
