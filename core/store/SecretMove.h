#pragma once

#include <QString>

namespace sb {

class Database;
class SecretStore;

// Moves every secret a database refers to (its API keys, the local token) from one store to the
// other, as the user asked in the console, all or nothing: each secret is copied and read back
// from the new store first; then one transaction records the new store (SecretBackendRecord) with
// a config_change event; only then are the old copies removed. A failure before the commit removes
// what was copied and leaves everything where it was; one after it leaves a stray copy in the old
// store, never a key that is nowhere.
class SecretMove {
public:
    struct Result {
        bool ok = false;
        int moved = 0;     // secrets copied
        QString error;     // why nothing moved
        QString leftOver;  // moved, but an old copy could not be removed (it says which)
    };

    static Result run(Database &db, SecretStore &from, SecretStore &to, qint64 nowMs);
};

} // namespace sb
