// SqliteStatement binds a parameter again only when its value changed (SQLite keeps bindings from
// one run to the next). Checked on a real SQLite file: thousands of rows of random values drawn
// from a few, so that every kind of parameter repeats, changes, and changes kind (ASCII text,
// text with non-ASCII characters, UTF-8 bytes, null and empty bytes, literals, integers, reals),
// each row read back as it was written.
#include "store/SqliteStatement.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <random>
#include <variant>
#include <vector>

using namespace sb;

namespace {

constexpr const char *kLiteralA = "literal a";
constexpr const char *kLiteralB = "literal b";

// One parameter's value, as the caller hands it over.
using Value = std::variant<qint64, double, QString, QByteArray, const char *>;

Value randomValue(std::mt19937 &random)
{
    switch (random() % 13) {
    case 0: return qint64(0);
    case 1: return qint64(7);
    case 2: return 0.5;
    case 3: return 0.0;
    case 4: return QStringLiteral("gpt-4o");
    case 5: return QStringLiteral("gpt-4o-mini"); // same length as none of the others
    case 6: return QStringLiteral("gpt-4ö");      // as long as "gpt-4o", not ASCII
    case 7: return QByteArray("gpt-4o");
    case 8: return QByteArray(); // null: written as ''
    case 9: return QByteArray(""); // empty
    case 10: return QByteArray("gpt-4x"); // as long as "gpt-4o"
    case 11: return kLiteralA;
    default: return kLiteralB;
    }
}

// What the column holds after the value went in.
QVariant stored(const Value &value)
{
    if (const auto *integer = std::get_if<qint64>(&value))
        return *integer;
    if (const auto *real = std::get_if<double>(&value))
        return *real;
    if (const auto *text = std::get_if<QString>(&value))
        return *text;
    if (const auto *bytes = std::get_if<QByteArray>(&value))
        return QString::fromUtf8(*bytes);
    return QString::fromLatin1(std::get<const char *>(value));
}

} // namespace

class tst_SqliteStatement : public QObject {
    Q_OBJECT
private slots:
    void everyRowReadsBackAsItWasBound()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("statement"));
            db.setDatabaseName(dir.filePath(QStringLiteral("t.db")));
            QVERIFY(db.open());
            QSqlQuery create(db);
            QVERIFY(create.exec(QStringLiteral("CREATE TABLE t (id INTEGER PRIMARY KEY, a, b, c)")));

            SqliteStatement insert;
            QString error;
            QVERIFY(insert.prepare(db, "INSERT INTO t (id, a, b, c) VALUES (?, ?, ?, ?)", &error));
            std::mt19937 random(20261205);
            std::vector<std::vector<Value>> rows;
            for (int row = 0; row < 3000; ++row) {
                std::vector<Value> values;
                insert.bind(0, qint64(row));
                for (int column = 1; column <= 3; ++column) {
                    // Mostly what the column had in the row before, as in the history.
                    Value value = row > 0 && random() % 3 != 0 ? rows.back()[std::size_t(column - 1)] : randomValue(random);
                    std::visit([&insert, column](const auto &v) { insert.bind(column, v); }, value);
                    values.push_back(std::move(value));
                }
                QVERIFY2(insert.exec(&error), qPrintable(error));
                rows.push_back(std::move(values));
            }

            QSqlQuery read(db);
            QVERIFY(read.exec(QStringLiteral("SELECT id, a, b, c FROM t ORDER BY id")));
            int row = 0;
            while (read.next()) {
                QCOMPARE(read.value(0).toInt(), row);
                for (int column = 1; column <= 3; ++column) {
                    const QVariant expected = stored(rows[std::size_t(row)][std::size_t(column - 1)]);
                    const QVariant actual = read.value(column);
                    QVERIFY2(actual == expected && !actual.isNull(),
                             qPrintable(QStringLiteral("row %1 column %2: %3, bound %4")
                                            .arg(row)
                                            .arg(column)
                                            .arg(actual.toString(), expected.toString())));
                }
                ++row;
            }
            QCOMPARE(row, 3000);
        }
        QSqlDatabase::removeDatabase(QStringLiteral("statement"));
    }
};

QTEST_GUILESS_MAIN(tst_SqliteStatement)
#include "tst_SqliteStatement.moc"
