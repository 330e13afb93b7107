#include "widgets/SecretStorageBanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>

namespace sb {

SecretStorageBanner::SecretStorageBanner(QWidget *parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("secretStorageBanner"));
    // The half-open amber, as a light wash with a solid edge, and near-black text on it.
    setStyleSheet(QStringLiteral("QFrame#secretStorageBanner { background: #fff4d6; border: 1px solid #f9a825;"
                                 " border-left: 5px solid #f9a825; }"
                                 "QFrame#secretStorageBanner QLabel { color: #3b2f00; background: transparent; border: none; }"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 6);
    layout->setSpacing(10);
    auto *icon = new QLabel(this);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(22, 22));
    icon->setAlignment(Qt::AlignTop);
    layout->addWidget(icon);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("secretStorageText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_text, 1);
    hide();
}

void SecretStorageBanner::setWarning(const QString &warning, const QString &databasePath, bool keysInFile)
{
    if (warning.isEmpty()) {
        m_text->clear();
        hide();
        return;
    }
    QString html = QStringLiteral("<b>%1</b>").arg(warning.toHtmlEscaped());
    if (!keysInFile) {
        html += QStringLiteral("<br>")
            + tr("Start or unlock the keyring (GNOME Keyring or KWallet) on this login and start Switchboard again; "
                 "the keys are read from there only, never silently from elsewhere.")
                  .toHtmlEscaped();
        m_text->setText(html);
        show();
        return;
    }
    if (!databasePath.isEmpty())
        html += QStringLiteral("<br>") + tr("File: %1 (mode 0600).").arg(databasePath.toHtmlEscaped());
    html += QStringLiteral("<br>")
        + tr("To keep API keys in a keyring instead, install and unlock one that speaks the Secret Service "
             "protocol (GNOME Keyring or KWallet), then move them in Settings → API keys. Until then keep this file out of "
             "backups and shared folders: whoever can read it can use the keys.")
              .toHtmlEscaped();
    m_text->setText(html);
    show();
}

QString SecretStorageBanner::text() const
{
    return m_text->text();
}

} // namespace sb
