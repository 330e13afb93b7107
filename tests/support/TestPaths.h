#pragma once

#include <QDir>
#include <QString>

namespace sb::test {

// Where tests find committed inputs and leave outputs worth looking at (screenshots, reports).
inline QString sourcePath(const QString &relative) { return QDir(QStringLiteral(SB_SOURCE_DIR)).filePath(relative); }
inline QString artifactPath(const QString &relative) { return QDir(QStringLiteral(SB_TEST_ARTIFACTS)).filePath(relative); }
inline QString binaryPath(const QString &relative) { return QDir(QStringLiteral(SB_BINARY_DIR)).filePath(relative); }

} // namespace sb::test
