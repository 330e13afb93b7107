#pragma once

#include "model/EngineConfig.h"
#include "settings/SettingsField.h"

#include <QHash>
#include <QPointer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QScrollArea;
class QSpinBox;

namespace sb {

class ConfigFileBox;
class KeyStorageBox;
class ConfigStore;
class EngineHost;
class HistoryWriter;
class SettingRow;
class ThemeManager;
class TlsFilesEditor;
class TokenEditor;
class TrayNotifier;
class UnavailableNotice;

// Settings: listen address and port, local token, every engine threshold in
// groups with its unit and default and a reset, history retention, theme and tray mute.
// Engine settings are edited as a draft and written by Save through the ConfigStore (which the
// engine follows live) — never piecemeal; Revert drops the draft. Validation is inline: the
// sentences of EngineConfig::validate() and of the listen-address rule are shown under the field
// they concern, and Save stays disabled while there are any. Appearance (theme, mute) is a personal
// preference kept in QSettings and applies at once, outside the draft.
class SettingsPage : public QWidget {
    Q_OBJECT
public:
    explicit SettingsPage(QWidget *parent = nullptr);

    // The usual wiring: the host's ConfigStore and HistoryWriter.
    void setHost(EngineHost *host);
    // Loads the store's current configuration and follows later saves made elsewhere (dialogs).
    void setConfigStore(ConfigStore *store);
    // Retention changes reach the running writer at once (it prunes on its next maintenance pass).
    void setHistoryWriter(HistoryWriter *writer);
    void setThemeManager(ThemeManager *themes);
    void setTrayNotifier(TrayNotifier *tray);
    // Whether the running engine moves the proxy to a saved listen address without a restart (it
    // does: Gateway::applyConfig rebinds); false when --listen pins the address for this run. The
    // page says which when such a change is saved.
    void setListenAppliesLive(bool live);
    // While the console shows an attached instance (its address here; empty for the embedded
    // engine): the engine's groups and Save give way to a notice that they belong to that instance,
    // and only the console's own preferences (Appearance) stay. A draft is kept for the return.
    void setAttachedInstance(const QString &address);
    bool showsEngineSettings() const { return m_attachedTo.isEmpty(); }
    UnavailableNotice *engineNotice() const { return m_engineNotice; }

    bool isDirty() const;
    // Every problem of the draft (placed under fields or not); empty when Save may run.
    QStringList problems() const;
    // The draft as Save would store it (on top of the store's current configuration).
    EngineConfig draft() const;

    // For tests and for MainWindow's keyboard shortcuts.
    SettingRow *row(const QString &key) const { return m_rows.value(key); }
    QDoubleSpinBox *numberEditor(const QString &key) const { return m_numbers.value(key); }
    QLineEdit *listenHostEdit() const { return m_listenHost; }
    TokenEditor *tokenEditor() const { return m_token; }
    TlsFilesEditor *tlsEditor() const { return m_tls; }
    QComboBox *presetBox() const { return m_preset; }
    QComboBox *halfOpenModeBox() const { return m_halfOpenMode; }
    QCheckBox *panicModeBox() const { return m_panicMode; }
    QCheckBox *continueStreamsBox() const { return m_continueStreams; }
    QSpinBox *retentionEditor() const { return m_retention; }
    QComboBox *themeBox() const { return m_theme; }
    QCheckBox *muteBox() const { return m_mute; }
    ConfigFileBox *configFileBox() const { return m_fileBox; }
    KeyStorageBox *keyStorageBox() const { return m_keyStorage; }
    QPushButton *saveButton() const { return m_save; }
    QPushButton *revertButton() const { return m_revert; }
    QPushButton *groupResetButton(SettingsGroup group) const { return m_groupResets.value(static_cast<int>(group)); }
    QString statusText() const;
    QString generalProblemsText() const;

public slots:
    bool save();
    void revert();
    void resetField(const QString &key);
    void resetGroup(sb::SettingsGroup group);

signals:
    void saved();
    void detachRequested(); // the notice's "Back to the embedded engine"

protected:
    // A wheel over an unfocused spin box scrolls the page instead of changing a threshold.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *buildGroup(SettingsGroup group);
    void addRow(QFormLayout *form, SettingsGroup group, const QString &key, const QString &label, QWidget *editor,
                const QString &unit, const QString &defaultText, const QString &help);
    void buildNumber(QFormLayout *form, const SettingsField &field);
    void load(const EngineConfigPtr &config, int retentionDays);
    void onConfigChanged(const EngineConfigPtr &config);
    void onEdited();
    void onPresetChosen(int index);
    void syncPresetBox();
    QString matchingPreset() const;
    void revalidate();
    void placeProblems(const QStringList &problems);
    QStringList changedKeys() const;
    void applyDraftTo(EngineConfig *config) const;
    void updateResetButtons();

    QPointer<ConfigStore> m_store;
    HistoryWriter *m_history = nullptr; // not a QObject: the host keeps it alive as long as the window
    QPointer<ThemeManager> m_themes;
    QPointer<TrayNotifier> m_tray;
    EngineConfigPtr m_base; // what the fields were loaded from
    int m_retentionBase = 30;
    bool m_loading = false;
    bool m_saving = false;
    bool m_listenAppliesLive = true;
    QStringList m_problems;

    QHash<QString, SettingRow *> m_rows;
    QHash<QString, QDoubleSpinBox *> m_numbers;
    QHash<int, QStringList> m_groupKeys;
    QHash<int, QPushButton *> m_groupResets;
    QList<QWidget *> m_engineGroups; // hidden while attached
    QList<QLabel *> m_rowLabels;
    UnavailableNotice *m_engineNotice = nullptr;
    ConfigFileBox *m_fileBox = nullptr;
    KeyStorageBox *m_keyStorage = nullptr;
    QString m_attachedTo;
    QLineEdit *m_listenHost = nullptr;
    TokenEditor *m_token = nullptr;
    TlsFilesEditor *m_tls = nullptr;
    QComboBox *m_preset = nullptr;
    QComboBox *m_halfOpenMode = nullptr;
    QCheckBox *m_panicMode = nullptr;
    QCheckBox *m_continueStreams = nullptr;
    QSpinBox *m_retention = nullptr;
    QComboBox *m_theme = nullptr;
    QCheckBox *m_mute = nullptr;
    QPushButton *m_save = nullptr;
    QPushButton *m_revert = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_generalProblems = nullptr;
    QLabel *m_proxyNote = nullptr;
    QScrollArea *m_scroll = nullptr;
};

} // namespace sb
