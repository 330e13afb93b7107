#include "settings/TlsFilesEditor.h"

#include "net/TlsServerContext.h"

#include <QFileDialog>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QToolButton>

namespace sb {

TlsFilesEditor::TlsFilesEditor(QWidget *parent) : QWidget(parent)
{
    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 8);
    grid->setHorizontalSpacing(4);
    grid->setVerticalSpacing(4);
    m_certificate = new QLineEdit(this);
    m_certificate->setObjectName(QStringLiteral("tlsCertFile"));
    m_certificate->setPlaceholderText(tr("certificate chain (PEM), e.g. /etc/switchboard/fullchain.pem"));
    m_key = new QLineEdit(this);
    m_key->setObjectName(QStringLiteral("tlsKeyFile"));
    m_key->setPlaceholderText(tr("its private key (PEM, unencrypted), e.g. /etc/switchboard/privkey.pem"));
    // Wide enough for a path and the fingerprint's line to read whole.
    for (QLineEdit *edit : {m_certificate, m_key})
        edit->setMinimumWidth(420);
    grid->addWidget(new QLabel(tr("Certificate"), this), 0, 0);
    grid->addWidget(m_certificate, 0, 1);
    grid->addWidget(browseButton(m_certificate, tr("Choose the TLS certificate file")), 0, 2);
    grid->addWidget(new QLabel(tr("Key"), this), 1, 0);
    grid->addWidget(m_key, 1, 1);
    grid->addWidget(browseButton(m_key, tr("Choose the TLS key file")), 1, 2);
    m_state = new QLabel(this);
    m_state->setObjectName(QStringLiteral("tlsState"));
    m_state->setTextInteractionFlags(Qt::TextSelectableByMouse); // the fingerprint, for a client's pin
    grid->addWidget(m_state, 2, 1, 1, 2);
    grid->setColumnStretch(1, 1);
    for (QLineEdit *edit : {m_certificate, m_key})
        connect(edit, &QLineEdit::textChanged, this, [this] {
            inspect();
            emit filesEdited();
        });
    inspect();
}

QToolButton *TlsFilesEditor::browseButton(QLineEdit *edit, const QString &title)
{
    auto *button = new QToolButton(this);
    button->setText(tr("Browse…"));
    connect(button, &QToolButton::clicked, this, [this, edit, title] {
        const QString chosen = QFileDialog::getOpenFileName(this, title, edit->text(), tr("PEM files (*.pem *.crt *.key);;All files (*)"));
        if (!chosen.isEmpty())
            edit->setText(chosen);
    });
    return button;
}

QString TlsFilesEditor::certificateFile() const
{
    return m_certificate->text().trimmed();
}

QString TlsFilesEditor::keyFile() const
{
    return m_key->text().trimmed();
}

void TlsFilesEditor::setFiles(const QString &certificateFile, const QString &keyFile)
{
    const QSignalBlocker certificate(m_certificate);
    const QSignalBlocker key(m_key);
    m_certificate->setText(certificateFile);
    m_key->setText(keyFile);
    inspect();
}

QString TlsFilesEditor::description() const
{
    return m_state->text();
}

void TlsFilesEditor::inspect()
{
    describe();
    // Never squeezed: the settings page's form gives a row of several lines a little less than
    // it asks for, and the bottom margin is what that takes instead of the last line.
    m_state->setMinimumHeight(m_state->fontMetrics().lineSpacing() * int(m_state->text().count(QLatin1Char('\n')) + 1));
}

void TlsFilesEditor::describe()
{
    m_problem.clear();
    if (certificateFile().isEmpty() && keyFile().isEmpty()) {
        m_state->setText(tr("Plain HTTP. With both files set the port speaks HTTPS only,\nand clients use https://."));
        return;
    }
    // Why the files cannot serve is said under the row, as every setting's problem is.
    if (certificateFile().isEmpty() || keyFile().isEmpty()) {
        m_problem = tr("HTTPS needs both the certificate file and its key file.");
        m_state->setText(tr("Not served: see below."));
        return;
    }
    // Read as the engine reads them, so what is said here is what it will do.
    QString error;
    const auto context = TlsServerContext::load(certificateFile(), keyFile(), &error);
    if (!context) {
        m_problem = error;
        m_state->setText(tr("Not served: see below."));
        return;
    }
    const TlsCertificateInfo &c = context->certificate();
    const QLocale locale;
    // The fingerprint in two halves of 16 bytes, each short enough for the row.
    const qsizetype half = c.sha256.size() / 2 + 1;
    m_state->setText(tr("HTTPS with %1 (%2)\nvalid until %3\nSHA-256 %4\n               %5")
                         .arg(c.subject, c.names.isEmpty() ? tr("no alternative names") : c.names.join(QStringLiteral(", ")),
                              locale.toString(c.notAfter.toLocalTime(), QLocale::ShortFormat), c.sha256.left(half - 1),
                              c.sha256.mid(half)));
}

} // namespace sb
