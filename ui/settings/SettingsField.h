#pragma once

#include "model/EngineConfig.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

namespace sb {

// The Settings page's groups, in the order they are shown.
enum class SettingsGroup { Proxy, HealthScore, CircuitBreaker, PoolEjection, HeartbeatProbe, RetryBudget, History, Appearance };

QString groupTitle(SettingsGroup group);

// One numeric engine threshold as the Settings page edits it: shown in a unit people think in
// (seconds, %, KiB) and converted on the way in and out, so EngineConfig keeps its own units.
// The default is what a default-constructed EngineConfig holds — the same values the engine's
// comments explain (ARCHITECTURE.md, "Defaults and why"), so the page can never drift from the code.
struct SettingsField {
    QString key;   // the settings-table name ("health.window_s"), also the widgets' object name
    SettingsGroup group;
    QString label;
    QString unit;  // "s", "%", "calls", … shown beside the editor and in the default
    QString help;  // tooltip: what the threshold does
    int decimals = 0;
    bool plain = false; // no thousands separator (a port number)
    double minimum = 0;
    double maximum = 1e9;
    std::function<double(const EngineConfig &)> get;  // in the shown unit
    std::function<void(EngineConfig &, double)> set;   // from the shown unit
    // Substrings of EngineConfig::validate() sentences about this field; the page shows a matching
    // sentence under this field instead of in a list at the top.
    QStringList concerns;

    double defaultValue() const;
    QString format(double value) const; // "300 s", "20 %"
};

// Every numeric threshold, in page order.
const std::vector<SettingsField> &settingsFields();
const SettingsField *findSettingsField(const QString &key);

// Keys of the fields that are not plain numbers (edited by dedicated widgets on the page).
namespace SettingsKey {
inline constexpr char ListenHost[] = "proxy.listen_host";
inline constexpr char LocalToken[] = "proxy.local_token";
inline constexpr char Tls[] = "proxy.tls"; // proxy.tls_cert_file and proxy.tls_key_file, edited together
inline constexpr char BreakerPreset[] = "breaker.preset";
inline constexpr char HalfOpenMode[] = "breaker.half_open_mode";
inline constexpr char PanicMode[] = "pool.panic_mode";
inline constexpr char ContinueStreams[] = "retry.continue_streams";
inline constexpr char RetentionDays[] = "history.retention_days";
inline constexpr char Theme[] = "appearance.theme";
inline constexpr char MuteNotifications[] = "appearance.mute_notifications";
} // namespace SettingsKey

// Which field keys a validate() sentence concerns (empty: it concerns the configuration as a whole).
QStringList fieldsConcernedBy(const QString &problem);

} // namespace sb
