#include "attach/AttachDialog.h"
#include "ui_AttachDialog.h"

#include "remote/RemoteAddress.h"
#include "remote/TrustedCertificates.h"
#include "providers/InlineMessage.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QPushButton>
#include <QRegularExpression>
#include <QTimer>
#include <QToolButton>

namespace sb {

AttachDialog::AttachDialog(QWidget *parent) : QDialog(parent), m_ui(std::make_unique<Ui::AttachDialog>())
{
    m_ui->setupUi(this);
    // Never smaller than what it says: the plain-HTTP warning comes and goes with the host typed.
    m_ui->form->setSizeConstraint(QLayout::SetMinimumSize);
    m_ui->intro->setWordWrap(true);
    m_ui->intro->setText(tr("Watch a running Switchboard — a headless one on a server, or another console — through "
                            "its admin API. The pages show that instance until you go back to the embedded engine."));
    for (QLabel *label : {m_ui->hostError, m_ui->tokenError, m_ui->trustState, m_ui->plainWarning, m_ui->connectState})
        InlineMessage::prepare(label);
    // What the trusted file is, on lines of its own and never wrapped: a wrapped label in this
    // form can be given the height of a wider one, cutting a fingerprint's last lines off.
    m_ui->trustInfo->setTextFormat(Qt::PlainText);
    m_ui->trustInfo->setTextInteractionFlags(Qt::TextSelectableByMouse); // the fingerprint, to compare
    m_ui->trustInfo->setVisible(false);
    m_ui->tokenHint->setWordWrap(true);
    m_ui->tokenHint->setForegroundRole(QPalette::PlaceholderText);
    m_ui->tokenHint->setText(tr("The instance's local token (Settings → Proxy there). Leave it empty for an instance "
                                "without one: it then answers only on its own machine."));
    m_ui->tokenEdit->setInputMethodHints(Qt::ImhHiddenText | Qt::ImhSensitiveData | Qt::ImhNoPredictiveText);
    m_ui->hostEdit->setText(QStringLiteral("127.0.0.1"));

    m_connect = m_ui->buttonBox->addButton(tr("Connect"), QDialogButtonBox::AcceptRole);
    m_connect->setObjectName(QStringLiteral("connectButton"));
    m_connect->setDefault(true);
    // Accepting is Connect's business: the box's accepted() would close before the instance answered.
    disconnect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, nullptr);
    connect(m_connect, &QPushButton::clicked, this, &AttachDialog::connectToInstance);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_ui->hostEdit, &QLineEdit::textChanged, this, &AttachDialog::fieldsEdited);
    connect(m_ui->tokenEdit, &QLineEdit::textChanged, this, &AttachDialog::fieldsEdited);
    connect(m_ui->portSpin, &QSpinBox::valueChanged, this, &AttachDialog::fieldsEdited);
    connect(m_ui->tlsBox, &QCheckBox::toggled, this, &AttachDialog::fieldsEdited);
    connect(m_ui->plainConsent, &QCheckBox::toggled, this, &AttachDialog::validate);
    connect(m_ui->trustEdit, &QLineEdit::textChanged, this, &AttachDialog::fieldsEdited);
    connect(m_ui->trustBrowse, &QToolButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getOpenFileName(this, tr("Choose the certificate to trust"), m_ui->trustEdit->text(),
                                                            tr("PEM certificates (*.pem *.crt);;All files (*)"));
        if (!chosen.isEmpty())
            m_ui->trustEdit->setText(chosen);
    });
    connect(this, &QDialog::rejected, this, &AttachDialog::dropGateway);
    connect(this, &QDialog::finished, m_ui->tokenEdit, &QLineEdit::clear);
    validate();
}

AttachDialog::~AttachDialog() = default;

void AttachDialog::setTarget(const RemoteGateway::Target &target)
{
    m_ui->hostEdit->setText(target.host);
    m_ui->portSpin->setValue(target.port);
    m_ui->tokenEdit->setText(target.token);
    m_ui->tlsBox->setChecked(target.tls);
    m_ui->trustEdit->setText(target.trustFile);
    if (target.token.isEmpty())
        m_ui->tokenEdit->setFocus();
}

RemoteGateway::Target AttachDialog::target() const
{
    RemoteGateway::Target t;
    t.host = m_ui->hostEdit->text().trimmed();
    // An IPv6 address pasted with its brackets is still the same host.
    if (t.host.startsWith(u'[') && t.host.endsWith(u']'))
        t.host = t.host.mid(1, t.host.size() - 2);
    t.port = static_cast<quint16>(m_ui->portSpin->value());
    t.token = m_ui->tokenEdit->text().trimmed();
    t.tls = m_ui->tlsBox->isChecked();
    if (t.tls)
        t.trustFile = m_ui->trustEdit->text().trimmed();
    return t;
}

QString AttachDialog::stateText() const
{
    return m_ui->connectState->text();
}

void AttachDialog::validate()
{
    m_problems.clear();
    const QString hostProblem = RemoteAddress::hostProblem(target().host);
    // No red text before the user typed anything, but no Connect either.
    InlineMessage::show(m_ui->hostError, m_ui->hostEdit->text().isEmpty() ? QString() : hostProblem);
    if (!hostProblem.isEmpty())
        m_problems << hostProblem;
    const QString token = m_ui->tokenEdit->text().trimmed();
    const QString tokenProblem = token.contains(QRegularExpression(QStringLiteral("\\s")))
                                     ? tr("The token contains spaces or line breaks; paste it again without them.")
                                     : QString();
    InlineMessage::show(m_ui->tokenError, tokenProblem);
    if (!tokenProblem.isEmpty())
        m_problems << tokenProblem;
    validateTrust();
    // A token sent over plain HTTP to another machine crosses the network readable by anyone on
    // the path: allowed, but only as a choice made here, with the reason in view.
    const RemoteGateway::Target shown = target();
    const bool inClear = hostProblem.isEmpty() && !shown.token.isEmpty() && !shown.tls && !shown.isLoopback();
    m_ui->plainConsent->setVisible(inClear);
    if (inClear) {
        const QString warning = tr("%1 is not this machine: over plain HTTP the token crosses the network in clear, "
                                   "readable by anyone on the path. Serve it over TLS (--tls-cert and --tls-key on that instance) and tick "
                                   "\"Connect over TLS\", or tunnel it (ssh -L) and attach to 127.0.0.1.")
                                    .arg(shown.host);
        InlineMessage::show(m_ui->plainWarning, warning, m_ui->plainConsent->isChecked() ? InlineMessage::Kind::Warning : InlineMessage::Kind::Error);
        if (!m_ui->plainConsent->isChecked())
            m_problems << warning;
    } else {
        InlineMessage::show(m_ui->plainWarning, QString());
        m_ui->plainConsent->setChecked(false);
    }
    m_connect->setEnabled(m_problems.isEmpty() && !m_gateway);
}

void AttachDialog::fieldsEdited()
{
    // The last attempt's sentence was about what the fields said then. Emptied, not hidden: a
    // form row hidden while another one is shown in the same pass left that one no height (Qt 6.4).
    if (!m_gateway)
        m_ui->connectState->clear();
    validate();
}

void AttachDialog::validateTrust()
{
    // Which certificate to trust only means something over TLS; the row waits behind the box.
    const bool tls = m_ui->tlsBox->isChecked();
    for (QWidget *part : std::initializer_list<QWidget *>{m_ui->trustLabel, m_ui->trustEdit, m_ui->trustBrowse})
        part->setVisible(tls);
    const QString path = m_ui->trustEdit->text().trimmed();
    InlineMessage::show(m_ui->trustState, QString());
    InlineMessage::show(m_ui->trustInfo, QString());
    if (!tls || path.isEmpty())
        return;
    // Read as the connection will read it, and shown, so the operator can compare the fingerprint
    // with the instance's own before any token is sent.
    QString problem;
    if (const auto trusted = TrustedCertificates::read(path, &problem)) {
        // The fingerprint in groups of eight bytes, as key fingerprints are read out; whole it is
        // wider than the dialog.
        const QSslCertificate &first = trusted->certificates.first();
        const QStringList bytes = sha256Fingerprint(first).split(QLatin1Char(':'));
        QStringList groups;
        for (qsizetype i = 0; i < bytes.size(); i += 8)
            groups << bytes.mid(i, 8).join(QLatin1Char(':'));
        QString subject = certificateSubject(first);
        if (trusted->certificates.size() > 1)
            subject += tr(" and %n more", nullptr, int(trusted->certificates.size() - 1));
        InlineMessage::show(m_ui->trustInfo,
                            tr("Trusted besides the system's CAs: %1\nSHA-256 fingerprint:\n%2 %3\n%4 %5")
                                .arg(subject, groups.value(0), groups.value(1), groups.value(2), groups.value(3)),
                            InlineMessage::Kind::Info);
        return;
    }
    InlineMessage::show(m_ui->trustState, problem);
    m_problems << problem;
}

void AttachDialog::setEditing(bool editing)
{
    for (QWidget *field : std::initializer_list<QWidget *>{m_ui->hostEdit, m_ui->portSpin, m_ui->tokenEdit, m_ui->tlsBox,
                                                           m_ui->trustEdit, m_ui->trustBrowse, m_ui->plainConsent})
        field->setEnabled(editing);
}

void AttachDialog::connectToInstance()
{
    validate();
    if (!m_problems.isEmpty() || m_gateway)
        return;
    m_gateway = new RemoteGateway(SystemClock::instance(), target(), this);
    connect(m_gateway, &RemoteGateway::stateChanged, this, &AttachDialog::onStateChanged);
    setEditing(false);
    m_connect->setEnabled(false);
    m_gateway->start();
}

void AttachDialog::onStateChanged(RemoteGateway::State state, const QString &message)
{
    switch (state) {
    case RemoteGateway::State::Connecting:
        InlineMessage::show(m_ui->connectState, message, InlineMessage::Kind::Info);
        return;
    case RemoteGateway::State::Connected:
        InlineMessage::show(m_ui->connectState, tr("Connected. %1").arg(message), InlineMessage::Kind::Success);
        QTimer::singleShot(kConnectedPauseMs, this, [this] {
            if (m_gateway && m_gateway->state() == RemoteGateway::State::Connected)
                accept();
        });
        return;
    case RemoteGateway::State::Unreachable:
    case RemoteGateway::State::Refused:
        // The first answer is a failure: say so and let the operator correct the fields. Nothing
        // keeps polling behind a dialog that is waiting for new input.
        InlineMessage::show(m_ui->connectState, message, InlineMessage::Kind::Error);
        dropGateway();
        setEditing(true);
        validate();
        return;
    case RemoteGateway::State::Disconnected:
        return;
    }
}

void AttachDialog::dropGateway()
{
    if (!m_gateway)
        return;
    m_gateway->disconnect(this);
    m_gateway->stop();
    m_gateway->deleteLater();
    m_gateway = nullptr;
}

RemoteGateway *AttachDialog::takeGateway()
{
    RemoteGateway *gateway = m_gateway;
    if (gateway) {
        gateway->disconnect(this);
        // Stopped, so the new owner's start() begins a whole watch (recent events included) with
        // its own signals connected from the first poll.
        gateway->stop();
        gateway->setParent(nullptr);
    }
    m_gateway = nullptr;
    return gateway;
}

} // namespace sb
