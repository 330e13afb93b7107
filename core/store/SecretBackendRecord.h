#pragma once

#include "store/SecretStore.h"

#include <QString>

#include <optional>

namespace sb {

class Database;

// Which store holds a database's API keys, kept in the database itself (meta `secrets.backend`) so
// that every process opening it — the console, `--headless`, `--export` — looks in the same place
// instead of each picking the store it likes, which is how a database set up in the console ran
// headless with no keys at all.
class SecretBackendRecord {
public:
    // The recorded backend; for a database from before the record, the one its rows show (secrets in
    // the `secrets` table: the file; secret refs but an empty table: the keyring); nullopt for a
    // database that holds no secret yet, whose first store is free to choose.
    static std::optional<SecretBackend> read(const Database &db);
    // Whether the record itself is in the database (read() may have inferred it).
    static bool stored(const Database &db);
    static bool write(const Database &db, SecretBackend backend, QString *error = nullptr);

    static QString name(SecretBackend backend); // "keyring" / "database"
    static std::optional<SecretBackend> parse(const QString &name);
};

} // namespace sb
