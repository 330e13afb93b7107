#pragma once

#include "model/ConfigJson.h"

#include <QString>

namespace sb {

// Writes an export to a file, whole or not at all (a QSaveFile: a crash or a full disk leaves the
// previous file). A file with secrets in it is readable by its owner only (0600), like the database
// file that holds keys when there is no keyring. False with a sentence naming the file.
bool writeConfigExport(const ConfigExport &exported, const QString &path, bool containsSecrets, QString *error);

} // namespace sb
