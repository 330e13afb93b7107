#pragma once

#include <QDir>
#include <QFileInfo>
#include <QString>

namespace sb::test {

// Where tests find committed inputs and leave outputs worth looking at (screenshots, reports).
inline QString sourcePath(const QString &relative) { return QDir(QStringLiteral(SB_SOURCE_DIR)).filePath(relative); }
// The artifact's folder is made on the way (a fresh build has none of them yet).
inline QString artifactPath(const QString &relative)
{
    const QString path = QDir(QStringLiteral(SB_TEST_ARTIFACTS)).filePath(relative);
    QDir().mkpath(QFileInfo(path).absolutePath());
    return path;
}
inline QString binaryPath(const QString &relative) { return QDir(QStringLiteral(SB_BINARY_DIR)).filePath(relative); }

} // namespace sb::test
