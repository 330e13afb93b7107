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
    m_held.assign(std::size_t(parameters), Held());
    m_kept.assign(std::size_t(parameters), QByteArray());
    m_ascii.assign(std::size_t(parameters), std::string());
    return true;
}

void SqliteStatement::bind(int index, qint64 value)
{
    Held &held = m_held.at(std::size_t(index));
    if (held.kind == Held::Kind::Integer && held.integer == value)
        return;
    held.kind = Held::Kind::Integer;
    held.integer = value;
    sqlite3_bind_int64(m_statement, index + 1, value);
}

void SqliteStatement::bind(int index, double value)
{
    Held &held = m_held.at(std::size_t(index));
    if (held.kind == Held::Kind::Real && held.real == value)
        return; // never for a NaN, which is bound again each time
    held.kind = Held::Kind::Real;
    held.real = value;
    sqlite3_bind_double(m_statement, index + 1, value);
}

void SqliteStatement::bind(int index, const QString &text)
{
    Held &held = m_held.at(std::size_t(index));
    std::string &ascii = m_ascii.at(std::size_t(index));
    const QChar *units = text.constData();
    if (held.kind == Held::Kind::AsciiText && ascii.size() == std::size_t(text.size())) {
        qsizetype same = 0;
        while (same < text.size() && units[same].unicode() == char16_t(static_cast<unsigned char>(ascii[std::size_t(same)])))
            ++same;
        if (same == text.size())
            return;
    }
    // Names, ids, outcomes: nearly always ASCII, narrowed into this parameter's own buffer.
    ascii.resize(std::size_t(text.size()));
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (units[i].unicode() >= 0x80) {
            bind(index, text.toUtf8());
            return;
        }
        ascii[std::size_t(i)] = char(units[i].unicode());
    }
    m_kept[std::size_t(index)] = QByteArray();
    held.kind = Held::Kind::AsciiText;
    sqlite3_bind_text(m_statement, index + 1, ascii.data(), int(ascii.size()), SQLITE_STATIC);
}

void SqliteStatement::bind(int index, const QByteArray &utf8Text)
{
    Held &held = m_held.at(std::size_t(index));
    QByteArray &kept = m_kept.at(std::size_t(index));
    if (held.kind == Held::Kind::KeptText && kept == utf8Text) // null and empty both go as ''
        return;
    kept = utf8Text; // shares the bytes: they live until the next bind here
    held.kind = Held::Kind::KeptText;
    // Never a null pointer: SQLite would store NULL, and these columns want ''.
    sqlite3_bind_text(m_statement, index + 1, utf8Text.isNull() ? "" : utf8Text.constData(), int(utf8Text.size()),
                      SQLITE_STATIC);
}

void SqliteStatement::bind(int index, const char *latin1)
{
    Held &held = m_held.at(std::size_t(index));
    if (held.kind == Held::Kind::Literal && held.literal == latin1)
        return;
    held.kind = Held::Kind::Literal;
    held.literal = latin1;
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
