#include "widgets/SecretStorageBanner.h"

namespace sb {

SecretStorageBanner::SecretStorageBanner(QWidget *parent)
    // The half-open amber as a light wash with a solid edge, and near-black text on it.
    : WarningStrip(QStringLiteral("secretStorageBanner"), QStringLiteral("secretStorageText"),
                   {QColor(0xff, 0xf4, 0xd6), QColor(0xf9, 0xa8, 0x25), QColor(0x3b, 0x2f, 0x00)}, parent)
{
}

void SecretStorageBanner::setWarning(const QString &warning, const QString &databasePath, bool keysInFile)
{
    if (warning.isEmpty()) {
        clearText();
        return;
    }
    QString html = QStringLiteral("<b>%1</b>").arg(warning.toHtmlEscaped());
    if (!keysInFile) {
        html += QStringLiteral("<br>")
            + tr("Start or unlock the keyring (GNOME Keyring or KWallet) on this login and start Switchboard again; "
                 "the keys are read from there only, never silently from elsewhere.")
                  .toHtmlEscaped();
        showHtml(html);
        return;
    }
    if (!databasePath.isEmpty())
        html += QStringLiteral("<br>") + tr("File: %1 (mode 0600).").arg(databasePath.toHtmlEscaped());
    html += QStringLiteral("<br>")
        + tr("To keep API keys in a keyring instead, install and unlock one that speaks the Secret Service "
             "protocol (GNOME Keyring or KWallet), then move them in Settings → API keys. Until then keep this file out of "
             "backups and shared folders: whoever can read it can use the keys.")
              .toHtmlEscaped();
    showHtml(html);
}


} // namespace sb
