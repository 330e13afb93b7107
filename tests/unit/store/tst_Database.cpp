#include "store/Database.h"

#include <QCryptographicHash>
#include <QFile>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <tuple>

using namespace sb;

namespace {
QByteArray fileHash(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

// The migrations a build of that time knew: a database opened with them is as that build left it.
std::vector<Migration> migrationsUpTo(int version)
{
    std::vector<Migration> known;
    for (const Migration &m : Database::migrations())
        if (m.version <= version)
            known.push_back(m);
    return known;
}

int scalar(const Database &db, const QString &sql)
{
    QSqlQuery q(db.connection());
    if (!q.exec(sql) || !q.next())
        return -1;
    return q.value(0).toInt();
}

mode_t modeOf(const QString &path)
{
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return 0;
    return st.st_mode & 0777;
}
} // namespace

class tst_Database : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        ::umask(022); // the usual umask would give 0644; the database must still end up 0600
    }

    void aFreshFileGetsTheCurrentSchemaInWalModeOwnerOnly()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sub/fresh.db"));
        Database db(path);
        QString error;
        QVERIFY2(db.open(&error), qPrintable(error));
        QCOMPARE(db.schemaVersion(), Database::currentVersion());
        QVERIFY(Database::currentVersion() >= 1);
        QSqlQuery q(db.connection());
        QVERIFY(q.exec(QStringLiteral("PRAGMA journal_mode")) && q.next());
        QCOMPARE(q.value(0).toString(), QStringLiteral("wal"));
        for (const char *table : {"providers", "api_keys", "channels", "routes", "route_channels", "route_fallbacks", "settings",
                                  "prices", "secrets", "requests", "events", "health_samples", "health_minutes", "meta"})
            QVERIFY2(scalar(db, QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = '%1'").arg(QLatin1String(table))) == 1, table);
        QCOMPARE(modeOf(path), mode_t(0600));
        QVERIFY(db.integrityOk());
    }

    void reopeningDoesNotMigrateAgain()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("again.db"));
        {
            Database db(path);
            QVERIFY(db.open());
        }
        Database db(path);
        QVERIFY(db.open());
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM schema_version")), int(Database::migrations().size()));
    }

    void aDatabaseFromANewerBuildIsRefusedAndNotModified()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("newer.db"));
        {
            Database db(path);
            QVERIFY(db.open());
            QVERIFY(db.exec(QStringLiteral("INSERT INTO schema_version VALUES (%1, 0, 'from the future')").arg(Database::currentVersion() + 1)));
            QVERIFY(db.exec(QStringLiteral("PRAGMA journal_mode=DELETE"))); // a single file, so its hash says it all
        }
        const QByteArray before = fileHash(path);
        QVERIFY(!before.isEmpty());
        Database db(path);
        QString error;
        QVERIFY(!db.open(&error));
        QVERIFY2(error.contains(QStringLiteral("newer Switchboard")), qPrintable(error));
        QVERIFY(error.contains(QStringLiteral("left untouched")));
        QVERIFY(!db.isOpen());
        QCOMPARE(fileHash(path), before);
        QVERIFY(!QFile::exists(path + QStringLiteral("-wal"))); // not even switched to WAL
    }

    void aFailedMigrationRollsBackToThePreviousVersion()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rollback.db"));
        {
            Database db(path);
            QVERIFY(db.open());
        }
        std::vector<Migration> broken = Database::migrations();
        const int next = Database::currentVersion() + 1;
        broken.push_back(Migration{next, QStringLiteral("broken step"),
                                   {QStringLiteral("CREATE TABLE half_done (x INTEGER)"), QStringLiteral("INSERT INTO no_such_table VALUES (1)")}});
        {
            Database db(path);
            QString error;
            QVERIFY(!db.open(broken, &error));
            QVERIFY2(error.contains(QStringLiteral("rolled back")), qPrintable(error));
        }
        Database db(path);
        QVERIFY(db.open());
        QCOMPARE(db.schemaVersion(), Database::currentVersion());
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'")), 0);
        QVERIFY(db.integrityOk());

        // The same step, fixed, applies on the next start.
        broken.back().statements = {QStringLiteral("CREATE TABLE half_done (x INTEGER)")};
        db.close();
        QVERIFY(db.open(broken, nullptr));
        QCOMPARE(db.schemaVersion(), next);
    }

    void anOlderDatabaseGainsThePromptCacheColumnsWithDefaults()
    {
        // A database as the build before prompt-cache accounting left it, with a request and a
        // price in it: upgraded, the request read and wrote no cache and the price has no cache
        // prices (-1: unset, billed at the input price).
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v5.db"));
        const std::vector<Migration> upToV5 = migrationsUpTo(5);
        {
            Database db(path);
            QString error;
            QVERIFY2(db.open(upToV5, &error), qPrintable(error));
            QCOMPARE(db.schemaVersion(), 5);
            QVERIFY(db.exec(QStringLiteral("INSERT INTO requests (time_ms, request_id, logical_model, channel_id, channel_name, status,"
                                           " outcome, http_status, ttft_ms, latency_ms, input_tokens, output_tokens, cost_usd, failover,"
                                           " cache_hit, streamed, error, attempts)"
                                           " VALUES (1, 'req-old', 'gpt-4o', 1, 'gpt-4o/A', 'ok', 'success', 200, 10, 20, 100, 50, 0.001,"
                                           " 0, 0, 0, '', '[]')")));
            QVERIFY(db.exec(QStringLiteral("INSERT INTO prices (model, input_usd_per_m, output_usd_per_m) VALUES ('gpt-4o', 2.5, 10)")));
        }
        Database db(path);
        QString error;
        QVERIFY2(db.open(&error), qPrintable(error));
        QCOMPARE(db.schemaVersion(), Database::currentVersion());
        QVERIFY(Database::currentVersion() >= 6);
        QCOMPARE(scalar(db, QStringLiteral("SELECT cache_read_tokens FROM requests WHERE request_id = 'req-old'")), 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT cache_write_tokens FROM requests WHERE request_id = 'req-old'")), 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT input_tokens FROM requests WHERE request_id = 'req-old'")), 100);
        QCOMPARE(scalar(db, QStringLiteral("SELECT cached_input_usd_per_m FROM prices WHERE model = 'gpt-4o'")), -1);
        QCOMPARE(scalar(db, QStringLiteral("SELECT cache_write_usd_per_m FROM prices WHERE model = 'gpt-4o'")), -1);
        QVERIFY(db.integrityOk());
    }

    void anOlderDatabaseGainsTheClientErrorSwitchOnForEveryRoute()
    {
        // Routes stored before the switch existed keep the behaviour a new route gets: a client
        // error is tried once on another provider.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v7.db"));
        const std::vector<Migration> upToV7 = migrationsUpTo(7);
        {
            Database db(path);
            QString error;
            QVERIFY2(db.open(upToV7, &error), qPrintable(error));
            QCOMPARE(db.schemaVersion(), 7);
            QVERIFY(db.exec(QStringLiteral("INSERT INTO routes (id, logical_model, strategy, cache_enabled, position)"
                                           " VALUES (1, 'gpt-4o', 'health', 0, 0)")));
        }
        Database db(path);
        QString error;
        QVERIFY2(db.open(&error), qPrintable(error));
        QVERIFY(Database::currentVersion() >= 8);
        QCOMPARE(scalar(db, QStringLiteral("SELECT retry_client_errors_elsewhere FROM routes WHERE id = 1")), 1);
        QCOMPARE(scalar(db, QStringLiteral("SELECT continue_streams FROM routes WHERE id = 1")), 1);
        QCOMPARE(scalar(db, QStringLiteral("SELECT stream_tool_calls FROM routes WHERE id = 1")), 0); // held whole, as before
        QVERIFY(db.integrityOk());
    }

    void anOlderDatabaseGainsEachRoutesSpendByMinute()
    {
        // The spend budgets read back at start moves from the requests (through their model
        // index) to spend_minutes: the history already written is summed into it, by route and
        // minute, and the index is gone.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v13.db"));
        const std::vector<Migration> upToV13 = migrationsUpTo(13);
        {
            Database db(path);
            QString error;
            QVERIFY2(db.open(upToV13, &error), qPrintable(error));
            QCOMPARE(db.schemaVersion(), 13);
            // time_ms, route, cost: two in one minute of gpt-4o, one in the next, one of mini, one free.
            const QList<std::tuple<qint64, QString, double>> rows = {
                {120'000, QStringLiteral("gpt-4o"), 0.25}, {179'999, QStringLiteral("gpt-4o"), 0.5},
                {180'000, QStringLiteral("gpt-4o"), 1.0}, {121'000, QStringLiteral("mini"), 2.0}, {122'000, QStringLiteral("free"), 0.0}};
            for (const auto &[timeMs, route, cost] : rows)
                QVERIFY(db.exec(QStringLiteral("INSERT INTO requests (time_ms, request_id, logical_model, channel_id, channel_name, status,"
                                               " outcome, http_status, ttft_ms, latency_ms, input_tokens, output_tokens, cost_usd, failover,"
                                               " cache_hit, streamed, error, attempts)"
                                               " VALUES (%1, 'r', '%2', 1, 'c', 'ok', 'success', 200, 10, 20, 100, 50, %3, 0, 0, 0, '', '[]')")
                                    .arg(timeMs).arg(route).arg(cost)));
        }
        Database db(path);
        QString error;
        QVERIFY2(db.open(&error), qPrintable(error));
        QVERIFY(Database::currentVersion() >= 14);
        QSqlQuery q(db.connection());
        QVERIFY(q.exec(QStringLiteral("SELECT logical_model, minute_ms, cost_usd FROM spend_minutes ORDER BY logical_model, minute_ms")));
        QStringList minutes;
        while (q.next())
            minutes << QStringLiteral("%1 %2 %3").arg(q.value(0).toString()).arg(q.value(1).toLongLong()).arg(q.value(2).toDouble());
        QCOMPARE(minutes, QStringList({QStringLiteral("gpt-4o 120000 0.75"), QStringLiteral("gpt-4o 180000 1"),
                                       QStringLiteral("mini 120000 2")}));
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = 'requests_model_time'")), 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = 'requests_time'")), 1);
        QVERIFY(db.integrityOk());
    }

    void anOlderDatabaseGainsTlsTrustThatVerifiesAgainstTheSystemsCas()
    {
        // Providers stored before the setting existed keep what every provider did then: the
        // system's CAs, verified.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v8.db"));
        const std::vector<Migration> upToV8 = migrationsUpTo(8);
        {
            Database db(path);
            QString error;
            QVERIFY2(db.open(upToV8, &error), qPrintable(error));
            QCOMPARE(db.schemaVersion(), 8);
            QVERIFY(db.exec(QStringLiteral("INSERT INTO providers (id, name, dialect, base_url, enabled, connect_timeout_ms,"
                                           " primary_timeout_ms, fallback_timeout_ms, requests_per_minute, tokens_per_minute, burst,"
                                           " account, region, egress_proxy, position) VALUES (1, 'openai', 'openai_compat',"
                                           " 'https://api.openai.com/v1', 1, 5000, 30000, 20000, 0, 0, 0, '', '', '', 0)")));
        }
        Database db(path);
        QString error;
        QVERIFY2(db.open(&error), qPrintable(error));
        QVERIFY(Database::currentVersion() >= 9);
        QCOMPARE(scalar(db, QStringLiteral("SELECT tls_skip_verify FROM providers WHERE id = 1")), 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT length(ca_bundle) FROM providers WHERE id = 1")), 0);
        QVERIFY(db.integrityOk());
    }

    void aFileThatIsNotADatabaseIsRefusedUntouched()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("notes.txt"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray("these are my notes, not a database\n").repeated(200));
        f.close();
        const QByteArray before = fileHash(path);
        Database db(path);
        QString error;
        QVERIFY(!db.open(&error));
        QVERIFY2(error.contains(QStringLiteral("not a Switchboard database")) || error.contains(QStringLiteral("Cannot open")), qPrintable(error));
        QCOMPARE(fileHash(path), before);
    }

    void theDefaultPathIsInTheAppDataDirectory()
    {
        QStandardPaths::setTestModeEnabled(true);
        QString error;
        const QString path = Database::defaultPath(&error);
        QVERIFY2(!path.isEmpty(), qPrintable(error));
        QVERIFY(path.endsWith(QStringLiteral("/switchboard.db")));
        QVERIFY(QFileInfo(path).absoluteDir().exists());
        QCOMPARE(QFileInfo(path).absolutePath(), QStandardPaths::writableLocation(QStandardPaths::AppDataLocation));
    }
};

QTEST_GUILESS_MAIN(tst_Database)
#include "tst_Database.moc"
