// A database's API keys are read from where the database says they are, by the console and by
// `switchboard --headless` alike. A real Secret Service (gnome-keyring on this test's own message
// bus, PrivateKeyring) stands for the desktop keyring: keys saved by the console go there; the real
// headless executable reads them from there and answers; run where that keyring cannot be reached it
// names each key it cannot read and sends the provider nothing; the console's "Move keys" puts them
// in the database file (after which the same headless run answers) and back.
#include "sim/FakeProvider.h"
#include "FakeProviderSpecs.h"
#include "HeadlessProcess.h"
#include "PrivateKeyring.h"
#include "ProxyClient.h"
#include "ProxyConfigs.h"
#include "TestPaths.h"

#include "common/Random.h"
#include "engine/EngineHost.h"
#include "settings/KeyStorageBox.h"
#include "settings/SettingsPage.h"
#include "store/ConfigRepository.h"
#include "store/ConfigStore.h"
#include "store/Database.h"
#include "store/KeychainSecretStore.h"
#include "store/SecretBackendRecord.h"
#include "store/SecretStoreFactory.h"

#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QSqlQuery>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

const QString kSecret = QStringLiteral("sk-kept-in-the-keyring-4711");
const QString kTokenSecret = QStringLiteral("local-token-in-the-keyring-0815");

int count(const QString &dbPath, const QString &sql)
{
    Database db(dbPath, QStringLiteral("test-count"));
    if (!db.open())
        return -1;
    QSqlQuery q(db.connection());
    return q.exec(sql) && q.next() ? q.value(0).toInt() : -1;
}

std::optional<SecretBackend> recordedBackend(const QString &dbPath)
{
    Database db(dbPath, QStringLiteral("test-record"));
    return db.open() ? SecretBackendRecord::read(db) : std::nullopt;
}

EngineHost::Options consoleOptions(const QString &dbPath)
{
    EngineHost::Options options;
    options.dbPath = dbPath;
    options.listen = QStringLiteral("127.0.0.1:0");
    options.secrets = SecretStoreFactory::Preference::Auto; // as the console starts
    return options;
}

RawHeaders bearer(const QString &token)
{
    return {{QByteArrayLiteral("Authorization"), QByteArrayLiteral("Bearer ") + token.toUtf8()}};
}

} // namespace

class tst_SecretsBothModes : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{4711};
    ScenarioClock m_scenarioClock{m_clock, 1.0};
    PrivateKeyring m_keyring;
    std::unique_ptr<FakeProvider> m_provider;
    ProxyClient m_client;

    // The console's first start on a new database, then the configuration a user enters in it:
    // provider "up" with key "team", route m, a local token.
    void setUpInTheConsole(const QString &dbPath)
    {
        EngineHost host(m_clock, m_random);
        QString error;
        QVERIFY2(host.start(consoleOptions(dbPath), &error), qPrintable(error));
        QCOMPARE(host.secretBackend(), SecretBackend::Keyring);
        EngineConfig config = *oneChannelConfig(QStringLiteral("up"), m_provider->baseUrl(), QStringLiteral("m"));
        config.channels.front().upstreamModel = QStringLiteral("gpt-4o");
        config.providers.front().keys = {ApiKeyConfig{0, QStringLiteral("team"), kSecret, true, {}}};
        config.proxy.localToken = kTokenSecret;
        const ConfigRepository::SaveResult saved = host.configStore()->save(config);
        QVERIFY2(saved.ok(), qPrintable(saved.errors.join(' ')));
        host.stop(500ms);
    }

    Reply chat(quint16 port) { return m_client.postChat(port, chatBody(false, QStringLiteral("m")), bearer(kTokenSecret)); }

private slots:
    void initTestCase()
    {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QString why;
        QVERIFY2(m_keyring.start(&why), qPrintable(QStringLiteral("the test's own Secret Service did not start: ") + why));
        m_keyring.joinThisProcess();
        QVERIFY2(KeychainSecretStore::probe(5s, &why), qPrintable(why));

        ProviderSpec spec = fakeProviderSpec(QStringLiteral("up"));
        spec.keys = {KeySpec{kSecret.toUtf8(), 0}};
        m_provider = std::make_unique<FakeProvider>(spec, m_scenarioClock, m_random);
        QVERIFY2(m_provider->start(&why), qPrintable(why));
    }

    void keysSavedInTheConsoleServeHeadlessAndAreNamedWhereTheKeyringIsOutOfReach()
    {
        QTemporaryDir dir;
        const QString dbPath = dir.filePath(QStringLiteral("switchboard.db"));
        setUpInTheConsole(dbPath);
        QCOMPARE(recordedBackend(dbPath), std::optional(SecretBackend::Keyring));
        QCOMPARE(count(dbPath, QStringLiteral("SELECT COUNT(*) FROM secrets")), 0); // nothing in the file

        {
            HeadlessProcess service(QStringLiteral(SB_SWITCHBOARD_BINARY), dir.path(), m_keyring.reachable());
            QVERIFY2(service.start(), qPrintable(service.log()));
            const quint64 servedBefore = m_provider->stats().succeeded;
            const Reply reply = chat(service.port());
            QVERIFY2(reply.status == 200, reply.body.constData());
            // The provider counts the answer on its own thread, possibly after the client has it.
            QTRY_VERIFY(m_provider->stats().succeeded > servedBefore); // the provider knew the key the keyring gave
            QCOMPARE(service.stop(), 0);
            QVERIFY(!service.log().contains(kSecret));
        }

        {
            HeadlessProcess service(QStringLiteral(SB_SWITCHBOARD_BINARY), dir.path(), m_keyring.unreachable());
            QVERIFY2(service.start(), qPrintable(service.log()));
            // Said at start-up, by provider and key label, before any request.
            QVERIFY2(service.log().contains(QStringLiteral("provider \"up\" key \"team\" cannot be used")), qPrintable(service.log()));
            QVERIFY2(service.log().contains(QStringLiteral("keyring, which cannot be reached")), qPrintable(service.log()));
            QVERIFY2(service.log().contains(QStringLiteral("local token cannot be read")), qPrintable(service.log()));
            qInfo("what the service said at start-up:\n%s", qPrintable(service.log()));
            const quint64 chatBefore = m_provider->stats().chat, rejectedBefore = m_provider->stats().keyRejected;

            // The local token cannot be read either, so the door stays shut: refused, in OpenAI's shape.
            const Reply shut = chat(service.port());
            QCOMPARE(shut.status, 503);
            QCOMPARE(shut.errorCode(), QStringLiteral("local_token_unreadable"));
            const Reply anonymous = m_client.postChat(service.port(), chatBody(false, QStringLiteral("m")));
            QCOMPARE(anonymous.status, 503); // never let in without the token it cannot check
            QCOMPARE(m_provider->stats().chat, chatBefore);
            QCOMPARE(m_provider->stats().keyRejected, rejectedBefore);
            QCOMPARE(service.stop(), 0);
            QVERIFY(!service.log().contains(kSecret));
        }
    }

    void aKeyTheKeyringCannotGiveKeepsItsProviderFromBeingCalled()
    {
        // The same database without a local token: the request reaches the router, which sends the
        // provider nothing and says why.
        QTemporaryDir dir;
        const QString dbPath = dir.filePath(QStringLiteral("switchboard.db"));
        setUpInTheConsole(dbPath);
        {
            EngineHost host(m_clock, m_random);
            QString error;
            QVERIFY2(host.start(consoleOptions(dbPath), &error), qPrintable(error));
            EngineConfig open = *host.configStore()->current();
            open.proxy.localToken.clear();
            QVERIFY(host.configStore()->save(open).ok());
            host.stop(500ms);
        }
        HeadlessProcess service(QStringLiteral(SB_SWITCHBOARD_BINARY), dir.path(), m_keyring.unreachable());
        QVERIFY2(service.start(), qPrintable(service.log()));
        const quint64 chatBefore = m_provider->stats().chat, rejectedBefore = m_provider->stats().keyRejected;
        const Reply refused = m_client.postChat(service.port(), chatBody(false, QStringLiteral("m")));
        QCOMPARE(refused.status, 503);
        QVERIFY2(refused.error().value(QStringLiteral("message")).toString().contains(QStringLiteral("no API key of its can be read")),
                 refused.body.constData());
        QCOMPARE(m_provider->stats().chat, chatBefore); // no keyless request went out
        QCOMPARE(m_provider->stats().keyRejected, rejectedBefore);
        QCOMPARE(service.stop(), 0);
    }

    void theConsoleMovesTheKeysToTheFileAndBack()
    {
        QTemporaryDir dir;
        const QString dbPath = dir.filePath(QStringLiteral("switchboard.db"));
        setUpInTheConsole(dbPath);

        EngineHost host(m_clock, m_random);
        QString error;
        QVERIFY2(host.start(consoleOptions(dbPath), &error), qPrintable(error));
        const QString keyRef = host.configStore()->repository().secretRefOf(host.configStore()->current()->providers.front().keys.front().id);
        QVERIFY(!keyRef.isEmpty());

        SettingsPage page;
        page.resize(1200, 720);
        page.setHost(&host);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        KeyStorageBox *box = page.keyStorageBox();
        QVERIFY2(box->placeLabel()->text().contains(QStringLiteral("desktop keyring")), qPrintable(box->placeLabel()->text()));
        QCOMPARE(box->moveButton()->text(), QStringLiteral("Move keys to the database file…"));
        QVERIFY(box->moveButton()->isEnabled());
        QCoreApplication::processEvents();
        QVERIFY(page.grab().save(artifactPath(QStringLiteral("settings/keys-in-keyring.png"))));

        QVERIFY2(box->moveKeys(), qPrintable(box->statusText()));
        QCOMPARE(host.secretBackend(), SecretBackend::Database);
        QCOMPARE(recordedBackend(dbPath), std::optional(SecretBackend::Database));
        QCOMPARE(count(dbPath, QStringLiteral("SELECT COUNT(*) FROM secrets")), 2); // the key and the local token
        QCOMPARE(count(dbPath, QStringLiteral("SELECT COUNT(*) FROM events WHERE kind = 'config_change' AND message LIKE 'API keys moved%'")), 1);
        {
            QString keyringError;
            const auto keyring = SecretStoreFactory::open(dbPath, SecretBackend::Keyring, &keyringError);
            QVERIFY2(keyring, qPrintable(keyringError));
            QVERIFY(!keyring->load(keyRef, &keyringError).has_value()); // gone from the keyring
            QVERIFY2(keyringError.isEmpty(), qPrintable(keyringError));
        }
        QVERIFY2(box->placeLabel()->text().contains(QStringLiteral("database file")), qPrintable(box->placeLabel()->text()));
        QVERIFY(box->statusText().contains(QStringLiteral("Moved")));
        QCOMPARE(box->moveButton()->text(), QStringLiteral("Move keys to the keyring…"));
        QCoreApplication::processEvents();
        QVERIFY(page.grab().save(artifactPath(QStringLiteral("settings/keys-moved-to-file.png"))));

        // The running engine kept its keys, and a save after the move writes to the file.
        QCOMPARE(chat(host.gateway()->port()).status, 200);
        EngineConfig edited = *host.configStore()->current();
        edited.providers.front().keys.front().secret = kSecret; // the same key typed again: no new copy
        QVERIFY(host.configStore()->save(edited).ok());
        QCOMPARE(count(dbPath, QStringLiteral("SELECT COUNT(*) FROM secrets")), 2);
        page.setHost(nullptr);
        host.stop(500ms);

        {
            // Where no keyring answers, the keys are in the file now: headless answers.
            HeadlessProcess service(QStringLiteral(SB_SWITCHBOARD_BINARY), dir.path(), m_keyring.unreachable());
            QVERIFY2(service.start(), qPrintable(service.log()));
            QVERIFY2(!service.log().contains(QStringLiteral("cannot be used")), qPrintable(service.log()));
            QCOMPARE(chat(service.port()).status, 200);
            QCOMPARE(service.stop(), 0);
        }

        // And back into the keyring: the file holds no secret afterwards.
        EngineHost again(m_clock, m_random);
        QVERIFY2(again.start(consoleOptions(dbPath), &error), qPrintable(error));
        QCOMPARE(again.secretBackend(), SecretBackend::Database); // the record decides, not the keyring's presence
        QString note;
        QVERIFY2(again.moveSecretsTo(SecretBackend::Keyring, &error, &note), qPrintable(error));
        QVERIFY2(note.isEmpty(), qPrintable(note));
        QCOMPARE(again.secretBackend(), SecretBackend::Keyring);
        QCOMPARE(count(dbPath, QStringLiteral("SELECT COUNT(*) FROM secrets")), 0);
        QCOMPARE(recordedBackend(dbPath), std::optional(SecretBackend::Keyring));
        QCOMPARE(chat(again.gateway()->port()).status, 200);
        QVERIFY(!again.moveSecretsTo(SecretBackend::Keyring, &error)); // already there: said, nothing done
        QVERIFY2(error.contains(QStringLiteral("already")), qPrintable(error));
        again.stop(500ms);
    }

    void cleanupTestCase()
    {
        if (m_provider)
            m_provider->stop();
    }
};

QTEST_MAIN(tst_SecretsBothModes)
#include "tst_SecretsBothModes.moc"
