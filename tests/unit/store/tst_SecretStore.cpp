#include "common/Clock.h"
#include "store/ConfigRepository.h"
#include "store/Database.h"
#include "store/DatabaseSecretStore.h"
#include "store/KeychainSecretStore.h"
#include "store/SecretBackendRecord.h"
#include "store/SecretStoreFactory.h"
#include "store/UnreadableSecretStore.h"

#include <QFile>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace sb;

namespace {
mode_t modeOf(const QString &path)
{
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return 0;
    return st.st_mode & 0777;
}
} // namespace

class tst_SecretStore : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { ::umask(022); }

    void theDatabaseStoreKeepsReplacesAndRemovesSecrets()
    {
        QTemporaryDir dir;
        DatabaseSecretStore store(dir.filePath(QStringLiteral("s.db")));
        QString error;
        QVERIFY2(store.open(&error), qPrintable(error));
        QCOMPARE(store.backendName(), QStringLiteral("database"));
        QVERIFY(!store.load(QStringLiteral("api-key/1"), &error).has_value());
        QVERIFY(error.isEmpty()); // missing is not an error
        QVERIFY(store.store(QStringLiteral("api-key/1"), QStringLiteral("sk-first"), &error));
        QCOMPARE(store.load(QStringLiteral("api-key/1")).value_or(QString()), QStringLiteral("sk-first"));
        QVERIFY(store.store(QStringLiteral("api-key/1"), QStringLiteral("sk-second"), &error));
        QCOMPARE(store.load(QStringLiteral("api-key/1")).value_or(QString()), QStringLiteral("sk-second"));
        QVERIFY(store.remove(QStringLiteral("api-key/1"), &error));
        QVERIFY(!store.load(QStringLiteral("api-key/1")).has_value());
        QVERIFY(store.remove(QStringLiteral("api-key/1"), &error)); // removing twice is fine
    }

    void theDatabaseFileAndItsWalAreOwnerOnly()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("perm.db"));
        // A file that already existed with loose permissions gets tightened too.
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
        QCOMPARE(modeOf(path), mode_t(0644));
        DatabaseSecretStore store(path);
        QVERIFY(store.open());
        QVERIFY(store.store(QStringLiteral("api-key/2"), QStringLiteral("sk-secret-value")));
        QCOMPARE(modeOf(path), mode_t(0600));
        QVERIFY(QFile::exists(path + QStringLiteral("-wal")));
        QCOMPARE(modeOf(path + QStringLiteral("-wal")), mode_t(0600));
        QCOMPARE(modeOf(path + QStringLiteral("-shm")), mode_t(0600));
    }

    void theFactoryFallsBackToTheDatabaseWithAVisibleWarning()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("f.db"));
        SecretStoreChoice forced = SecretStoreFactory::create(path, SecretStoreFactory::Preference::DatabaseOnly);
        QVERIFY(forced.store);
        QCOMPARE(forced.backend, SecretBackend::Database);
        QCOMPARE(forced.store->backendName(), QStringLiteral("database"));
        QVERIFY(forced.warning.contains(QStringLiteral("unencrypted")));

        // Whatever this machine has, the choice and the warning agree (on a new database: the one
        // above recorded the file, and keeps it).
        SecretStoreChoice automatic = SecretStoreFactory::create(dir.filePath(QStringLiteral("auto.db")), SecretStoreFactory::Preference::Auto,
                                                                 std::chrono::milliseconds(1500));
        QVERIFY(automatic.store);
        if (automatic.backend == SecretBackend::Keyring) {
            QVERIFY(automatic.warning.isEmpty());
            QCOMPARE(automatic.store->backendName(), QStringLiteral("keyring"));
        } else {
            QVERIFY(automatic.warning.contains(QStringLiteral("No keyring is available")));
            QCOMPARE(automatic.store->backendName(), QStringLiteral("database"));
        }
    }

    void aDatabaseKeepsTheStoreItRecorded()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("r.db"));
        {
            SecretStoreChoice first = SecretStoreFactory::create(path, SecretStoreFactory::Preference::FileForNewDatabase);
            QVERIFY2(first.store, qPrintable(first.error));
            QCOMPARE(first.backend, SecretBackend::Database);
        }
        Database db(path, QStringLiteral("check"));
        QVERIFY(db.open());
        QCOMPARE(SecretBackendRecord::read(db), std::optional(SecretBackend::Database));
        // Any later process follows the record, whatever it would pick for a new database.
        for (auto preference : {SecretStoreFactory::Preference::Auto, SecretStoreFactory::Preference::DatabaseOnly}) {
            SecretStoreChoice again = SecretStoreFactory::create(path, preference, std::chrono::milliseconds(1500));
            QVERIFY2(again.store, qPrintable(again.error));
            QCOMPARE(again.backend, SecretBackend::Database);
            QVERIFY(again.store->readable());
        }
    }

    void keysRecordedInAKeyringThatDoesNotAnswerAreUnreadableNeverEmpty()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("k.db"));
        {
            Database db(path, QStringLiteral("seed"));
            QVERIFY(db.open());
            QVERIFY(SecretBackendRecord::write(db, SecretBackend::Keyring));
        }
        // DatabaseOnly asks no keyring, so the keyring is out of reach here on any machine.
        SecretStoreChoice choice = SecretStoreFactory::create(path, SecretStoreFactory::Preference::DatabaseOnly);
        QVERIFY2(choice.store, qPrintable(choice.error));
        QCOMPARE(choice.backend, SecretBackend::Keyring);
        QVERIFY(!choice.store->readable());
        QVERIFY2(choice.warning.contains(QStringLiteral("cannot be reached")), qPrintable(choice.warning));
        QString error;
        QVERIFY(!choice.store->load(QStringLiteral("api-key/1/r1"), &error).has_value());
        QVERIFY2(error.contains(QStringLiteral("keyring, which cannot be reached")), qPrintable(error));
        error.clear();
        QVERIFY(!choice.store->store(QStringLiteral("api-key/2/r1"), QStringLiteral("sk-new"), &error));
        QVERIFY(!error.isEmpty()); // a new key is not scattered into the file meanwhile
        Database db(path, QStringLiteral("check"));
        QVERIFY(db.open());
        QCOMPARE(SecretBackendRecord::read(db), std::optional(SecretBackend::Keyring)); // the record stays
    }

    void anOlderDatabaseIsReadForWhereItsKeysAre()
    {
        QTemporaryDir dir;
        const QString inFile = dir.filePath(QStringLiteral("file.db"));
        {
            DatabaseSecretStore store(inFile);
            QVERIFY(store.open());
            QVERIFY(store.store(QStringLiteral("api-key/1/r1"), QStringLiteral("sk-in-the-file")));
        }
        const QString inKeyring = dir.filePath(QStringLiteral("keyring.db"));
        {
            Database db(inKeyring, QStringLiteral("seed"));
            QVERIFY(db.open());
            // Saved by a build that had no record: the local token's ref, and no secret in the file.
            QVERIFY(db.exec(QStringLiteral("INSERT OR REPLACE INTO meta (key, value) VALUES ('proxy.local_token_ref', 'proxy/local-token/r1')")));
        }
        const QString empty = dir.filePath(QStringLiteral("empty.db"));
        for (const auto &[path, expected] : {std::pair{inFile, std::optional(SecretBackend::Database)},
                                             std::pair{inKeyring, std::optional(SecretBackend::Keyring)},
                                             std::pair{empty, std::optional<SecretBackend>()}}) {
            Database db(path, QStringLiteral("check"));
            QVERIFY(db.open());
            QCOMPARE(SecretBackendRecord::read(db), expected);
        }
    }

    void aKeyThatCannotBeReadIsNamedAndSurvivesASave()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("c.db"));
        SystemClock &clock = SystemClock::instance();
        {
            DatabaseSecretStore file(path);
            QVERIFY(file.open());
            ConfigRepository repository(path, file, clock);
            QVERIFY(repository.open());
            EngineConfig config;
            ProviderConfig p;
            p.id = 1;
            p.name = QStringLiteral("up");
            p.baseUrl = QStringLiteral("http://127.0.0.1:9/v1");
            p.keys = {ApiKeyConfig{1, QStringLiteral("team"), QStringLiteral("sk-team-secret-0001"), true, {}}};
            config.providers.push_back(p);
            config.proxy.localToken = QStringLiteral("local-token-0001");
            const ConfigRepository::SaveResult saved = repository.save(config);
            QVERIFY2(saved.ok(), qPrintable(saved.errors.join(' ')));
        }
        UnreadableSecretStore store(QStringLiteral("no Secret Service on this bus"));
        ConfigRepository repository(path, store, clock);
        QVERIFY(repository.open());
        EngineConfigPtr loaded = repository.load();
        QVERIFY(loaded);
        const ApiKeyConfig &key = loaded->providers.front().keys.front();
        QVERIFY(key.secret.isEmpty());
        QVERIFY(key.secretUnreadable());
        QVERIFY2(key.unreadableReason.contains(QStringLiteral("no Secret Service on this bus")), qPrintable(key.unreadableReason));
        QVERIFY(loaded->proxy.localToken.isEmpty());
        QVERIFY(!loaded->proxy.localTokenUnreadable.isEmpty());
        const QString keyRef = repository.secretRefOf(1);

        // An unrelated edit saved meanwhile keeps the key and the token where they are.
        EngineConfig edited = *loaded;
        edited.providers.front().requestsPerMinute = 120;
        const ConfigRepository::SaveResult saved = repository.save(edited);
        QVERIFY2(saved.ok(), qPrintable(saved.errors.join(' ')));
        QCOMPARE(repository.secretRefOf(1), keyRef);

        DatabaseSecretStore file(path);
        QVERIFY(file.open());
        ConfigRepository readable(path, file, clock);
        QVERIFY(readable.open());
        EngineConfigPtr back = readable.load();
        QCOMPARE(back->providers.front().keys.front().secret, QStringLiteral("sk-team-secret-0001"));
        QCOMPARE(back->proxy.localToken, QStringLiteral("local-token-0001"));
        QCOMPARE(back->providers.front().requestsPerMinute, 120);
    }

    void keyringOnlyFailsWithASentenceWhenThereIsNoKeyring()
    {
        QString why;
        if (KeychainSecretStore::probe(std::chrono::milliseconds(1500), &why))
            QSKIP("a keyring answers on this machine");
        QVERIFY(!why.isEmpty());
        QTemporaryDir dir;
        const SecretStoreChoice choice = SecretStoreFactory::create(dir.filePath(QStringLiteral("k.db")), SecretStoreFactory::Preference::KeyringOnly,
                                                                    std::chrono::milliseconds(1500));
        QVERIFY(!choice.store);
        QVERIFY(choice.error.contains(QStringLiteral("No keyring")));
    }
};

QTEST_GUILESS_MAIN(tst_SecretStore)
#include "tst_SecretStore.moc"
