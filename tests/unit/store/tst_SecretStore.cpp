#include "store/DatabaseSecretStore.h"
#include "store/KeychainSecretStore.h"
#include "store/SecretStoreFactory.h"

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

        // Whatever this machine has, the choice and the warning agree.
        SecretStoreChoice automatic = SecretStoreFactory::create(path, SecretStoreFactory::Preference::Auto, std::chrono::milliseconds(1500));
        QVERIFY(automatic.store);
        if (automatic.backend == SecretBackend::Keyring) {
            QVERIFY(automatic.warning.isEmpty());
            QCOMPARE(automatic.store->backendName(), QStringLiteral("keyring"));
        } else {
            QVERIFY(automatic.warning.contains(QStringLiteral("No keyring is available")));
            QCOMPARE(automatic.store->backendName(), QStringLiteral("database"));
        }
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
