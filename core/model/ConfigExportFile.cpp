#include "model/ConfigExportFile.h"

#include <QFileDevice>
#include <QSaveFile>

namespace sb {

bool writeConfigExport(const ConfigExport &exported, const QString &path, bool containsSecrets, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("Cannot write \"%1\": %2.").arg(path, file.errorString());
        return false;
    }
    // Before any byte is written, so that the secrets are never in a file others can read.
    if (containsSecrets && !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)) {
        *error = QStringLiteral("Cannot make \"%1\" private to its owner: %2.").arg(path, file.errorString());
        file.cancelWriting();
        return false;
    }
    const QByteArray bytes = exported.toBytes();
    if (file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QStringLiteral("Cannot write \"%1\": %2.").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace sb
