#include "store/SqliteStatement.h"

#include <QSqlDriver>
#include <QVariant>

#include <sqlite3.h>

#include <cstring>

namespace sb {

SqliteStatement::~SqliteStatement()
{
    sqlite3_finalize(m_statement); // a no-op on nullptr
}

bool SqliteStatement::prepare(const QSqlDatabase &connection, const char *sql, QString *error)
{
    // QSqlDriver::handle() is Qt's documented way to the native connection: a QVariant holding
    // "sqlite3*" for QSQLITE.
    const QVariant handle = connection.driver() ? connection.driver()->handle() : QVariant();
    if (!handle.isValid() || std::strcmp(handle.typeName(), "sqlite3*") != 0) {
        if (error)
            *error = QStringLiteral("The history connection is not an SQLite connection.");
        return false;
    }
    m_db = *static_cast<sqlite3 *const *>(handle.constData());
    sqlite3_finalize(m_statement);
    m_statement = nullptr;
    if (sqlite3_prepare_v3(m_db, sql, -1, SQLITE_PREPARE_PERSISTENT, &m_statement, nullptr) != SQLITE_OK) {
        if (error)
            *error = QStringLiteral("Cannot prepare a history statement: %1.").arg(QString::fromUtf8(sqlite3_errmsg(m_db)));
        return false;
    }
    const int parameters = sqlite3_bind_parameter_count(m_statement);
    m_kept.assign(std::size_t(parameters), QByteArray());
    m_ascii.assign(std::size_t(parameters), std::string());
    return true;
}

void SqliteStatement::bind(int index, qint64 value)
{
    sqlite3_bind_int64(m_statement, index + 1, value);
}

void SqliteStatement::bind(int index, double value)
{
    sqlite3_bind_double(m_statement, index + 1, value);
}

void SqliteStatement::bind(int index, const QString &text)
{
    // Names, ids, outcomes: nearly always ASCII, narrowed into this parameter's own buffer.
    std::string &ascii = m_ascii.at(std::size_t(index));
    ascii.resize(std::size_t(text.size()));
    const QChar *units = text.constData();
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (units[i].unicode() >= 0x80) {
            bind(index, text.toUtf8());
            return;
        }
        ascii[std::size_t(i)] = char(units[i].unicode());
    }
    m_kept[std::size_t(index)] = QByteArray();
    sqlite3_bind_text(m_statement, index + 1, ascii.data(), int(ascii.size()), SQLITE_STATIC);
}

void SqliteStatement::bind(int index, const QByteArray &utf8Text)
{
    m_kept.at(std::size_t(index)) = utf8Text; // shares the bytes: they live until the next bind here
    // Never a null pointer: SQLite would store NULL, and these columns want ''.
    sqlite3_bind_text(m_statement, index + 1, utf8Text.isNull() ? "" : utf8Text.constData(), int(utf8Text.size()),
                      SQLITE_STATIC);
}

void SqliteStatement::bind(int index, const char *latin1)
{
    sqlite3_bind_text(m_statement, index + 1, latin1, -1, SQLITE_STATIC); // string literals only
}

bool SqliteStatement::exec(QString *error)
{
    const int result = sqlite3_step(m_statement);
    sqlite3_reset(m_statement);
    if (result == SQLITE_DONE)
        return true;
    if (error)
        *error = QString::fromUtf8(sqlite3_errmsg(m_db));
    return false;
}

} // namespace sb
