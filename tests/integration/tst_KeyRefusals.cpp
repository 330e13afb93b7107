// A key the provider refused stays refused: an EngineHost on a real SQLite file in front of the
// simulator, whose provider knows one of the two configured keys. The unknown key gets a 401 and is
// disabled; the refusal is stored, so an unrelated save and a restart on the same file keep it out of
// rotation (the provider never sees it again); a new secret for the key clears it, and so does the
// explicit re-enable (POST /admin/keys/{id}/enable, what the console's "Re-enable" calls through
// ConfigStore::reenableKey).
#include "sim/FakeProvider.h"
#include "FakeProviderSpecs.h"
#include "ProxyClient.h"
#include "ProxyConfigs.h"

#include "engine/EngineHost.h"
#include "routing/KeyRing.h"
#include "routing/Router.h"
#include "store/ConfigRepository.h"
#include "store/ConfigStore.h"
#include "store/DatabaseSecretStore.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

constexpr int kBadKey = 1;
constexpr int kGoodKey = 2;
const QString kGoodSecret = QStringLiteral("sk-known-to-the-provider-0002");

EngineHost::Options hostOptions(const QString &dbPath)
{
    EngineHost::Options options;
    options.dbPath = dbPath;
    options.seedDemo = true; // as the console and `--headless` start: the stored configuration (seeded only when empty)
    options.secrets = sb::SecretStoreFactory::Preference::DatabaseOnly; // never the user's keyring: secrets go to the test's database file
    return options;
}

KeyRing::KeyStatus statusOf(EngineHost &host, int keyId)
{
    for (const KeyRing::KeyStatus &s : host.gateway()->router().keyRing(1)->status())
        if (s.keyId == keyId)
            return s;
    return {};
}

const ApiKeyConfig *storedKey(EngineHost &host, int keyId)
{
    const EngineConfigPtr config = host.configStore()->current();
    for (const ApiKeyConfig &k : config->providers.front().keys)
        if (k.id == keyId)
            return &k;
    return nullptr;
}

} // namespace

class tst_KeyRefusals : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{2424};
    ProxyClient m_client;

    int chat(EngineHost &host)
    {
        return m_client.postChat(host.gateway()->port(), chatBody(false, QStringLiteral("m"))).status;
    }

    // Requests until the ring has refused the bad key and the refusal reached the stored configuration.
    // Route m over one channel of provider "up" with the two keys, saved in `dbPath` as the console would.
    void saveConfig(const QString &dbPath, const FakeProvider &provider, const QString &badSecret)
    {
        EngineConfig config = *oneChannelConfig(QStringLiteral("up"), provider.baseUrl(), QStringLiteral("m"));
        config.channels.front().upstreamModel = QStringLiteral("gpt-4o");
        config.providers.front().keys = {ApiKeyConfig{kBadKey, QStringLiteral("old"), badSecret, true, {}},
                                         ApiKeyConfig{kGoodKey, QStringLiteral("team"), kGoodSecret, true, {}}};
        DatabaseSecretStore secrets(dbPath);
        ConfigRepository repository(dbPath, secrets, m_clock);
        QString error;
        QVERIFY2(secrets.open(&error) && repository.open(&error), qPrintable(error));
        const ConfigRepository::SaveResult saved = repository.save(config);
        QVERIFY2(saved.ok(), qPrintable(saved.errors.join(' ')));
    }

    void refuseBadKey(EngineHost &host, FakeProvider &provider)
    {
        const quint64 rejectedBefore = provider.stats().keyRejected;
        for (int i = 0; i < 6 && statusOf(host, kBadKey).state != KeyRing::KeyState::Disabled; ++i)
            chat(host); // round robin: the bad key's turn comes within two requests
        QVERIFY(provider.stats().keyRejected > rejectedBefore);
        QCOMPARE(statusOf(host, kBadKey).state, KeyRing::KeyState::Disabled);
        QTRY_VERIFY(storedKey(host, kBadKey) && storedKey(host, kBadKey)->refused());
    }

private slots:
    void refusalOutlivesAnEditAndARestartUntilTheKeyChanges()
    {
        ScenarioClock scenarioClock(m_clock, 1.0);
        ProviderSpec spec = fakeProviderSpec(QStringLiteral("up"));
        spec.keys = {KeySpec{kGoodSecret.toUtf8(), 0}};
        FakeProvider provider(spec, scenarioClock, m_random);
        QString error;
        QVERIFY2(provider.start(&error), qPrintable(error));

        QTemporaryDir dir;
        const QString dbPath = dir.filePath(QStringLiteral("switchboard.db"));
        saveConfig(dbPath, provider, QStringLiteral("sk-revoked-by-the-provider-0001"));

        {
            EngineHost host(m_clock, m_random);
            QVERIFY2(host.start(hostOptions(dbPath), &error), qPrintable(error));
            refuseBadKey(host, provider);
            const ApiKeyConfig *bad = storedKey(host, kBadKey);
            QVERIFY2(bad->refusedReason.contains(QStringLiteral("Incorrect API key")), qPrintable(bad->refusedReason)); // the provider's words
            QVERIFY(!bad->refusedReason.contains(QStringLiteral("sk-"))); // the reason never carries the key
            QVERIFY(qAbs(bad->refusedAtMs - m_clock.wallMillis()) < 60'000);
            QVERIFY(bad->enabled); // the user's own switch is untouched: this is the provider's refusal

            // An unrelated edit (a price, a channel weight) keeps the key refused, stored and running.
            EngineConfig edited = *host.configStore()->current();
            edited.channels.front().weight = 2.0;
            edited.prices.push_back(ModelPrice{QStringLiteral("gpt-4o"), 2.5, 10.0});
            const ConfigRepository::SaveResult saved = host.configStore()->save(edited);
            QVERIFY2(saved.ok(), qPrintable(saved.errors.join(' ')));
            QVERIFY(storedKey(host, kBadKey)->refused());
            QCOMPARE(statusOf(host, kBadKey).state, KeyRing::KeyState::Disabled);
            const quint64 rejected = provider.stats().keyRejected;
            for (int i = 0; i < 4; ++i)
                QCOMPARE(chat(host), 200);
            QCOMPARE(provider.stats().keyRejected, rejected); // the refused key was not sent again
            host.stop(500ms);
        }

        {
            // A restart on the same file: still refused, with the provider's words, before any request.
            EngineHost host(m_clock, m_random);
            QVERIFY2(host.start(hostOptions(dbPath), &error), qPrintable(error));
            const KeyRing::KeyStatus bad = statusOf(host, kBadKey);
            QCOMPARE(bad.state, KeyRing::KeyState::Disabled);
            QVERIFY2(bad.disabledReason.contains(QStringLiteral("Incorrect API key")), qPrintable(bad.disabledReason));
            QCOMPARE(statusOf(host, kGoodKey).state, KeyRing::KeyState::Active);
            const quint64 rejected = provider.stats().keyRejected;
            for (int i = 0; i < 4; ++i)
                QCOMPARE(chat(host), 200);
            QCOMPARE(provider.stats().keyRejected, rejected);

            // Editing the key (a new secret) clears the refusal: the new secret is tried, and this one
            // the provider knows.
            EngineConfig edited = *host.configStore()->current();
            edited.providers.front().keys[0].secret = kGoodSecret;
            const ConfigRepository::SaveResult saved = host.configStore()->save(edited);
            QVERIFY2(saved.ok(), qPrintable(saved.errors.join(' ')));
            QVERIFY(!storedKey(host, kBadKey)->refused());
            QCOMPARE(statusOf(host, kBadKey).state, KeyRing::KeyState::Active);
            for (int i = 0; i < 4; ++i)
                QCOMPARE(chat(host), 200);
            QCOMPARE(provider.stats().keyRejected, rejected);
            QCOMPARE(statusOf(host, kBadKey).state, KeyRing::KeyState::Active);
            host.stop(500ms);
        }
    }

    void reenableTakesTheKeyBackAndIsRefusedForAKeyThatIsNotRefused()
    {
        ScenarioClock scenarioClock(m_clock, 1.0);
        ProviderSpec spec = fakeProviderSpec(QStringLiteral("up"));
        spec.keys = {KeySpec{kGoodSecret.toUtf8(), 0}};
        FakeProvider provider(spec, scenarioClock, m_random);
        QString error;
        QVERIFY2(provider.start(&error), qPrintable(error));

        QTemporaryDir dir;
        const QString dbPath = dir.filePath(QStringLiteral("switchboard.db"));
        saveConfig(dbPath, provider, QStringLiteral("sk-not-paid-for-yet-0001"));
        EngineHost host(m_clock, m_random);
        QVERIFY2(host.start(hostOptions(dbPath), &error), qPrintable(error));
        refuseBadKey(host, provider);

        const quint16 port = host.gateway()->port();
        const Reply notRefused = m_client.request(port, "POST", QStringLiteral("/admin/keys/%1/enable").arg(kGoodKey));
        QCOMPARE(notRefused.status, 409);
        QCOMPARE(notRefused.errorCode(), QStringLiteral("key_not_refused"));
        QCOMPARE(m_client.request(port, "GET", QStringLiteral("/admin/keys/%1/enable").arg(kBadKey)).status, 405);
        QCOMPARE(m_client.request(port, "POST", QStringLiteral("/admin/keys/x/enable")).status, 404);

        const Reply enabled = m_client.request(port, "POST", QStringLiteral("/admin/keys/%1/enable").arg(kBadKey));
        QVERIFY2(enabled.status == 200, enabled.body.constData());
        QCOMPARE(enabled.json().value("enabled").toBool(), true);
        QVERIFY(!storedKey(host, kBadKey)->refused());
        QCOMPARE(statusOf(host, kBadKey).state, KeyRing::KeyState::Active);

        // Back in rotation for real: still unknown to the provider, it is refused (and stored) again.
        refuseBadKey(host, provider);
        // The console's path: the same through the ConfigStore.
        QVERIFY2(host.configStore()->reenableKey(kBadKey, &error), qPrintable(error));
        QCOMPARE(statusOf(host, kBadKey).state, KeyRing::KeyState::Active);
        QVERIFY(!host.configStore()->reenableKey(kBadKey, &error));
        QVERIFY2(error.contains(QStringLiteral("not disabled")), qPrintable(error));
        host.stop(500ms);
    }
};

QTEST_GUILESS_MAIN(tst_KeyRefusals)
#include "tst_KeyRefusals.moc"
