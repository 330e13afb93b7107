#include "settings/ConfigFileBox.h"

#include "ConsoleStyle.h"
#include "model/ConfigExportFile.h"
#include "model/ConfigImportPlan.h"
#include "model/ConfigJson.h"
#include "settings/ImportPreviewDialog.h"
#include "store/ConfigStore.h"

#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace sb {

ConfigFileBox::ConfigFileBox(QWidget *parent) : QGroupBox(tr("Configuration file"), parent)
{
    setObjectName(QStringLiteral("configFile"));
    auto *column = new QVBoxLayout(this);
    column->setSpacing(6);
    auto *note = new QLabel(tr("The whole configuration (providers, keys, channels, routes, prices, budgets and these settings) "
                               "as one JSON file. An import shows what it changes before it saves anything."),
                            this);
    note->setWordWrap(true);
    note->setStyleSheet(QStringLiteral("color: palette(placeholder-text);"));
    column->addWidget(note);

    auto *row = new QHBoxLayout;
    m_export = new QPushButton(tr("Export…"), this);
    m_export->setObjectName(QStringLiteral("exportConfig"));
    m_includeKeys = new QCheckBox(tr("Include API keys"), this);
    m_includeKeys->setObjectName(QStringLiteral("includeKeys"));
    m_includeKeys->setToolTip(tr("Off: the file has each key's masked preview only, and the local token is left out; "
                                 "an import on this computer keeps the stored secrets. On: the secrets are in the file "
                                 "(readable by you only), for moving to another computer."));
    m_import = new QPushButton(tr("Import…"), this);
    m_import->setObjectName(QStringLiteral("importConfig"));
    row->addWidget(m_export);
    row->addWidget(m_includeKeys);
    row->addSpacing(24);
    row->addWidget(m_import);
    row->addStretch(1);
    column->addLayout(row);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("configFileStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->hide();
    column->addWidget(m_status);

    connect(m_export, &QPushButton::clicked, this, &ConfigFileBox::chooseExportFile);
    connect(m_import, &QPushButton::clicked, this, &ConfigFileBox::chooseImportFile);
    setConfigStore(nullptr);
}

void ConfigFileBox::setConfigStore(ConfigStore *store, const QString &reason)
{
    m_store = store;
    const bool usable = store && store->current();
    for (QWidget *w : std::initializer_list<QWidget *>{m_export, m_includeKeys, m_import})
        w->setEnabled(usable);
    if (usable)
        m_status->hide();
    else
        setStatus(reason.isEmpty() ? tr("No configuration is open: nothing to export, nowhere to import.") : reason, false);
}

QString ConfigFileBox::statusText() const
{
    return m_status->isHidden() ? QString() : m_status->text();
}

void ConfigFileBox::setStatus(const QString &text, bool problem)
{
    m_status->setText(text);
    m_status->setStyleSheet(problem ? QStringLiteral("color: %1;").arg(stateColor(ChannelState::Open).lighter(115).name())
                                    : QString());
    m_status->setVisible(!text.isEmpty());
}

void ConfigFileBox::chooseExportFile()
{
    const QString suggested = QDir::home().filePath(QStringLiteral("switchboard-config.json"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the configuration"), suggested,
                                                      tr("Switchboard configuration (*.json)"));
    if (!path.isEmpty())
        exportTo(path);
}

void ConfigFileBox::chooseImportFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import a configuration"), QDir::homePath(),
                                                      tr("Switchboard configuration (*.json);;All files (*)"));
    if (!path.isEmpty())
        previewImport(path);
}

bool ConfigFileBox::exportTo(const QString &path)
{
    if (!m_store || !m_store->current())
        return false;
    ConfigExportOptions options;
    options.includeSecrets = m_includeKeys->isChecked();
    const ConfigExport exported = exportConfigJson(*m_store->current(), options);
    QString error;
    if (!writeConfigExport(exported, path, options.includeSecrets, &error)) {
        setStatus(error, true);
        return false;
    }
    QString text = options.includeSecrets ? tr("Exported to %1 with the API keys (readable by you only).").arg(path)
                                          : tr("Exported to %1.").arg(path);
    if (!exported.warnings.isEmpty())
        text += QLatin1Char(' ') + exported.warnings.join(QLatin1Char(' '));
    setStatus(text, false);
    return true;
}

ImportPreviewDialog *ConfigFileBox::previewImport(const QString &path)
{
    if (!m_store || !m_store->current())
        return nullptr;
    ConfigImportPlan plan = planConfigImportFile(*m_store->current(), path);
    const QString name = QFileInfo(path).fileName();
    QPointer<ConfigStore> store = m_store;
    auto *dialog = new ImportPreviewDialog(std::move(plan), name, [store, name](const EngineConfig &config) {
        if (!store)
            return QStringList{QStringLiteral("The configuration was closed.")};
        return store->save(config, QStringLiteral("imported from %1").arg(name)).errors;
    }, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, path] {
        setStatus(tr("Imported %1; it applies at once.").arg(path), false);
        emit imported(path);
    });
    dialog->open();
    return dialog;
}

} // namespace sb
