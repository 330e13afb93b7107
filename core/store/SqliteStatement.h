#pragma once

#include <QByteArray>
#include <QSqlDatabase>
#include <QString>

#include <cstdint>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace sb {

// A statement prepared with SQLite's own API on a Qt SQL (QSQLITE) connection, for the history
// writer's inserts: QSqlQuery::bindValue wraps every value in a QVariant and hands every string to
// SQLite as UTF-16, and at thousands of rows a second that cost more than the inserts themselves.
// Strings are bound as UTF-8; a null QString binds as '' (the history's text columns are NOT NULL).
// SQLite reads bound text in place (SQLITE_STATIC) rather than copying it: the statement keeps
// each value's bytes until the next row, in buffers that ASCII strings reuse without allocating.
// A value equal to the one a parameter holds is not bound again: SQLite keeps a statement's
// bindings from one run to the next, and most of a history row (route, channel, status, zero
// counts) repeats the row before it.
// Indexes start at 0, as QSqlQuery's do. Lives on the connection's thread; not copyable.
class SqliteStatement {
public:
    SqliteStatement() = default;
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement &) = delete;
    SqliteStatement &operator=(const SqliteStatement &) = delete;

    // False (and *error) when the connection is not QSQLITE or the SQL does not compile.
    bool prepare(const QSqlDatabase &connection, const char *sql, QString *error);

    void bind(int index, qint64 value);
    void bind(int index, int value) { bind(index, qint64(value)); }
    void bind(int index, bool value) { bind(index, qint64(value ? 1 : 0)); }
    void bind(int index, double value);
    void bind(int index, const QString &text);
    void bind(int index, const QByteArray &utf8Text); // text, not a blob
    void bind(int index, const char *latin1);

    // Runs it with the values bound and resets it for the next row. False (and *error) on failure.
    bool exec(QString *error);

private:
    // What a parameter holds, to tell a value it already holds.
    struct Held {
        enum class Kind : std::uint8_t { Nothing, Integer, Real, AsciiText, KeptText, Literal };
        Kind kind = Kind::Nothing;
        qint64 integer = 0;
        double real = 0;
        const char *literal = nullptr;
    };

    sqlite3 *m_db = nullptr;
    sqlite3_stmt *m_statement = nullptr;
    std::vector<Held> m_held;
    // Per parameter: the bytes SQLite was given, alive until the parameter is bound again.
    std::vector<QByteArray> m_kept;
    std::vector<std::string> m_ascii; // QStrings that were ASCII, narrowed in reused capacity
};

} // namespace sb
