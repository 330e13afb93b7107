#pragma once

#include <QSqlDatabase>
#include <QString>
#include <QVariant>
#include <QStringList>

#include <vector>

namespace sb {

// One schema step. Applied in its own transaction together with its schema_version row, so a crash
// leaves the database at the previous version or at this one, never in between.
struct Migration {
    int version = 0;
    QString description;
    QStringList statements;
};

// One kind of database file: the steps that build its schema, and the page size a new file is
// made with (0: SQLite's default of 4 KiB; an existing file keeps the size it was made with).
struct DatabaseLayout {
    std::vector<Migration> migrations;
    int pageSize = 0;
};

// One SQLite connection to the Switchboard database. Qt SQL connections belong to the thread that
// opened them, so every component (config, each reader, the history writer's thread) opens its
// own Database; SQLite in WAL mode lets the readers run while the one writer writes.
class Database {
public:
    // The migrations this build knows; the last one's version is the schema version of this build.
    static const std::vector<Migration> &migrations();
    static int currentVersion();

    // QStandardPaths::AppDataLocation/switchboard.db, creating the directory. Empty (with *error)
    // when the directory cannot be created.
    static QString defaultPath(QString *error = nullptr);

    // Makes the database file and its -wal/-shm siblings readable by the owner only (0600): they
    // may hold API keys when no keyring is available.
    static bool restrictPermissions(const QString &path, QString *error = nullptr);

    // purpose names the connection in diagnostics ("config", "history-writer", "reader").
    explicit Database(QString path, QString purpose = QStringLiteral("main"));
    ~Database();
    Database(const Database &) = delete;
    Database &operator=(const Database &) = delete;

    // Opens (creating the file at mode 0600 when missing), then: a database written by a newer build
    // is refused with a sentence saying so and is not modified in any way; an older one is migrated.
    bool open(QString *error = nullptr);
    // The same with another list of migrations (tests use this to check failure and rollback).
    bool open(const std::vector<Migration> &migrations, QString *error);
    // A database file of another kind (ResponseStore's own file).
    bool open(const DatabaseLayout &layout, QString *error);
    void close();

    bool isOpen() const;
    QSqlDatabase connection() const;
    const QString &path() const { return m_path; }
    int schemaVersion() const; // 0 for a fresh file

    // PRAGMA integrity_check; true when SQLite answers "ok".
    bool integrityOk(QString *details = nullptr) const;

    // A QString as a bind value that is never SQL NULL: Qt binds a null QString as NULL, and the
    // text columns are NOT NULL so a missing value can never be confused with an empty one.
    static QVariant text(const QString &value);

    // Runs one statement; on failure returns false and a sentence naming the statement.
    bool exec(const QString &sql, QString *error = nullptr) const;

private:
    bool migrate(const std::vector<Migration> &migrations, QString *error);

    QString m_path;
    QString m_connectionName;
};

} // namespace sb
