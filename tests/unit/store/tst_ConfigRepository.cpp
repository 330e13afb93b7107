#include "store/ConfigRepository.h"
#include "store/ConfigStore.h"
#include "store/DatabaseSecretStore.h"
#include "store/DemoConfig.h"

#include "ConfigSamples.h"
#include "FakeClock.h"
#include "TestPaths.h"
#include "common/SecretMask.h"
#include "model/ConfigJson.h"

#include <QFile>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;

namespace {

// Everything in the configuration tables, as text, to search for things that must not be there.
QString dumpConfigTables(QSqlDatabase db)
{
    QString out;
    for (const char *table : {"providers", "api_keys", "channels", "routes", "route_channels", "route_fallbacks", "settings",
                              "prices", "meta", "events"}) {
        QSqlQuery q(db);
        q.exec(QStringLiteral("SELECT * FROM %1").arg(QLatin1String(table)));
        while (q.next())
            for (int i = 0; i < q.record().count(); ++i)
                out += q.value(i).toString() + QLatin1Char('|');
    }
    return out;
}

struct Fixture {
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("config.db"));
    test::FakeClock clock;
    DatabaseSecretStore secrets{path};
    ConfigRepository repo{path, secrets, clock};

    Fixture()
    {
        QString error;
        if (!secrets.open(&error) || !repo.open(&error))
            qFatal("cannot open the test database: %s", qPrintable(error));
    }
};

} // namespace

class tst_ConfigRepository : public QObject {
    Q_OBJECT
private slots:
    void firstStartSeedsTheDemoOnlyOnce()
    {
        Fixture f;
        QVERIFY(f.repo.isEmpty());
        QString error;
        QVERIFY(f.repo.seedDemoIfEmpty(&error));
        QVERIFY(!f.repo.isEmpty());
        const EngineConfigPtr c = f.repo.load(&error);
        QVERIFY2(c, qPrintable(error));
        QVERIFY(c->demo);
        QCOMPARE(c->validate(), QStringList());
        QCOMPARE(c->providers.size(), std::size_t(2));
        QCOMPARE(c->providers[0].name, QStringLiteral("demo-primary"));
        QCOMPARE(c->providers[0].baseUrl, QStringLiteral("http://127.0.0.1:18401/v1"));
        QCOMPARE(c->providers[1].name, QStringLiteral("demo-fallback"));
        QCOMPARE(c->providers[1].baseUrl, QStringLiteral("http://127.0.0.1:18402/v1"));
        QVERIFY(c->providers[0].keys.empty()); // works with no API keys at all
        QVERIFY(c->route(u"demo"));
        QCOMPARE(c->route(u"demo")->channelIds.size(), std::size_t(2));
        QCOMPARE(c->channel(c->route(u"demo")->channelIds[0])->name, QStringLiteral("demo/A"));
        // The names OpenAI's examples use answer too, so a pasted example is no 404.
        QVERIFY(c->route(u"gpt-4o"));
        QVERIFY(c->route(u"gpt-4o-mini"));
        QCOMPARE(c->route(u"gpt-4o")->channelIds, c->route(u"demo")->channelIds);
        QCOMPARE(c->breaker.preset, QStringLiteral("launch-day"));

        QVERIFY(!f.repo.seedDemoIfEmpty(&error));
        QVERIFY(error.isEmpty());
        // A user who deleted everything keeps an empty configuration: no surprise re-seeding.
        QVERIFY(f.repo.save(EngineConfig{}).ok());
        QVERIFY(!f.repo.seedDemoIfEmpty(&error));
        QVERIFY(f.repo.load()->providers.empty());
    }

    void everyFieldAndEverySecretRoundTripsThroughTheDatabase()
    {
        Fixture f;
        const EngineConfig original = test::everyFieldSetConfig();
        const auto saved = f.repo.save(original, QStringLiteral("test"));
        QVERIFY2(saved.ok(), qPrintable(saved.errors.join('\n')));
        QCOMPARE(test::configDifferences(original, *saved.config), QStringList());

        // A second connection (a restart) reads the same.
        DatabaseSecretStore secrets(f.path);
        QVERIFY(secrets.open());
        ConfigRepository again(f.path, secrets, f.clock);
        QVERIFY(again.open());
        const EngineConfigPtr loaded = again.load();
        QVERIFY(loaded);
        QCOMPARE(test::configDifferences(original, *loaded), QStringList());
    }

    void aRefusedKeyStaysRefusedUntilItGetsANewSecretOrIsReenabled()
    {
        Fixture f;
        EngineConfig config = test::everyFieldSetConfig();
        QVERIFY(f.repo.save(config).ok());
        const QString secret = config.providers[0].keys[0].secret; // key 7
        // The ring's masked form must be the stored key's: a refusal of another secret is not kept.
        QVERIFY(!f.repo.recordKeyRefused(7, maskSecret(QStringLiteral("sk-some-other-secret-9999")), QStringLiteral("HTTP 401"), 1000));
        QVERIFY(!f.repo.load()->providers[0].keys[0].refused());
        QVERIFY(f.repo.recordKeyRefused(7, maskSecret(secret), QStringLiteral("HTTP 401: invalid api key"), 1234));
        EngineConfigPtr loaded = f.repo.load();
        QCOMPARE(loaded->providers[0].keys[0].refusedAtMs, qint64(1234));
        QCOMPARE(loaded->providers[0].keys[0].refusedReason, QStringLiteral("HTTP 401: invalid api key"));
        QVERIFY(loaded->providers[0].keys[0].enabled); // the user's switch is another thing
        QVERIFY(!loaded->providers[0].keys[1].refused());

        // An unrelated save, from a configuration that knows nothing of the refusal, keeps it.
        config.channels[0].weight = 3.5;
        QVERIFY(f.repo.save(config).ok());
        QVERIFY(f.repo.load()->providers[0].keys[0].refused());
        // A label-only edit of the key too: the refusal is of its secret.
        config.providers[0].keys[0].label = QStringLiteral("renamed");
        QVERIFY(f.repo.save(config).ok());
        QVERIFY(f.repo.load()->providers[0].keys[0].refused());

        // A new secret clears it.
        config.providers[0].keys[0].secret = QStringLiteral("sk-proj-NEWSECRET-abcdefgh5678");
        QVERIFY(f.repo.save(config).ok());
        QVERIFY(!f.repo.load()->providers[0].keys[0].refused());

        // Re-enable clears it too, once, and records that it did.
        QVERIFY(f.repo.recordKeyRefused(7, maskSecret(config.providers[0].keys[0].secret), QStringLiteral("HTTP 403"), 5000));
        QVERIFY(f.repo.load()->providers[0].keys[0].refused());
        QString error;
        QVERIFY2(f.repo.reenableKey(7, &error), qPrintable(error));
        QVERIFY(!f.repo.load()->providers[0].keys[0].refused());
        QVERIFY(!f.repo.reenableKey(7, &error));
        QVERIFY(error.contains(QStringLiteral("not disabled")));
        QSqlQuery q(f.repo.database().connection());
        QVERIFY(q.exec(QStringLiteral("SELECT count(*) FROM events WHERE kind = 'config_change' AND message LIKE '%re-enabled%'")) && q.next());
        QCOMPARE(q.value(0).toInt(), 1);
    }

    void aProvidersChoiceNotToVerifyTlsIsStored()
    {
        // (The sample sets a CA bundle; the choice that excludes it is stored on its own.)
        Fixture f;
        EngineConfig config = test::everyFieldSetConfig();
        config.providers[1].tlsSkipVerify = true;
        const auto saved = f.repo.save(config, QStringLiteral("test"));
        QVERIFY2(saved.ok(), qPrintable(saved.errors.join('\n')));
        const EngineConfigPtr loaded = f.repo.load();
        QVERIFY(loaded);
        QVERIFY(loaded->providers[1].tlsSkipVerify);
        QVERIFY(!loaded->providers[0].tlsSkipVerify);
        QCOMPARE(loaded->providers[0].caBundle, config.providers[0].caBundle);
    }

    void secretsAreNotInTheConfigTablesOnlyTheirMaskedPreviews()
    {
        Fixture f;
        const EngineConfig original = test::everyFieldSetConfig();
        QVERIFY(f.repo.save(original).ok());
        const QString dump = dumpConfigTables(f.repo.database().connection());
        for (const auto &p : original.providers)
            for (const auto &k : p.keys)
                QVERIFY2(!dump.contains(k.secret), qPrintable(k.label));
        QVERIFY(!dump.contains(original.proxy.localToken));

        const auto previews = f.repo.keyPreviews();
        QCOMPARE(previews.size(), std::size_t(3));
        QCOMPARE(previews[0].keyId, 7);
        QCOMPARE(previews[0].maskedPreview, maskSecret(original.providers[0].keys[0].secret));
        QVERIFY(previews[0].maskedPreview.endsWith(QStringLiteral("1234")));
        QCOMPARE(previews[1].disabledReason, QStringLiteral("401 at 12:04"));
        QCOMPARE(f.secrets.load(f.repo.secretRefOf(7)).value_or(QString()), original.providers[0].keys[0].secret);

        // And the export of what is stored leaves them out unless asked for.
        const EngineConfigPtr loaded = f.repo.load();
        const QByteArray plain = exportConfigJson(*loaded).toBytes();
        const QByteArray full = exportConfigJson(*loaded, ConfigExportOptions{true}).toBytes();
        for (const auto &p : original.providers)
            for (const auto &k : p.keys) {
                QVERIFY(!plain.contains(k.secret.toUtf8()));
                QVERIFY(full.contains(k.secret.toUtf8()));
            }
    }

    void anImportWithoutSecretsKeepsTheStoredOnes()
    {
        Fixture f;
        const EngineConfig original = test::everyFieldSetConfig();
        QVERIFY(f.repo.save(original).ok());
        const ConfigImport imported = importConfigJson(exportConfigJson(original).toBytes());
        QVERIFY(imported.ok());
        const auto saved = f.repo.save(imported.config, QStringLiteral("import"));
        QVERIFY2(saved.ok(), qPrintable(saved.errors.join('\n')));
        // The local token and the Redis password are settings like any other: left out of the file,
        // they are now unset (the export said so); the API keys are kept.
        EngineConfig expected = original;
        expected.proxy.localToken.clear();
        expected.fleet.redisUrl = QUrl(original.fleet.redisUrl).adjusted(QUrl::RemovePassword).toString();
        QCOMPARE(test::configDifferences(expected, *saved.config), QStringList());
        QCOMPARE(f.repo.keyPreviews()[0].maskedPreview, maskSecret(original.providers[0].keys[0].secret));
    }

    void aRemovedKeyLosesItsSecretAndNewKeysGetIds()
    {
        Fixture f;
        EngineConfig c = test::everyFieldSetConfig();
        QVERIFY(f.repo.save(c).ok());
        const QString ref8 = f.repo.secretRefOf(8);
        QVERIFY(f.secrets.load(ref8).has_value());
        c.providers[0].keys.pop_back(); // key 8
        c.providers[1].keys.push_back(ApiKeyConfig{0, QStringLiteral("new"), QStringLiteral("sk-brand-new-key-0000"), true, {}});
        const auto saved = f.repo.save(c);
        QVERIFY(saved.ok());
        QVERIFY(!f.secrets.load(ref8).has_value());
        QVERIFY(f.repo.secretRefOf(8).isEmpty());
        const auto &keys = saved.config->providers[1].keys;
        QCOMPARE(keys.size(), std::size_t(2));
        QVERIFY(keys[1].id > 9);
        QCOMPARE(keys[1].secret, QStringLiteral("sk-brand-new-key-0000"));
    }

    void aRotatedSecretReplacesTheOldOneAndAnUnchangedOneStaysPut()
    {
        Fixture f;
        EngineConfig c = test::everyFieldSetConfig();
        QVERIFY(f.repo.save(c).ok());
        const QString before7 = f.repo.secretRefOf(7);
        const QString before9 = f.repo.secretRefOf(9);
        c.providers[0].keys[0].secret = QStringLiteral("sk-proj-ROTATED-0000-1111");
        const auto saved = f.repo.save(c);
        QVERIFY(saved.ok());
        QCOMPARE(saved.config->providers[0].keys[0].secret, QStringLiteral("sk-proj-ROTATED-0000-1111"));
        QVERIFY(f.repo.secretRefOf(7) != before7);
        QVERIFY(!f.secrets.load(before7).has_value()); // the old secret is gone
        QCOMPARE(f.repo.secretRefOf(9), before9);      // untouched keys are not rewritten
        QCOMPARE(f.repo.keyPreviews()[0].maskedPreview, maskSecret(QStringLiteral("sk-proj-ROTATED-0000-1111")));
    }

    void anInvalidConfigIsRefusedAndNothingChanges()
    {
        Fixture f;
        const EngineConfig original = test::everyFieldSetConfig();
        QVERIFY(f.repo.save(original).ok());
        EngineConfig broken = original;
        broken.providers[1].baseUrl = QStringLiteral("not a url");
        broken.channels.push_back(ChannelConfig{99, QStringLiteral("orphan"), 42, QStringLiteral("m"), 1.0, true, {}, {}, {}});
        const auto refused = f.repo.save(broken);
        QVERIFY(!refused.ok());
        QVERIFY(refused.errors.join('\n').contains(QStringLiteral("not an http(s) URL")));
        QCOMPARE(test::configDifferences(original, *f.repo.load()), QStringList());
    }

    void everySaveIsRecordedAsAConfigChangeEvent()
    {
        Fixture f;
        QVERIFY(f.repo.seedDemoIfEmpty());
        f.clock.advance(std::chrono::seconds(5));
        QVERIFY(f.repo.save(test::everyFieldSetConfig(), QStringLiteral("edited in the Providers dialog")).ok());
        QSqlQuery q(f.repo.database().connection());
        QVERIFY(q.exec(QStringLiteral("SELECT time_ms, message FROM events WHERE kind = 'config_change' ORDER BY id")));
        QVERIFY(q.next());
        QVERIFY(q.value(1).toString().contains(QStringLiteral("demo configuration")));
        QVERIFY(q.next());
        QCOMPARE(q.value(0).toLongLong(), f.clock.wallMillis());
        const QString message = q.value(1).toString();
        QVERIFY2(message.contains(QStringLiteral("edited in the Providers dialog")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("added provider openai-main, claude")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("removed provider demo-primary, demo-fallback")), qPrintable(message));
        QVERIFY(!q.next());
    }

    void theConfigStoreSwapsTheSnapshotLiveAndNotifies()
    {
        Fixture f;
        ConfigStore store(f.repo);
        QString error;
        QVERIFY2(store.initialize(&error), qPrintable(error));
        QVERIFY(store.seededDemo());
        const EngineConfigPtr before = store.current();
        QVERIFY(before && before->demo);

        QSignalSpy spy(&store, &ConfigStore::configChanged);
        EngineConfigPtr heard;
        store.addListener([&heard](const EngineConfigPtr &c) { heard = c; });

        EngineConfig edited = *before;
        edited.demo = false;
        edited.breaker.consecutiveFailures = 9;
        const auto result = store.save(edited, QStringLiteral("threshold edit"));
        QVERIFY(result.ok());
        QCOMPARE(spy.count(), 1);
        const EngineConfigPtr after = spy.at(0).at(0).value<EngineConfigPtr>();
        QCOMPARE(after.get(), store.current().get());
        QCOMPARE(heard.get(), after.get());
        QCOMPARE(after->breaker.consecutiveFailures, 9);
        // A request that started on the old snapshot still holds it, unchanged.
        QCOMPARE(before->breaker.consecutiveFailures, 5);
        QVERIFY(before->demo);

        // A refused save changes nothing and tells no one.
        edited.routes[0].channelIds = {12345};
        QVERIFY(!store.save(edited).ok());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(store.current().get(), after.get());
    }

    void retentionIsConfigurableWithA30DayDefault()
    {
        Fixture f;
        QCOMPARE(f.repo.historyRetentionDays(), 30);
        QVERIFY(f.repo.setHistoryRetentionDays(7));
        QCOMPARE(f.repo.historyRetentionDays(), 7);
        QString error;
        QVERIFY(!f.repo.setHistoryRetentionDays(0, &error));
        QVERIFY(!error.isEmpty());
        QCOMPARE(f.repo.historyRetentionDays(), 7);
    }

    void theShippedDefaultConfigFileIsTheDemo()
    {
        const QString path = test::sourcePath(QStringLiteral("resources/default-config.json"));
        const QByteArray expected = exportConfigJson(DemoConfig::build()).toBytes();
        QFile file(path);
        const bool same = file.open(QIODevice::ReadOnly) && file.readAll() == expected;
        if (!same) { // leave the right content where a developer can copy it from
            QFile out(test::artifactPath(QStringLiteral("default-config.json")));
            if (out.open(QIODevice::WriteOnly))
                out.write(expected);
        }
        QVERIFY2(same, "resources/default-config.json differs from DemoConfig::build(); the expected file is in the test artifacts");
        const ConfigImport imported = importConfigFile(path);
        QVERIFY(imported.ok());
        QCOMPARE(test::configDifferences(DemoConfig::build(), imported.config), QStringList());
    }
};

QTEST_GUILESS_MAIN(tst_ConfigRepository)
#include "tst_ConfigRepository.moc"
