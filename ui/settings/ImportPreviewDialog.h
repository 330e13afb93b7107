#pragma once

#include "model/ConfigImportPlan.h"

#include <QDialog>

#include <functional>
#include <memory>

class QPushButton;
class QTreeWidget;

namespace Ui {
class ImportPreviewDialog;
}

namespace sb {

// What an import will change, before anything is written: providers, channels and routes added,
// changed and removed, the settings that move, where each key's secret comes from, and the file's
// problems (then Import stays disabled). Import saves the whole file in one transaction through
// `apply`; a save that is refused keeps the dialog open with its sentences, the stored
// configuration untouched.
class ImportPreviewDialog : public QDialog {
    Q_OBJECT
public:
    // Returns the save's errors; empty when it saved.
    using Apply = std::function<QStringList(const EngineConfig &)>;

    ImportPreviewDialog(ConfigImportPlan plan, const QString &fileName, Apply apply, QWidget *parent = nullptr);
    ~ImportPreviewDialog() override;

    QPushButton *importButton() const { return m_import; }
    QTreeWidget *changesTree() const;
    QString problemsText() const;
    QString keysText() const;
    // Every change as the tree shows it, "Routes / + gpt-4o-mini", for tests and the log.
    QStringList changeLines() const;

private:
    void fill(const QString &fileName);
    void runImport();

    std::unique_ptr<Ui::ImportPreviewDialog> m_ui;
    ConfigImportPlan m_plan;
    Apply m_apply;
    QPushButton *m_import = nullptr;
};

} // namespace sb
