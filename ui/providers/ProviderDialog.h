#pragma once

#include "control/ConnectionTest.h"
#include "model/ProviderConfig.h"

#include <QDialog>

#include <memory>

namespace Ui {
class ProviderDialog;
}

namespace sb {

class ConfigStore;
class KeyTableModel;

// Add or edit one provider: dialect (which fills in the URL and a name while the user has not typed
// their own), keys, limits, timeouts, failure domain, "Test connection". Problems show inline under
// their field and keep Save disabled; Save goes through ConfigStore::save, so the running engine
// applies it live, and if the store refuses, its sentences show above the buttons.
class ProviderDialog : public QDialog {
    Q_OBJECT
public:
    // providerId 0: a new provider.
    ProviderDialog(ConfigStore &store, int providerId, QWidget *parent = nullptr);
    ~ProviderDialog() override;

    // What the form says now (secrets of new keys included; never shown).
    ProviderConfig provider() const;
    // Every inline problem now; empty means Save is enabled.
    QStringList problems() const { return m_problems; }
    int providerId() const { return m_providerId; }
    KeyTableModel *keyModel() const { return m_keys; }
    ConnectionTest *connectionTest() const { return m_test.get(); }

    // Save's work: false (errors shown inline) when the form is invalid or the store refuses.
    bool save();
    // Probes with the first enabled key / with one key; the result line and the key row say how it went.
    void testConnection();
    void testKey(int row);
    // "Re-enable": a key the provider refused goes back into rotation now (ConfigStore::reenableKey).
    void reenableKey(int row);

signals:
    void saved(int providerId);

private:
    void load(const ProviderConfig &provider);
    void onDialectChanged();
    void validate();
    void openKeyDialog(int row); // -1: a new key
    void startTest(const QString &secret, int keyRow);
    void showTestResult(const ConnectionTest::Result &result);
    QString suggestedName(const QString &dialect) const;

    std::unique_ptr<Ui::ProviderDialog> m_ui;
    ConfigStore &m_store;
    int m_providerId = 0;
    KeyTableModel *m_keys = nullptr;
    std::unique_ptr<ConnectionTest> m_test;
    int m_testKeyRow = -1;
    bool m_nameEdited = false;
    bool m_urlEdited = false;
    QStringList m_problems;
};

} // namespace sb
