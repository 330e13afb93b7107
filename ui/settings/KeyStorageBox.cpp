#include "settings/KeyStorageBox.h"

#include "ConsoleStyle.h"
#include "engine/EngineHost.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

namespace sb {

namespace {
SecretBackend other(SecretBackend backend)
{
    return backend == SecretBackend::Keyring ? SecretBackend::Database : SecretBackend::Keyring;
}
} // namespace

KeyStorageBox::KeyStorageBox(QWidget *parent) : QGroupBox(tr("API keys"), parent)
{
    setObjectName(QStringLiteral("keyStorage"));
    auto *column = new QVBoxLayout(this);
    column->setSpacing(6);
    m_place = new QLabel(this);
    m_place->setObjectName(QStringLiteral("keyStoragePlace"));
    m_place->setWordWrap(true);
    m_place->setTextInteractionFlags(Qt::TextSelectableByMouse);
    column->addWidget(m_place);
    auto *note = new QLabel(tr("The console and switchboard --headless read the keys from the same place, the one this "
                               "database names. Moving them is done here only."),
                            this);
    note->setWordWrap(true);
    note->setStyleSheet(QStringLiteral("color: palette(placeholder-text);"));
    column->addWidget(note);
    auto *row = new QHBoxLayout;
    m_move = new QPushButton(this);
    m_move->setObjectName(QStringLiteral("moveKeys"));
    row->addWidget(m_move);
    row->addStretch(1);
    column->addLayout(row);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("keyStorageStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->hide();
    column->addWidget(m_status);
    connect(m_move, &QPushButton::clicked, this, &KeyStorageBox::confirmAndMove);
    refresh();
}

void KeyStorageBox::setHost(EngineHost *host)
{
    if (m_host)
        disconnect(m_host, nullptr, this, nullptr);
    m_host = host;
    if (host)
        connect(host, &EngineHost::secretStorageChanged, this, &KeyStorageBox::refresh);
    m_status->hide();
    refresh();
}

void KeyStorageBox::refresh()
{
    if (!m_host || m_host->databasePath().isEmpty()) {
        m_place->setText(tr("No database is open."));
        m_move->setText(tr("Move keys…"));
        m_move->setEnabled(false);
        return;
    }
    const SecretBackend backend = m_host->secretBackend();
    if (!m_host->secretsReadable())
        m_place->setText(tr("Kept in the desktop keyring, which cannot be reached from this console: no key can be read, "
                            "so no request goes to a provider that needs one. Unlock or start the keyring and restart Switchboard."));
    else if (backend == SecretBackend::Keyring)
        m_place->setText(tr("Kept in the desktop keyring (Secret Service), encrypted, under \"Switchboard\"."));
    else
        m_place->setText(tr("Kept unencrypted in the database file %1 (readable by your user only).").arg(m_host->databasePath()));
    m_move->setText(backend == SecretBackend::Keyring ? tr("Move keys to the database file…") : tr("Move keys to the keyring…"));
    m_move->setEnabled(m_host->secretsReadable() && !m_host->configFromFile());
}

QString KeyStorageBox::statusText() const
{
    return m_status->isHidden() ? QString() : m_status->text();
}

void KeyStorageBox::setStatus(const QString &text, bool problem)
{
    m_status->setText(text);
    m_status->setStyleSheet(problem ? QStringLiteral("color: %1;").arg(stateColor(ChannelState::Open).lighter(115).name())
                                    : QString());
    m_status->setVisible(!text.isEmpty());
}

void KeyStorageBox::confirmAndMove()
{
    if (!m_host)
        return;
    const bool toFile = other(m_host->secretBackend()) == SecretBackend::Database;
    const QString question = toFile
        ? tr("Move every API key and the local token out of the keyring into the database file %1?\n\n"
             "They will be stored unencrypted there, readable by your user only. Anyone who can read the file "
             "(a backup, a shared folder) can use the keys.").arg(m_host->databasePath())
        : tr("Move every API key and the local token out of the database file into the desktop keyring?\n\n"
             "A Switchboard that runs where this keyring cannot be reached (a service without your login) "
             "will then have no keys until they are moved back.");
    if (QMessageBox::question(this, tr("Move API keys"), question) == QMessageBox::Yes)
        moveKeys();
}

bool KeyStorageBox::moveKeys()
{
    if (!m_host)
        return false;
    const SecretBackend target = other(m_host->secretBackend());
    QString error, note;
    if (!m_host->moveSecretsTo(target, &error, &note)) {
        setStatus(error, true);
        return false;
    }
    setStatus(note.isEmpty() ? (target == SecretBackend::Keyring ? tr("Moved: the keys are in the keyring now.")
                                                                 : tr("Moved: the keys are in the database file now."))
                             : note,
              !note.isEmpty());
    refresh();
    return true;
}

} // namespace sb
