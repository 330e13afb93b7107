// Configuration that cannot work is refused when it is read, with a sentence that says what to fix
// (CONFIG_FORMAT.md, "What is refused"): an import, a save and `--config` all go through these.
#include "model/ConfigJson.h"
#include "model/DialectRules.h"

#include <QtTest>

using namespace sb;

namespace {

// One provider, one channel, one route, around the provider object given.
QByteArray fileWith(const QByteArray &provider)
{
    return "{\"providers\": [" + provider + "],"
           " \"channels\": [{\"name\": \"c/A\", \"provider\": \"p\", \"upstream_model\": \"m\"}],"
           " \"routes\": [{\"model\": \"m\", \"channels\": [\"c/A\"]}]}";
}

QString errorsOf(const QByteArray &json)
{
    return importConfigJson(json).errors.join(QLatin1Char('\n'));
}

const QString Secret = QStringLiteral("sk-ant-api03-PLAINSTRING-9f8e7d6c");

} // namespace

// (No raw string literals in this file: Qt 6.4's moc stops seeing the test class after one.)
class tst_ConfigRefusals : public QObject {
    Q_OBJECT
private slots:
    void anUnknownDialectIsNamedWithTheKnownOnesAndTheNearOne()
    {
        const QString errors =
            errorsOf(fileWith("{\"name\": \"p\", \"dialect\": \"openai\", \"base_url\": \"https://api.openai.com/v1\"}"));
        QVERIFY2(errors.contains(QStringLiteral("Provider \"p\": unknown dialect \"openai\"; did you mean \"openai_compat\"? "
                                                "The known dialects are openai_compat, anthropic, gemini, dashscope and ernie.")),
                 qPrintable(errors));
    }

    void theNearDialectIsSuggestedForTyposCaseAndVendorNames_data()
    {
        QTest::addColumn<QString>("given");
        QTest::addColumn<QString>("near");
        QTest::newRow("vendor") << "openai" << "openai_compat";
        QTest::newRow("case") << "Anthropic" << "anthropic";
        QTest::newRow("dash") << "openai-compat" << "openai_compat";
        QTest::newRow("typo") << "antrhopic" << "anthropic";
        QTest::newRow("product") << "claude" << "anthropic";
        QTest::newRow("model family") << "qwen" << "dashscope";
        QTest::newRow("prefix") << "gemini_v1" << "gemini";
        QTest::newRow("nothing near") << "mistral" << "";
    }

    void theNearDialectIsSuggestedForTyposCaseAndVendorNames()
    {
        QFETCH(QString, given);
        QFETCH(QString, near);
        QCOMPARE(nearestDialect(given), near);
        const QString sentence = unknownDialectSentence(QStringLiteral("p"), given);
        QVERIFY(sentence.contains(QStringLiteral("unknown dialect \"%1\"").arg(given)));
        QCOMPARE(sentence.contains(QStringLiteral("did you mean")), !near.isEmpty());
        QVERIFY(sentence.contains(QStringLiteral("openai_compat, anthropic, gemini, dashscope and ernie")));
    }

    void aDialectThatNeedsAKeyIsRefusedWithoutOne_data()
    {
        QTest::addColumn<QByteArray>("dialect");
        QTest::addColumn<QByteArray>("url");
        QTest::addColumn<QString>("service");
        QTest::newRow("anthropic") << QByteArray("anthropic") << QByteArray("https://api.anthropic.com/v1") << "Anthropic";
        QTest::newRow("gemini") << QByteArray("gemini") << QByteArray("https://generativelanguage.googleapis.com") << "Gemini";
        QTest::newRow("dashscope") << QByteArray("dashscope") << QByteArray("https://dashscope.aliyuncs.com/api/v1") << "DashScope";
        QTest::newRow("ernie") << QByteArray("ernie") << QByteArray("https://aip.baidubce.com") << "ERNIE (Qianfan)";
    }

    void aDialectThatNeedsAKeyIsRefusedWithoutOne()
    {
        QFETCH(QByteArray, dialect);
        QFETCH(QByteArray, url);
        QFETCH(QString, service);
        const QString errors = errorsOf(fileWith("{\"name\": \"p\", \"dialect\": \"" + dialect + "\", \"base_url\": \"" + url + "\"}"));
        QVERIFY2(errors.contains(QStringLiteral("Provider \"p\" (%1) has no API key").arg(QString::fromLatin1(dialect))),
                 qPrintable(errors));
        QVERIFY(errors.contains(QStringLiteral("%1 refuses every request without one: add a key, or disable the provider").arg(service)));

        // With a key it loads.
        const ConfigImport withKey = importConfigJson(
            fileWith("{\"name\": \"p\", \"dialect\": \"" + dialect + "\", \"base_url\": \"" + url + "\", \"keys\": [\"k-123456789\"]}"));
        QVERIFY2(withKey.ok(), qPrintable(withKey.errors.join('\n')));
    }

    void keylessProvidersThatCanWorkAreAccepted_data()
    {
        QTest::addColumn<QByteArray>("provider");
        // Ollama, vLLM, llama.cpp: an OpenAI-compatible server may need no key, wherever it runs.
        QTest::newRow("openai_compat anywhere")
            << QByteArray("{\"name\": \"p\", \"dialect\": \"openai_compat\", \"base_url\": \"http://gpu-box.lan:8000/v1\"}");
        // The simulator, or a local relay that holds the key itself.
        QTest::newRow("anthropic on loopback")
            << QByteArray("{\"name\": \"p\", \"dialect\": \"anthropic\", \"base_url\": \"http://127.0.0.1:18462/v1\"}");
        QTest::newRow("gemini on localhost")
            << QByteArray("{\"name\": \"p\", \"dialect\": \"gemini\", \"base_url\": \"http://localhost:9000\"}");
        QTest::newRow("ernie on ::1") << QByteArray("{\"name\": \"p\", \"dialect\": \"ernie\", \"base_url\": \"http://[::1]:9000\"}");
        // Set up before its keys arrive.
        QTest::newRow("disabled anthropic")
            << QByteArray("{\"name\": \"p\", \"dialect\": \"anthropic\", \"base_url\": \"https://api.anthropic.com\", \"enabled\": false}");
    }

    void keylessProvidersThatCanWorkAreAccepted()
    {
        QFETCH(QByteArray, provider);
        const ConfigImport imported = importConfigJson(fileWith(provider));
        QVERIFY2(imported.ok(), qPrintable(imported.errors.join('\n')));
        QCOMPARE(imported.config.validateAsWritten(), QStringList());
    }

    void theShippedDemoConfigurationStillLoadsAsWritten()
    {
        const ConfigImport imported = importConfigFile(QStringLiteral(SB_SOURCE_DIR "/resources/default-config.json"));
        QVERIFY2(imported.ok(), qPrintable(imported.errors.join('\n')));
        QCOMPARE(imported.config.validateAsWritten(), QStringList());
    }

    void keysGivenAsPlainStringsAreSecrets()
    {
        const ConfigImport imported = importConfigJson(fileWith(
            "{\"name\": \"p\", \"dialect\": \"anthropic\", \"base_url\": \"https://api.anthropic.com\", \"keys\": [\"" + Secret.toUtf8()
            + "\", {\"label\": \"spare\", \"secret\": \"sk-ant-second-00001111\"}]}"));
        QVERIFY2(imported.ok(), qPrintable(imported.errors.join('\n')));
        const auto &keys = imported.config.providers.at(0).keys;
        QCOMPARE(keys.size(), std::size_t(2));
        QCOMPARE(keys[0].secret, Secret);
        QVERIFY(keys[0].enabled);
        QVERIFY(keys[0].id > 0);
        QVERIFY(keys[0].id != keys[1].id);
        QVERIFY2(!imported.warnings.join('\n').contains(QStringLiteral("no secret")), qPrintable(imported.warnings.join('\n')));
        QCOMPARE(imported.config.validateAsWritten(), QStringList());
    }

    void keysUnderAnotherNameAreRefusedWithoutRepeatingThem_data()
    {
        QTest::addColumn<QByteArray>("provider");
        QTest::addColumn<QString>("expected");
        const QByteArray s = Secret.toUtf8();
        QTest::newRow("api_key on the provider")
            << QByteArray("{\"name\": \"p\", \"dialect\": \"anthropic\", \"base_url\": \"https://api.anthropic.com\", \"api_key\": \"" + s + "\"}")
            << "providers[0]: \"api_key\" is not a field of the format; an API key goes in the provider's \"keys\" list";
        QTest::newRow("secret on the provider")
            << QByteArray("{\"name\": \"p\", \"base_url\": \"https://api.openai.com\", \"secret\": \"" + s + "\"}")
            << "providers[0]: \"secret\" is not a field of the format";
        QTest::newRow("key in a key object")
            << QByteArray("{\"name\": \"p\", \"base_url\": \"https://api.openai.com\", \"keys\": [{\"label\": \"x\", \"key\": \"" + s + "\"}]}")
            << "providers[0].keys[0]: \"key\" is not a field of the format";
        QTest::newRow("keys as one string")
            << QByteArray("{\"name\": \"p\", \"base_url\": \"https://api.openai.com\", \"keys\": \"" + s + "\"}")
            << "providers[0]: \"keys\" must be a list, e.g. \"keys\": [\"<the key>\"].";
        QTest::newRow("an empty string") << QByteArray("{\"name\": \"p\", \"base_url\": \"https://api.openai.com\", \"keys\": [\" \"]}")
                                         << "providers[0].keys[0] is an empty string";
        QTest::newRow("a number") << QByteArray("{\"name\": \"p\", \"base_url\": \"https://api.openai.com\", \"keys\": [42]}")
                                  << "providers[0].keys[0] must be the key as a string or an object with a \"secret\"";
    }

    void keysUnderAnotherNameAreRefusedWithoutRepeatingThem()
    {
        QFETCH(QByteArray, provider);
        QFETCH(QString, expected);
        const ConfigImport imported = importConfigJson(fileWith(provider));
        const QString said = (imported.errors + imported.warnings).join('\n');
        QVERIFY(!imported.ok());
        QVERIFY2(said.contains(expected), qPrintable(said));
        QVERIFY2(!said.contains(Secret), "a sentence repeated the key");
    }

    void aFileRunAsWrittenNeedsTheSecretsItself()
    {
        // An export without secrets imports into a database (the stored secrets stay), but run as
        // written (--config) its Anthropic provider would send no key at all.
        const ConfigImport imported = importConfigJson(fileWith(
            "{\"name\": \"p\", \"dialect\": \"anthropic\", \"base_url\": \"https://api.anthropic.com/v1\","
            " \"keys\": [{\"id\": 3, \"label\": \"team\", \"preview\": \"sk-…a1F3\"}]}"));
        QVERIFY2(imported.ok(), qPrintable(imported.errors.join('\n')));
        const QString problems = imported.config.validateAsWritten().join('\n');
        QVERIFY2(problems.contains(QStringLiteral("Provider \"p\" (anthropic): none of its 1 key(s) is enabled with a secret, and a "
                                                  "configuration file has no stored secrets to fall back on")),
                 qPrintable(problems));

        EngineConfig disabled = imported.config;
        disabled.providers[0].keys[0].secret = Secret;
        disabled.providers[0].keys[0].enabled = false;
        QVERIFY(disabled.validateAsWritten().join('\n').contains(QStringLiteral("none of its 1 key(s) is enabled with a secret")));
        disabled.providers[0].keys[0].enabled = true;
        QCOMPARE(disabled.validateAsWritten(), QStringList());
    }

    void referencesNamesAndAddressesThatCannotWork_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        const QByteArray provider = "{\"name\": \"p\", \"base_url\": \"http://127.0.0.1:9/v1\"}";
        QTest::newRow("channel names an unknown provider")
            << QByteArray("{\"providers\": [" + provider + "], \"channels\": [{\"name\": \"c\", \"provider\": \"ghost\", \"upstream_model\": \"m\"}]}")
            << "Channel \"c\" names provider \"ghost\", which is not in the file.";
        QTest::newRow("route names an unknown channel")
            << QByteArray("{\"routes\": [{\"model\": \"m\", \"channels\": [\"ghost\"]}]}")
            << "Route \"m\" names channel \"ghost\", which is not in the file.";
        QTest::newRow("two providers with one name")
            << QByteArray("{\"providers\": [" + provider + ", " + provider + "]}") << "Two providers are named \"p\"; rename one of them.";
        QTest::newRow("two channels with one name")
            << QByteArray("{\"providers\": [" + provider + "], \"channels\": [{\"name\": \"c\", \"provider\": \"p\", \"upstream_model\": \"m\"},"
                          " {\"name\": \"c\", \"provider\": \"p\", \"upstream_model\": \"n\"}]}")
            << "Two channels are named \"c\"; rename one of them.";
        QTest::newRow("two routes with one model")
            << QByteArray("{\"providers\": [" + provider + "], \"channels\": [{\"name\": \"c\", \"provider\": \"p\", \"upstream_model\": \"m\"}],"
                          " \"routes\": [{\"model\": \"m\", \"channels\": [\"c\"]}, {\"model\": \"m\", \"channels\": [\"c\"]}]}")
            << "Two routes are named \"m\".";
        QTest::newRow("a base URL that is not http")
            << QByteArray("{\"providers\": [{\"name\": \"p\", \"base_url\": \"ftp://files.example.com\"}]}")
            << "Provider \"p\": base URL \"ftp://files.example.com\" is not an http(s) URL with a host";
        QTest::newRow("a base URL without a scheme")
            << QByteArray("{\"providers\": [{\"name\": \"p\", \"base_url\": \"api.openai.com/v1\"}]}")
            << "base URL \"api.openai.com/v1\" is not an http(s) URL with a host";
        QTest::newRow("a base URL with a query")
            << QByteArray("{\"providers\": [{\"name\": \"p\", \"base_url\": \"https://x.openai.azure.com/openai?api-version=1\"}]}")
            << "carries a query or fragment";
        QTest::newRow("an egress proxy that is no URL")
            << QByteArray("{\"providers\": [{\"name\": \"p\", \"base_url\": \"https://api.openai.com\", \"egress_proxy\": \"proxy:3128\"}]}")
            << "Provider \"p\": egress proxy \"proxy:3128\" is not a proxy URL";
        QTest::newRow("a relative CA bundle")
            << QByteArray("{\"providers\": [{\"name\": \"p\", \"base_url\": \"https://llm.internal\", \"ca_bundle\": \"certs/ca.pem\"}]}")
            << "Provider \"p\": CA bundle \"certs/ca.pem\" is not an absolute path";
        QTest::newRow("a CA bundle that is not there")
            << QByteArray("{\"providers\": [{\"name\": \"p\", \"base_url\": \"https://llm.internal\", \"ca_bundle\": \"/nonexistent/ca.pem\"}]}")
            << "Provider \"p\": CA bundle \"/nonexistent/ca.pem\" does not exist or cannot be read";
        QTest::newRow("a CA bundle and no verification")
            << QByteArray("{\"providers\": [{\"name\": \"p\", \"base_url\": \"https://llm.internal\", \"ca_bundle\": \"/etc/hosts\","
                          " \"tls_skip_verify\": true}]}")
            << "a CA bundle and \"skip verification\" contradict each other";
        QTest::newRow("a port out of range") << QByteArray("{\"settings\": {\"proxy\": {\"listen_port\": 70000}}}")
                                             << "The listen port must be between 0 and 65535.";
        QTest::newRow("a negative port") << QByteArray("{\"settings\": {\"proxy\": {\"listen_port\": -1}}}")
                                         << "The listen port must be between 0 and 65535.";
    }

    void referencesNamesAndAddressesThatCannotWork()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        const QString errors = errorsOf(json);
        QVERIFY2(errors.contains(expected), qPrintable(errors));
    }

    void providerProblemsAreSortedApartFromTheRest()
    {
        // A database saved before these were refused may hold them; the engine starts on it (EngineHost)
        // so the console can mend them, while the rest still stops it.
        EngineConfig c;
        ProviderConfig p;
        p.id = 1;
        p.name = QStringLiteral("p");
        p.dialect = QStringLiteral("openai");
        p.baseUrl = QStringLiteral("https://api.openai.com/v1");
        ProviderConfig q = p;
        q.id = 2;
        q.name = QStringLiteral("q");
        q.dialect = QStringLiteral("gemini");
        c.providers = {p, q};
        c.channels = {ChannelConfig{1, QStringLiteral("c"), 1, QStringLiteral("m"), 1.0, true, {}, {}, {}},
                      ChannelConfig{1, QStringLiteral("d"), 2, QStringLiteral("m"), 1.0, true, {}, {}, {}}};
        const ConfigProblems problems = c.problems();
        QCOMPARE(problems.providers.size(), 2);
        QVERIFY(problems.providers[0].contains(QStringLiteral("unknown dialect \"openai\"")));
        QVERIFY(problems.providers[1].contains(QStringLiteral("Provider \"q\" (gemini) has no API key")));
        QCOMPARE(problems.whole, QStringList{QStringLiteral("Channel id 1 is used twice.")});
        QCOMPARE(c.validate(), problems.whole + problems.providers);
    }

    void aProviderBuiltInCodeDefaultsToTheFormatsDialect()
    {
        QCOMPARE(ProviderConfig{}.dialect, QStringLiteral("openai_compat"));
    }

    void onlyThisMachineCountsAsLocal_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("local");
        QTest::newRow("127.0.0.1") << "http://127.0.0.1:18401/v1" << true;
        QTest::newRow("127.x") << "http://127.1.2.3" << true;
        QTest::newRow("localhost") << "http://localhost:11434/v1" << true;
        QTest::newRow("LOCALHOST") << "http://LOCALHOST" << true;
        QTest::newRow("::1") << "http://[::1]:8000" << true;
        QTest::newRow("lan") << "http://192.168.1.5:8000" << false;
        QTest::newRow("lookalike") << "http://127.0.0.1.example.com" << false;
        QTest::newRow("cloud") << "https://api.anthropic.com" << false;
    }

    void onlyThisMachineCountsAsLocal()
    {
        QFETCH(QString, url);
        QFETCH(bool, local);
        QCOMPARE(isLocalBaseUrl(url), local);
    }
};

QTEST_APPLESS_MAIN(tst_ConfigRefusals)
#include "tst_ConfigRefusals.moc"
