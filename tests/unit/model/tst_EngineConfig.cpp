#include "model/EngineConfig.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;

namespace {
EngineConfig twoChannelConfig()
{
    EngineConfig c;
    ProviderConfig a;
    a.id = 1;
    a.name = QStringLiteral("openai-main");
    a.dialect = QStringLiteral("openai_compat");
    a.baseUrl = QStringLiteral("https://api.openai.com/v1");
    a.domain.account = QStringLiteral("acct-1");
    ProviderConfig b = a;
    b.id = 2;
    b.name = QStringLiteral("openai-backup");
    b.domain.account = QStringLiteral("acct-2");
    c.providers = {a, b};
    c.channels = {ChannelConfig{1, QStringLiteral("gpt-4o/A"), 1, QStringLiteral("gpt-4o"), 1.0, true, {}, {}, {}},
                  ChannelConfig{2, QStringLiteral("gpt-4o/B"), 2, QStringLiteral("gpt-4o"), 1.0, true, {}, QStringLiteral("eu-west"), {}}};
    RouteConfig r;
    r.id = 1;
    r.logicalModel = QStringLiteral("gpt-4o");
    r.channelIds = {1, 2};
    c.routes = {r};
    return c;
}
} // namespace

class tst_EngineConfig : public QObject {
    Q_OBJECT
private slots:
    void aWellFormedConfigHasNoProblems()
    {
        QCOMPARE(twoChannelConfig().validate(), QStringList());
    }

    void reportsEveryProblemAsASentence()
    {
        EngineConfig c = twoChannelConfig();
        c.providers[1].name = c.providers[0].name;
        c.providers[0].baseUrl = QStringLiteral("ftp://nowhere");
        c.channels[1].providerId = 99;
        c.routes[0].fallbackModels << QStringLiteral("claude");
        c.health.ejectBelow = 60;
        const QStringList problems = c.validate();
        QCOMPARE(problems.size(), 5);
        QVERIFY(problems.join('\n').contains(QStringLiteral("Two providers are named \"openai-main\"")));
        QVERIFY(problems.join('\n').contains(QStringLiteral("not an http(s) URL")));
        QVERIFY(problems.join('\n').contains(QStringLiteral("provider id 99")));
        QVERIFY(problems.join('\n').contains(QStringLiteral("falls back to \"claude\"")));
        QVERIFY(problems.join('\n').contains(QStringLiteral("ejection threshold")));
    }

    void theResponsesApiFlagIsForOpenAiCompatibleProvidersOnly()
    {
        EngineConfig c = twoChannelConfig();
        c.providers[0].dialect = QStringLiteral("openai_compat");
        c.providers[0].responsesApi = true;
        QCOMPARE(c.validate(), QStringList());
        c.providers[0].dialect = QStringLiteral("anthropic");
        // (An Anthropic provider without keys is a problem of its own; only the flag's is looked for.)
        const QStringList problems = c.validate().filter(QStringLiteral("Responses API"));
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.first().contains(QStringLiteral("anthropic")), qPrintable(problems.first()));
    }

    void aProvidersCaBundleMustBeAReadableAbsolutePath()
    {
        EngineConfig c = twoChannelConfig();
        QTemporaryDir dir;
        const QString bundle = dir.filePath(QStringLiteral("corp-ca.pem"));
        QFile file(bundle);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("-----BEGIN CERTIFICATE-----\n");
        file.close();
        c.providers[0].caBundle = bundle;
        QCOMPARE(c.validate(), QStringList()); // read as certificates only when a connection needs them
        c.providers[0].caBundle = QStringLiteral("corp-ca.pem");
        QCOMPARE(c.problems().providers.filter(QStringLiteral("not an absolute path")).size(), 1);
        c.providers[0].caBundle = dir.filePath(QStringLiteral("gone.pem"));
        QCOMPARE(c.problems().providers.filter(QStringLiteral("does not exist or cannot be read")).size(), 1);
        c.providers[0].caBundle = bundle;
        c.providers[0].tlsSkipVerify = true;
        QCOMPARE(c.problems().providers.filter(QStringLiteral("contradict each other")).size(), 1);
        c.providers[0].caBundle.clear();
        QCOMPARE(c.validate(), QStringList()); // skipping verification is allowed: a provider's own choice
    }

    void channelDomainOverridesProviderLabels()
    {
        const EngineConfig c = twoChannelConfig();
        const FailureDomain a = c.domainOf(c.channels[0]);
        const FailureDomain b = c.domainOf(c.channels[1]);
        QCOMPARE(a.account, QStringLiteral("acct-1"));
        QCOMPARE(b.account, QStringLiteral("acct-2"));
        QCOMPARE(b.region, QStringLiteral("eu-west"));
        QVERIFY(!a.sharesAnyWith(b));
        FailureDomain sameAccount = b;
        sameAccount.account = a.account;
        QVERIFY(a.sharesAnyWith(sameAccount));
        QVERIFY(!FailureDomain{}.sharesAnyWith(FailureDomain{})); // empty labels are no shared domain
    }

    void breakerPresetsMatchTheMission()
    {
        BreakerConfig relay, launch;
        QVERIFY(BreakerConfig::fromPreset(u"relay", &relay));
        QVERIFY(BreakerConfig::fromPreset(u"launch-day", &launch));
        QVERIFY(!BreakerConfig::fromPreset(u"nonsense", &relay));
        QCOMPARE(relay.consecutiveFailures, 5);
        QCOMPARE(relay.openDuration, std::chrono::seconds(60));
        QCOMPARE(relay.halfOpenMode, HalfOpenMode::TrialCalls);
        QCOMPARE(relay.halfOpenMaxTrials, 3);
        QCOMPARE(launch.failureRateThreshold, 0.20);
        QCOMPARE(launch.rateWindow, std::chrono::seconds(5));
        QCOMPARE(launch.openDuration, std::chrono::seconds(120));
        QCOMPARE(launch.halfOpenMode, HalfOpenMode::TrafficShare);
        QCOMPARE(launch.halfOpenTrafficShare, 0.05);
        QCOMPARE(launch.successesToClose, 3);
    }
};

QTEST_APPLESS_MAIN(tst_EngineConfig)
#include "tst_EngineConfig.moc"
