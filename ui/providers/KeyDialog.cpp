#include "providers/KeyDialog.h"
#include "ui_KeyDialog.h"

#include "common/SecretMask.h"
#include "providers/InlineMessage.h"

#include <QPushButton>
#include <QRegularExpression>

namespace sb {

KeyDialog::KeyDialog(const ApiKeyConfig &key, bool isNew, QWidget *parent)
    : QDialog(parent), m_ui(std::make_unique<Ui::KeyDialog>()), m_original(key), m_isNew(isNew)
{
    m_ui->setupUi(this);
    setWindowTitle(isNew ? tr("Add API key") : tr("Edit API key %1").arg(maskSecret(key.secret)));
    for (QLabel *label : {m_ui->secretError, m_ui->reasonError})
        InlineMessage::prepare(label);
    m_ui->secretHint->setWordWrap(true);
    m_ui->secretHint->setForegroundRole(QPalette::PlaceholderText);
    // No autocompletion or undo history of a secret; the field is cleared when the dialog goes.
    m_ui->secretEdit->setInputMethodHints(Qt::ImhHiddenText | Qt::ImhSensitiveData | Qt::ImhNoPredictiveText);
    if (isNew) {
        m_ui->secretEdit->setPlaceholderText(tr("paste the key"));
        m_ui->secretHint->setText(tr("After saving, the key is shown only masked (e.g. sk-…a1F3)."));
    } else {
        m_ui->secretEdit->setPlaceholderText(tr("leave empty to keep %1").arg(maskSecret(key.secret)));
        m_ui->secretHint->setText(tr("Current key: %1. Paste a new key to replace it.").arg(maskSecret(key.secret)));
    }
    m_ui->labelEdit->setText(key.label);
    m_ui->enabledCheck->setChecked(isNew || key.enabled);
    m_ui->reasonEdit->setText(key.disabledReason);

    connect(m_ui->secretEdit, &QLineEdit::textChanged, this, &KeyDialog::validate);
    connect(m_ui->reasonEdit, &QLineEdit::textChanged, this, &KeyDialog::validate);
    connect(m_ui->enabledCheck, &QCheckBox::toggled, this, &KeyDialog::validate);
    QPushButton *save = m_ui->buttonBox->button(QDialogButtonBox::Save);
    save->setDefault(true);
    connect(save, &QPushButton::clicked, this, [this] {
        validate();
        if (m_problems.isEmpty())
            accept();
    });
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(this, &QDialog::finished, m_ui->secretEdit, &QLineEdit::clear);
    validate();
}

KeyDialog::~KeyDialog() = default;

ApiKeyConfig KeyDialog::key() const
{
    ApiKeyConfig k = m_original;
    k.label = m_ui->labelEdit->text().trimmed();
    const QString typed = m_ui->secretEdit->text().trimmed();
    if (!typed.isEmpty() && typed != k.secret) {
        k.secret = typed;
        // The provider refused the old secret; saving the new one clears that (ConfigRepository::save).
        k.refusedAtMs = 0;
        k.refusedReason.clear();
    }
    k.enabled = m_ui->enabledCheck->isChecked();
    k.disabledReason = k.enabled ? QString() : m_ui->reasonEdit->text().trimmed();
    return k;
}

void KeyDialog::validate()
{
    m_problems.clear();
    const QString typed = m_ui->secretEdit->text().trimmed();
    QString secretProblem;
    if (typed.isEmpty() && m_isNew)
        secretProblem = m_ui->secretEdit->text().isEmpty() ? QString() : tr("The key is only spaces; paste the key itself.");
    else if (typed.contains(QRegularExpression(QStringLiteral("\\s"))))
        secretProblem = tr("The key contains spaces or line breaks; paste it again without them.");
    else if (!typed.isEmpty() && typed.size() < 8)
        secretProblem = tr("That is too short to be an API key; paste the whole key.");
    InlineMessage::show(m_ui->secretError, secretProblem);
    if (!secretProblem.isEmpty())
        m_problems << secretProblem;
    if (typed.isEmpty() && m_isNew)
        m_problems << tr("Paste the key."); // no red text before the user typed anything, but no Save either

    const bool disabled = !m_ui->enabledCheck->isChecked();
    m_ui->reasonEdit->setEnabled(disabled);
    m_ui->reasonLabel->setEnabled(disabled);
    const QString reasonProblem = disabled && m_ui->reasonEdit->text().trimmed().isEmpty()
                                      ? tr("Say why the key is disabled, so whoever reads the table later knows.")
                                      : QString();
    InlineMessage::show(m_ui->reasonError, reasonProblem);
    if (!reasonProblem.isEmpty())
        m_problems << reasonProblem;
    m_ui->buttonBox->button(QDialogButtonBox::Save)->setEnabled(m_problems.isEmpty());
}

} // namespace sb
