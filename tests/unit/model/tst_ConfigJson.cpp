#include "model/ConfigJson.h"

#include "../store/ConfigSamples.h"
#include "TestPaths.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

// (No raw string literals in this file: Qt 6.4's moc stops seeing the test class after one.)
class tst_ConfigJson : public QObject {
    Q_OBJECT
private slots:
    void theSampleSetsEveryThresholdAwayFromItsDefault()
    {
        // Guards the round-trip tests below: a field left at its default would round-trip even if
        // the format forgot it.
        const auto sample = engineSettings(test::everyFieldSetConfig());
        const auto defaults = engineSettings(EngineConfig{});
        QCOMPARE(sample.size(), defaults.size());
        for (std::size_t i = 0; i < sample.size(); ++i)
            QVERIFY2(sample[i].second != defaults[i].second, qPrintable(sample[i].first));
    }

    void everyFieldRoundTripsWithSecretsWhenAskedFor()
    {
        const EngineConfig original = test::everyFieldSetConfig();
        const ConfigExport exported = exportConfigJson(original, ConfigExportOptions{true});
        QVERIFY(exported.warnings.isEmpty());
        const ConfigImport imported = importConfigJson(exported.toBytes());
        QVERIFY2(imported.ok(), qPrintable(imported.errors.join('\n')));
        QCOMPARE(imported.warnings, QStringList());
        QCOMPARE(test::configDifferences(original, imported.config), QStringList());
    }

    void secretsAreLeftOutByDefaultWithAWarningAndOnlyMaskedPreviews()
    {
        const EngineConfig original = test::everyFieldSetConfig();
        const ConfigExport exported = exportConfigJson(original);
        const QByteArray bytes = exported.toBytes();
        for (const auto &p : original.providers)
            for (const auto &k : p.keys) {
                QVERIFY(!bytes.contains(k.secret.toUtf8()));
                QVERIFY(!bytes.contains(k.secret.right(12).toUtf8())); // not even a long tail of it
            }
        QVERIFY(!bytes.contains(original.proxy.localToken.toUtf8()));
        QVERIFY(bytes.contains("sk-proj-…1234") || bytes.contains("sk-…1234"));
        QVERIFY(!bytes.contains("fleet-pass-42"));
        QCOMPARE(exported.warnings.size(), 3); // keys, local token and the Redis password
        QVERIFY(exported.warnings.join('\n').contains(QStringLiteral("3 API key(s) were left out")));

        // Importing it back gives the same configuration minus the secrets, and says so.
        const ConfigImport imported = importConfigJson(bytes);
        QVERIFY2(imported.ok(), qPrintable(imported.errors.join('\n')));
        QCOMPARE(test::configDifferences(original, imported.config, false), QStringList());
        QVERIFY(imported.config.providers[0].keys[0].secret.isEmpty());
        QVERIFY(imported.warnings.join('\n').contains(QStringLiteral("3 API key(s) have no secret")));
    }

    void aMinimalHandWrittenFileNeedsNoIdsAndGetsDefaults()
    {
        const QByteArray json = "{ \"providers\": [ {\"name\": \"local\", \"base_url\": \"http://127.0.0.1:11434/v1\"} ], \"channels\":  [ {\"name\": \"llama/A\", \"provider\": \"local\", \"upstream_model\": \"llama3\"} ], \"routes\":    [ {\"model\": \"llama\", \"channels\": [\"llama/A\"]} ] }";
        const ConfigImport imported = importConfigJson(json);
        QVERIFY2(imported.ok(), qPrintable(imported.errors.join('\n')));
        const EngineConfig &c = imported.config;
        QCOMPARE(c.providers.size(), std::size_t(1));
        QCOMPARE(c.providers[0].id, 1);
        QCOMPARE(c.providers[0].dialect, QStringLiteral("openai_compat"));
        QCOMPARE(c.providers[0].primaryTimeout, std::chrono::milliseconds(30000));
        QCOMPARE(c.channels[0].providerId, 1);
        QCOMPARE(c.routes[0].channelIds, std::vector<int>{c.channels[0].id});
        QCOMPARE(c.health.ejectBelow, 30.0);
        QCOMPARE(c.breaker.consecutiveFailures, 5);
    }

    void tlsTrustIsWrittenOnlyWhenSetAndSkippingVerificationIsWarnedAbout()
    {
        const QByteArray json = "{\"providers\": [{\"name\": \"lab\", \"base_url\": \"https://10.0.0.7:8443/v1\", \"tls_skip_verify\": true},"
                                " {\"name\": \"corp\", \"base_url\": \"https://llm.corp.example/v1\", \"ca_bundle\": \"/etc/hosts\"},"
                                " {\"name\": \"public\", \"base_url\": \"https://api.openai.com/v1\"}]}";
        const ConfigImport imported = importConfigJson(json);
        QVERIFY2(imported.ok(), qPrintable(imported.errors.join('\n')));
        QCOMPARE(imported.warnings.size(), 1);
        QVERIFY2(imported.warnings.first().contains(QStringLiteral("\"lab\"")) &&
                     imported.warnings.first().contains(QStringLiteral("tls_skip_verify is on")),
                 qPrintable(imported.warnings.first()));
        const auto &providers = imported.config.providers;
        QVERIFY(providers[0].tlsSkipVerify);
        QVERIFY(providers[0].caBundle.isEmpty());
        QCOMPARE(providers[1].caBundle, QStringLiteral("/etc/hosts"));
        QVERIFY(!providers[1].tlsSkipVerify);
        QVERIFY(!providers[2].tlsSkipVerify && providers[2].caBundle.isEmpty());

        const QJsonArray written = exportConfigJson(imported.config).json.value("providers").toArray();
        QCOMPARE(written.at(0).toObject().value("tls_skip_verify"), QJsonValue(true));
        QVERIFY(!written.at(0).toObject().contains("ca_bundle"));
        QCOMPARE(written.at(1).toObject().value("ca_bundle").toString(), QStringLiteral("/etc/hosts"));
        QVERIFY(!written.at(1).toObject().contains("tls_skip_verify"));
        QVERIFY(!written.at(2).toObject().contains("ca_bundle"));
        QVERIFY(!written.at(2).toObject().contains("tls_skip_verify"));
    }

    void http2IsAProvidersChoiceWrittenOnlyWhenMade()
    {
        const QByteArray json = "{\"providers\": [{\"name\": \"multiplexed\", \"base_url\": \"https://api.example.com/v1\", \"http2\": true},"
                                " {\"name\": \"plain\", \"base_url\": \"https://api.openai.com/v1\"}]}";
        const ConfigImport imported = importConfigJson(json);
        QVERIFY2(imported.ok(), qPrintable(imported.errors.join('\n')));
        QVERIFY(imported.warnings.isEmpty());
        QVERIFY(imported.config.providers[0].http2);
        QVERIFY(!imported.config.providers[1].http2);
        const QJsonArray written = exportConfigJson(imported.config).json.value("providers").toArray();
        QCOMPARE(written.at(0).toObject().value("http2"), QJsonValue(true));
        QVERIFY(!written.at(1).toObject().contains("http2"));
    }

    void promptCachePricesAreOptionalAndUnsetMeansTheInputPrice()
    {
        const QByteArray json = "{\"prices\": [{\"model\": \"claude-sonnet-4\", \"input_usd_per_1m\": 3, \"output_usd_per_1m\": 15,"
                                " \"cached_input_usd_per_1m\": 0.3, \"cache_write_usd_per_1m\": 3.75},"
                                " {\"model\": \"gpt-4o\", \"input_usd_per_1m\": 2.5, \"output_usd_per_1m\": 10}]}";
        const ConfigImport imported = importConfigJson(json);
        QVERIFY2(imported.ok(), qPrintable(imported.errors.join('\n')));
        QVERIFY2(imported.warnings.isEmpty(), qPrintable(imported.warnings.join('\n')));
        const ModelPrice &claude = imported.config.prices.at(0);
        QCOMPARE(claude.cacheReadPrice(), 0.3);
        QCOMPARE(claude.cacheWritePrice(), 3.75);
        const ModelPrice &gpt = imported.config.prices.at(1);
        QVERIFY(!ModelPrice::isSet(gpt.cachedInputUsdPerM));
        QCOMPARE(gpt.cacheReadPrice(), 2.5);
        QCOMPARE(gpt.cacheWritePrice(), 2.5);

        // Written back, an unset price stays out of the file rather than becoming a -1 a person would misread.
        const QJsonArray prices = exportConfigJson(imported.config).json.value("prices").toArray();
        QCOMPARE(prices.at(0).toObject().value("cached_input_usd_per_1m").toDouble(), 0.3);
        QCOMPARE(prices.at(0).toObject().value("cache_write_usd_per_1m").toDouble(), 3.75);
        QVERIFY(!prices.at(1).toObject().contains("cached_input_usd_per_1m"));
        QVERIFY(!prices.at(1).toObject().contains("cache_write_usd_per_1m"));
    }

    void badInputGivesSentencesNotACrash_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << QByteArray("{ nope") << "not valid JSON";
        QTest::newRow("array") << QByteArray("[]") << "must be a JSON object";
        QTest::newRow("newer") << QByteArray("{\"version\": 99}") << "newer Switchboard";
        QTest::newRow("wrong type") << QByteArray("{\"settings\": {\"health\": {\"window_s\": \"five\"}}}") << "\"health.window_s\" must be";
        QTest::newRow("negative seconds") << QByteArray("{\"settings\": {\"probe\": {\"interval_s\": -1}}}") << "\"probe.interval_s\" must be";
        QTest::newRow("fraction for int") << QByteArray("{\"settings\": {\"retry\": {\"max_attempts\": 2.5}}}") << "\"retry.max_attempts\" must be";
        QTest::newRow("unknown provider")
            << QByteArray("{\"channels\": [{\"name\": \"x\", \"provider\": \"ghost\", \"upstream_model\": \"m\"}]}") << "provider \"ghost\"";
        QTest::newRow("unknown channel") << QByteArray("{\"routes\": [{\"model\": \"m\", \"channels\": [\"ghost\"]}]}") << "channel \"ghost\"";
        QTest::newRow("bad strategy")
            << QByteArray("{\"routes\": [{\"model\": \"m\", \"strategy\": \"fastest\"}]}") << "unknown strategy \"fastest\"";
        QTest::newRow("missing name") << QByteArray("{\"providers\": [{\"base_url\": \"http://x/v1\"}]}") << "\"name\" is missing";
        QTest::newRow("negative cache price")
            << QByteArray("{\"prices\": [{\"model\": \"m\", \"input_usd_per_1m\": 3, \"cached_input_usd_per_1m\": -0.3}]}")
            << "cannot be negative";
        QTest::newRow("invalid config") << QByteArray("{\"providers\": [{\"name\": \"p\", \"base_url\": \"ftp://x\"}]}") << "not an http(s) URL";
    }

    void badInputGivesSentencesNotACrash()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        const ConfigImport imported = importConfigJson(json);
        QVERIFY(!imported.ok());
        QVERIFY2(imported.errors.join('\n').contains(expected), qPrintable(imported.errors.join('\n')));
    }

    void unknownFieldsAreIgnoredWithAWarning()
    {
        const ConfigImport imported = importConfigJson(QByteArray("{\"colour\": \"blue\", \"settings\": {\"health\": {\"vibes\": 1}}}"));
        QVERIFY(imported.ok());
        QCOMPARE(imported.warnings.size(), 2);
        QVERIFY(imported.warnings.join('\n').contains(QStringLiteral("\"colour\"")));
        QVERIFY(imported.warnings.join('\n').contains(QStringLiteral("health.vibes")));
    }

    void aSettingIsAppliedOnlyWhenValid()
    {
        EngineConfig c;
        QVERIFY(applyEngineSetting(&c, QStringLiteral("breaker.half_open_mode"), QStringLiteral("traffic_share")).isEmpty());
        QCOMPARE(c.breaker.halfOpenMode, HalfOpenMode::TrafficShare);
        QVERIFY(!applyEngineSetting(&c, QStringLiteral("breaker.half_open_mode"), QStringLiteral("sometimes")).isEmpty());
        QCOMPARE(c.breaker.halfOpenMode, HalfOpenMode::TrafficShare);
        QVERIFY(applyEngineSetting(&c, QStringLiteral("no.such"), 1).contains(QStringLiteral("no setting")));
        QCOMPARE(engineSettingKeys().size(), 54);
    }

    void theShippedDefaultConfigFileImports()
    {
        const ConfigImport imported = importConfigFile(test::sourcePath(QStringLiteral("resources/default-config.json")));
        QVERIFY2(imported.ok(), qPrintable(imported.errors.join('\n')));
        QVERIFY(imported.warnings.isEmpty());
        QVERIFY(imported.config.demo);
        QVERIFY(imported.config.route(u"demo") != nullptr);
        QCOMPARE(importConfigFile(QStringLiteral("/nonexistent/x.json")).errors.size(), 1);
    }
};

QTEST_APPLESS_MAIN(tst_ConfigJson)
#include "tst_ConfigJson.moc"
