#pragma once

#include "widgets/WarningStrip.h"

namespace sb {

// A warning strip across the top of the console when API keys (and the local token) live in the
// database file instead of a keyring: what is the case, where the file is, and
// what to do about it. Hidden when there is nothing to warn about. Amber: the half-open colour.
class SecretStorageBanner : public WarningStrip {
    Q_OBJECT
public:
    explicit SecretStorageBanner(QWidget *parent = nullptr);

    // EngineHost::secretStorageWarning() and EngineHost::databasePath(); an empty warning hides it.
    // keysInFile: the keys are in that file (else in a keyring that cannot be reached), which
    // changes what to do about it.
    void setWarning(const QString &warning, const QString &databasePath = QString(), bool keysInFile = true);
};

} // namespace sb
