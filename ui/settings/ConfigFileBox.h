#pragma once

#include <QGroupBox>
#include <QPointer>

class QCheckBox;
class QLabel;
class QPushButton;

namespace sb {

class ConfigStore;
class ImportPreviewDialog;

// Settings → Configuration file: Export… writes the whole configuration as the JSON format
// (core/model/CONFIG_FORMAT.md), API keys left out unless "Include API keys" is ticked; Import…
// reads one, previews what it changes (ImportPreviewDialog) and saves it through the ConfigStore in
// one transaction, which the engine then follows live.
class ConfigFileBox : public QGroupBox {
    Q_OBJECT
public:
    explicit ConfigFileBox(QWidget *parent = nullptr);

    // Null, or a run on --config: nothing to export from or import into; `reason` says why.
    void setConfigStore(ConfigStore *store, const QString &reason = QString());

    // What the buttons do once their file dialog has a path; tests call them directly.
    bool exportTo(const QString &path);
    // Reads and checks the file and opens the preview (window-modal, not blocking); null when there
    // is no configuration to import into.
    ImportPreviewDialog *previewImport(const QString &path);

    QCheckBox *includeKeysBox() const { return m_includeKeys; }
    QPushButton *exportButton() const { return m_export; }
    QPushButton *importButton() const { return m_import; }
    QString statusText() const;

signals:
    void imported(const QString &path);

private:
    void chooseExportFile();
    void chooseImportFile();
    void setStatus(const QString &text, bool problem);

    QPointer<ConfigStore> m_store;
    QCheckBox *m_includeKeys = nullptr;
    QPushButton *m_export = nullptr;
    QPushButton *m_import = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace sb
