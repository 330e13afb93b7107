// switchboard --export / --import on a real SQLite file, and the promise an import makes: the whole
// file is saved in one transaction, so a save that fails half-way leaves the stored configuration
// exactly as it was (no providers of the new file beside the routes of the old).
#include "engine/ConfigTransfer.h"
#include "model/ConfigJson.h"
#include "store/ConfigRepository.h"
#include "store/DatabaseSecretStore.h"

#include "../store/ConfigSamples.h"
#include "FakeClock.h"

#include <QFile>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;

namespace {

EngineConfigPtr storedIn(const QString &dbPath)
{
    test::FakeClock clock;
    DatabaseSecretStore secrets(dbPath);
    ConfigRepository repository(dbPath, secrets, clock);
    QString error;
    if (!secrets.open(&error) || !repository.open(&error))
        return nullptr;
    return repository.load(&error);
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class tst_ConfigTransfer : public QObject {
    Q_OBJECT
private slots:
    void anImportIsSavedWholeAndReadBackAsTheFileSaid()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("switchboard.db"));
        const QString file = dir.filePath(QStringLiteral("config.json"));
        test::FakeClock clock;
        const EngineConfig wanted = test::everyFieldSetConfig();
        QVERIFY(writeFile(file, exportConfigJson(wanted, ConfigExportOptions{true}).toBytes()));
        {
            ConfigTransfer transfer(clock);
            QString error;
            QVERIFY2(transfer.open(db, SecretStoreFactory::Preference::DatabaseOnly, &error), qPrintable(error));
            const ConfigImportPlan plan = transfer.plan(file);
            QVERIFY2(plan.ok(), qPrintable(plan.errors.join('\n')));
            QCOMPARE(plan.diff.providers.added, (QStringList{QStringLiteral("openai-main"), QStringLiteral("claude")}));
            QStringList errors;
            QVERIFY2(transfer.apply(plan, QStringLiteral("imported from config.json"), &errors), qPrintable(errors.join('\n')));
        }
        const EngineConfigPtr stored = storedIn(db);
        QVERIFY(stored);
        QCOMPARE(test::configDifferences(wanted, *stored), QStringList());
    }

    void aSaveThatFailsHalfWayLeavesTheStoredConfigurationAsItWas()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("switchboard.db"));
        const QString before = dir.filePath(QStringLiteral("before.json"));
        const QString after = dir.filePath(QStringLiteral("after.json"));
        test::FakeClock clock;
        const EngineConfig original = test::everyFieldSetConfig();
        QVERIFY(writeFile(before, exportConfigJson(original, ConfigExportOptions{true}).toBytes()));
        EngineConfig replacement = original;
        replacement.providers[0].name = QStringLiteral("openai-eu");
        replacement.channels[0].name = QStringLiteral("gpt-4o/EU");
        replacement.routes[0].logicalModel = QStringLiteral("gpt-4o-eu");
        QVERIFY(writeFile(after, exportConfigJson(replacement, ConfigExportOptions{true}).toBytes()));

        ConfigTransfer transfer(clock);
        QString error;
        QVERIFY2(transfer.open(db, SecretStoreFactory::Preference::DatabaseOnly, &error), qPrintable(error));
        QStringList errors;
        QVERIFY(transfer.apply(transfer.plan(before), QStringLiteral("first"), &errors));

        // The routes go in after the providers, keys and channels: a failure there is half-way.
        {
            QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("saboteur"));
            raw.setDatabaseName(db);
            QVERIFY(raw.open());
            QSqlQuery q(raw);
            QVERIFY2(q.exec(QStringLiteral("CREATE TRIGGER refuse_routes BEFORE INSERT ON routes "
                                           "BEGIN SELECT RAISE(ABORT, 'the disk is full'); END")),
                     qPrintable(q.lastError().text()));
            raw.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("saboteur"));

        const ConfigImportPlan plan = transfer.plan(after);
        QVERIFY2(plan.ok(), qPrintable(plan.errors.join('\n')));
        QVERIFY(plan.diff.providers.added.contains(QStringLiteral("openai-eu")));
        QVERIFY(!transfer.apply(plan, QStringLiteral("second"), &errors));
        QVERIFY2(errors.join(' ').contains(QStringLiteral("disk is full")), qPrintable(errors.join('\n')));

        const EngineConfigPtr stored = storedIn(db);
        QVERIFY(stored);
        QCOMPARE(test::configDifferences(original, *stored), QStringList());
    }

    void anExportLeavesTheKeysOutUnlessAskedAndThenIsTheOwnersOnly()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("switchboard.db"));
        const QString source = dir.filePath(QStringLiteral("source.json"));
        test::FakeClock clock;
        QVERIFY(writeFile(source, exportConfigJson(test::everyFieldSetConfig(), ConfigExportOptions{true}).toBytes()));
        ConfigTransfer transfer(clock);
        QString error;
        QVERIFY2(transfer.open(db, SecretStoreFactory::Preference::DatabaseOnly, &error), qPrintable(error));
        QStringList errors;
        QVERIFY(transfer.apply(transfer.plan(source), QStringLiteral("set up"), &errors));

        const QString plain = dir.filePath(QStringLiteral("plain.json"));
        QStringList warnings;
        QVERIFY2(transfer.exportTo(plain, false, &warnings, &error), qPrintable(error));
        const QByteArray plainBytes = readFile(plain);
        QVERIFY(plainBytes.contains("openai-main"));
        QVERIFY(!plainBytes.contains("SECRETVALUE"));
        QVERIFY(!plainBytes.contains("local-token-123456789"));
        QVERIFY2(warnings.join(' ').contains(QStringLiteral("left out")), qPrintable(warnings.join('\n')));

        const QString secret = dir.filePath(QStringLiteral("secret.json"));
        QVERIFY2(transfer.exportTo(secret, true, &warnings, &error), qPrintable(error));
        QVERIFY(readFile(secret).contains("sk-proj-SECRETVALUE-abcdefgh1234"));
        QCOMPARE(QFile::permissions(secret) & (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup
                                               | QFileDevice::WriteOther),
                 QFileDevice::Permissions());
    }

    void aNewDatabaseExportsTheDemoAsTheConsoleWouldShowIt()
    {
        QTemporaryDir dir;
        test::FakeClock clock;
        ConfigTransfer transfer(clock);
        QString error;
        QVERIFY2(transfer.open(dir.filePath(QStringLiteral("new.db")), SecretStoreFactory::Preference::DatabaseOnly, &error), qPrintable(error));
        QStringList warnings;
        const QString file = dir.filePath(QStringLiteral("demo.json"));
        QVERIFY2(transfer.exportTo(file, false, &warnings, &error), qPrintable(error));
        const ConfigImport demo = importConfigFile(file);
        QVERIFY(demo.ok());
        QVERIFY(demo.config.demo);
        QVERIFY(demo.config.route(u"demo"));
    }
};

QTEST_GUILESS_MAIN(tst_ConfigTransfer)
#include "tst_ConfigTransfer.moc"
