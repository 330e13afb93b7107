// A route's cache settings: JSON import/export, validation sentences, and the database round trip
// (schema migration 3, route_cache).
#include "FakeClock.h"
#include "model/ConfigJson.h"
#include "store/ConfigRepository.h"
#include "store/DatabaseSecretStore.h"

#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>

using namespace sb;
using namespace std::chrono_literals;

namespace {

QJsonObject configJson(const QJsonObject &routeExtras)
{
    QJsonObject route{{"model", "gpt-4o"}, {"channels", QJsonArray{"A"}}};
    for (auto it = routeExtras.begin(); it != routeExtras.end(); ++it)
        route.insert(it.key(), it.value());
    return QJsonObject{
        {"format", "switchboard-config"},
        {"providers", QJsonArray{QJsonObject{{"name", "p"}, {"base_url", "http://127.0.0.1:9/v1"}}}},
        {"channels", QJsonArray{QJsonObject{{"name", "A"}, {"provider", "p"}, {"upstream_model", "gpt-4o"}},
                                QJsonObject{{"name", "embed"}, {"provider", "p"}, {"upstream_model", "text-embedding-3-small"}}}},
        {"routes", QJsonArray{route}},
    };
}

} // namespace

class tst_CacheConfig : public QObject {
    Q_OBJECT
private slots:
    void routeCacheFieldsAreRead()
    {
        const ConfigImport in = importConfigJson(configJson({{"cache", true}, {"cache_ttl_s", 120}, {"semantic_cache", true},
                                                            {"semantic_preset", "strict"}, {"embeddings_channel", "embed"},
                                                            {"embeddings_model", "bge-small"}}));
        QVERIFY2(in.ok(), qPrintable(in.errors.join('\n')));
        QVERIFY(in.warnings.isEmpty());
        const RouteConfig &r = in.config.routes.at(0);
        QVERIFY(r.cacheEnabled);
        QCOMPARE(r.cache.ttl, 120s);
        QVERIFY(r.cache.semantic);
        QCOMPARE(r.cache.preset, SemanticPreset::Strict);
        QCOMPARE(r.cache.embeddingsChannelId, in.config.channels.at(1).id);
        QCOMPARE(r.cache.embeddingsModel, QStringLiteral("bge-small"));

        // And written back the same way.
        const ConfigImport again = importConfigJson(exportConfigJson(in.config).json);
        QVERIFY2(again.ok(), qPrintable(again.errors.join('\n')));
        QCOMPARE(again.config.routes.at(0).cache.preset, SemanticPreset::Strict);
        QCOMPARE(again.config.routes.at(0).cache.embeddingsChannelId, r.cache.embeddingsChannelId);
        QCOMPARE(again.config.routes.at(0).cache.ttl, 120s);
    }

    void defaultsAreOffWithAnHour()
    {
        const ConfigImport in = importConfigJson(configJson({}));
        QVERIFY(in.ok());
        QVERIFY(!in.config.routes.at(0).cacheEnabled);
        QVERIFY(!in.config.routes.at(0).cache.semantic);
        QCOMPARE(in.config.routes.at(0).cache.ttl, 3600s);
        QCOMPARE(in.config.routes.at(0).cache.preset, SemanticPreset::Balanced);
    }

    void badSettingsAreSentences_data()
    {
        QTest::addColumn<QJsonObject>("extras");
        QTest::addColumn<QString>("expected");
        QTest::newRow("preset") << QJsonObject{{"semantic_preset", "fuzzy"}} << "unknown semantic cache preset \"fuzzy\"";
        QTest::newRow("channel") << QJsonObject{{"embeddings_channel", "nope"}} << "names embeddings channel \"nope\"";
        QTest::newRow("no channel") << QJsonObject{{"semantic_cache", true}} << "the semantic cache needs an embeddings channel";
        QTest::newRow("ttl zero") << QJsonObject{{"cache", true}, {"cache_ttl_s", 0}} << "the cache TTL must be at least 1 second";
        QTest::newRow("ttl negative") << QJsonObject{{"cache_ttl_s", -5}} << "\"cache_ttl_s\" must be a whole number of seconds";
    }
    void badSettingsAreSentences()
    {
        QFETCH(QJsonObject, extras);
        QFETCH(QString, expected);
        const ConfigImport in = importConfigJson(configJson(extras));
        QVERIFY(!in.ok());
        QVERIFY2(in.errors.join('\n').contains(expected), qPrintable(in.errors.join('\n')));
    }

    void globalLimitsAreSettings()
    {
        QJsonObject json = configJson({});
        json.insert("settings", QJsonObject{{"cache", QJsonObject{{"max_entries", 5}, {"max_bytes", 1000}, {"semantic_max_entries", 7}}}});
        const ConfigImport in = importConfigJson(json);
        QVERIFY2(in.ok(), qPrintable(in.errors.join('\n')));
        QCOMPARE(in.config.cache.maxEntries, 5);
        QCOMPARE(in.config.cache.maxBytes, qint64(1000));
        QCOMPARE(in.config.cache.semanticMaxEntries, 7);
        QVERIFY(engineSettingKeys().contains("cache.max_answer_bytes"));
        EngineConfig negative = in.config;
        negative.cache.maxEntries = -1;
        QVERIFY(negative.validate().join('\n').contains("Cache limits cannot be negative"));
    }

    void routeCacheSettingsSurviveTheDatabase()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("config.db");
        test::FakeClock clock;
        DatabaseSecretStore secrets(path);
        ConfigRepository repo(path, secrets, clock);
        QString error;
        QVERIFY2(secrets.open(&error) && repo.open(&error), qPrintable(error));
        ConfigImport in = importConfigJson(configJson({{"cache", true}, {"cache_ttl_s", 90}, {"semantic_cache", true},
                                                      {"semantic_preset", "loose"}, {"embeddings_channel", "embed"}}));
        QVERIFY(in.ok());
        in.config.cache.maxEntries = 123;
        QVERIFY(repo.save(in.config).ok());
        const EngineConfigPtr loaded = repo.load(&error);
        QVERIFY2(loaded, qPrintable(error));
        const RouteConfig &r = loaded->routes.at(0);
        QVERIFY(r.cacheEnabled);
        QCOMPARE(r.cache.ttl, 90s);
        QVERIFY(r.cache.semantic);
        QCOMPARE(r.cache.preset, SemanticPreset::Loose);
        QCOMPARE(r.cache.embeddingsChannelId, in.config.channels.at(1).id);
        QCOMPARE(loaded->cache.maxEntries, 123);
        // Saving a route without cache settings again replaces the row.
        EngineConfig plain = *loaded;
        plain.routes[0].cache = RouteCacheConfig{};
        QVERIFY(repo.save(plain).ok());
        QVERIFY(!repo.load()->routes.at(0).cache.semantic);
    }
};

QTEST_GUILESS_MAIN(tst_CacheConfig)
#include "tst_CacheConfig.moc"
