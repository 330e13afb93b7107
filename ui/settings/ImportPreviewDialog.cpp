#include "settings/ImportPreviewDialog.h"

#include "ConsoleStyle.h"
#include "ui_ImportPreviewDialog.h"

#include <QPushButton>
#include <QTreeWidget>

namespace sb {

namespace {

QString errorStyle()
{
    return QStringLiteral("color: %1;").arg(stateColor(ChannelState::Open).lighter(115).name());
}

} // namespace

ImportPreviewDialog::ImportPreviewDialog(ConfigImportPlan plan, const QString &fileName, Apply apply, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::ImportPreviewDialog>())
    , m_plan(std::move(plan))
    , m_apply(std::move(apply))
{
    m_ui->setupUi(this);
    m_import = m_ui->buttonBox->addButton(tr("Import"), QDialogButtonBox::AcceptRole);
    m_import->setObjectName(QStringLiteral("import"));
    m_ui->problems->setStyleSheet(errorStyle());
    m_ui->warnings->setStyleSheet(QStringLiteral("color: palette(placeholder-text);"));
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // Import is not connected to accept(): only a save that went through closes the dialog.
    connect(m_import, &QPushButton::clicked, this, &ImportPreviewDialog::runImport);
    fill(fileName);
}

ImportPreviewDialog::~ImportPreviewDialog() = default;

QTreeWidget *ImportPreviewDialog::changesTree() const
{
    return m_ui->changes;
}

QString ImportPreviewDialog::problemsText() const
{
    return m_ui->problems->text();
}

QString ImportPreviewDialog::keysText() const
{
    return m_ui->keys->text();
}

void ImportPreviewDialog::fill(const QString &fileName)
{
    const ConfigDiff &diff = m_plan.diff;
    QTreeWidget *tree = m_ui->changes;
    const auto section = [&](const QString &title, const ConfigDiff::Section &s) {
        if (s.isEmpty())
            return;
        auto *top = new QTreeWidgetItem(tree, {tr("%1: %2 added, %3 changed, %4 removed")
                                                   .arg(title).arg(s.added.size()).arg(s.changed.size()).arg(s.removed.size())});
        for (const QString &n : s.added)
            new QTreeWidgetItem(top, {QStringLiteral("+ %1").arg(n)});
        for (const QString &n : s.changed)
            new QTreeWidgetItem(top, {QStringLiteral("~ %1").arg(n)});
        for (const QString &n : s.removed)
            new QTreeWidgetItem(top, {QStringLiteral("− %1").arg(n)});
        top->setExpanded(true);
    };
    const auto list = [&](const QString &title, const QStringList &lines) {
        if (lines.isEmpty())
            return;
        auto *top = new QTreeWidgetItem(tree, {tr("%1: %2").arg(title).arg(lines.size())});
        for (const QString &line : lines)
            new QTreeWidgetItem(top, {QStringLiteral("~ %1").arg(line)});
        top->setExpanded(true);
    };

    if (!m_plan.ok()) {
        m_ui->summary->setText(tr("%1 cannot be imported. Nothing has been changed.").arg(fileName));
        m_ui->problems->setText(m_plan.errors.join(QLatin1Char('\n')));
        tree->hide();
        m_import->setEnabled(false);
    } else if (diff.isEmpty()) {
        m_ui->summary->setText(tr("%1 holds the configuration there is now; importing it changes nothing.").arg(fileName));
        tree->hide();
        m_import->setEnabled(false);
    } else {
        m_ui->summary->setText(tr("Importing %1 replaces the whole configuration with the file's, in one step: "
                                  "either all of this happens or none of it.").arg(fileName));
        section(tr("Providers"), diff.providers);
        section(tr("Channels"), diff.channels);
        section(tr("Routes"), diff.routes);
        list(tr("Settings"), diff.settings);
        list(tr("Also"), diff.other);
    }
    const QString keys = diff.keysSentence();
    m_ui->keys->setText(keys);
    m_ui->keys->setVisible(m_plan.ok() && !keys.isEmpty());
    if (diff.keysToEnter > 0)
        m_ui->keys->setStyleSheet(QStringLiteral("color: %1;").arg(stateColor(ChannelState::HalfOpen).darker(130).name()));
    m_ui->warnings->setText(m_plan.warnings.join(QLatin1Char('\n')));
    m_ui->warnings->setVisible(!m_plan.warnings.isEmpty());
    m_ui->problems->setVisible(!m_plan.ok());
    if (tree->isHidden()) // the sentences at the top, not spread over the height the tree leaves
        m_ui->layout->insertStretch(m_ui->layout->indexOf(m_ui->buttonBox), 1);
}

QStringList ImportPreviewDialog::changeLines() const
{
    QStringList out;
    const QTreeWidget *tree = m_ui->changes;
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *top = tree->topLevelItem(i);
        const QString title = top->text(0).section(QLatin1Char(':'), 0, 0);
        for (int j = 0; j < top->childCount(); ++j)
            out << QStringLiteral("%1 / %2").arg(title, top->child(j)->text(0));
    }
    return out;
}

void ImportPreviewDialog::runImport()
{
    if (!m_plan.ok() || !m_apply)
        return;
    const QStringList errors = m_apply(m_plan.config);
    if (!errors.isEmpty()) {
        m_ui->problems->setText(tr("Nothing was imported: %1").arg(errors.join(QLatin1Char(' '))));
        m_ui->problems->show();
        return;
    }
    accept();
}

} // namespace sb
