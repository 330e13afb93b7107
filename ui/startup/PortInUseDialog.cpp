#include "startup/PortInUseDialog.h"

#include "ConsoleStyle.h"
#include "net/PortProbe.h"
#include "ui_PortInUseDialog.h"

#include <QHostAddress>
#include <QPushButton>

namespace sb {

PortInUseDialog::PortInUseDialog(const QString &host, quint16 busyPort, std::optional<quint16> suggested, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::PortInUseDialog>())
    , m_host(host)
    , m_busyPort(busyPort)
{
    m_ui->setupUi(this);
    m_start = m_ui->buttonBox->addButton(tr("Start on this port"), QDialogButtonBox::AcceptRole);
    m_start->setObjectName(QStringLiteral("start"));
    m_start->setDefault(true);
    m_withoutProxy = m_ui->buttonBox->addButton(tr("Open without the proxy"), QDialogButtonBox::RejectRole);
    m_withoutProxy->setObjectName(QStringLiteral("withoutProxy"));
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);

    m_ui->explanation->setText(
        tr("Switchboard's proxy could not open <b>%1:%2</b>: another program is using that port (another Switchboard on "
           "another database, or a different server). Start the proxy on another port instead, and point your clients at it.")
            .arg(host.toHtmlEscaped())
            .arg(busyPort));
    m_ui->remember->setText(tr("The port is kept for the next starts; Settings → Proxy changes it."));
    m_ui->remember->setStyleSheet(QStringLiteral("color: palette(placeholder-text);"));
    m_ui->portEdit->setValue(suggested.value_or(busyPort));
    connect(m_ui->portEdit, &QSpinBox::valueChanged, this, &PortInUseDialog::checkPort);
    checkPort();
}

PortInUseDialog::~PortInUseDialog() = default;

quint16 PortInUseDialog::chosenPort() const
{
    return static_cast<quint16>(m_ui->portEdit->value());
}

QSpinBox *PortInUseDialog::portEdit() const
{
    return m_ui->portEdit;
}

QString PortInUseDialog::explanationText() const
{
    return m_ui->explanation->text();
}

QString PortInUseDialog::portStateText() const
{
    return m_ui->portState->text();
}

void PortInUseDialog::checkPort()
{
    // Inline, as every other field of the console: the reason under the field, Start disabled.
    const quint16 port = chosenPort();
    const bool free = port != m_busyPort && isPortFree(QHostAddress(m_host), port);
    m_start->setEnabled(free);
    if (free) {
        m_ui->portState->setText(tr("Port %1 is free: clients then use http://%2:%1/v1").arg(port).arg(m_host));
        m_ui->portState->setStyleSheet(QStringLiteral("color: %1;").arg(stateColor(ChannelState::Closed).name()));
    } else {
        m_ui->portState->setText(tr("Port %1 is in use too; choose another.").arg(port));
        m_ui->portState->setStyleSheet(QStringLiteral("color: %1;").arg(stateColor(ChannelState::Open).lighter(115).name()));
    }
}

} // namespace sb
