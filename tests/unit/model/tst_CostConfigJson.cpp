// Budgets and the task-based model in the configuration JSON: export → import keeps every field,
// the default rules stand when a file leaves them out, and bad values are errors that name the field.
#include "model/ConfigJson.h"
#include "model/CostConfigJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;

namespace {

EngineConfig baseConfig()
{
    EngineConfig c;
    ProviderConfig p;
    p.id = 1;
    p.name = QStringLiteral("openai");
    p.baseUrl = QStringLiteral("https://api.openai.com/v1");
    c.providers = {p};
    c.channels = {ChannelConfig{1, QStringLiteral("big/A"), 1, QStringLiteral("gpt-4o"), 1.0, true, {}, {}, {}},
                  ChannelConfig{2, QStringLiteral("small/A"), 1, QStringLiteral("gpt-4o-mini"), 1.0, true, {}, {}, {}}};
    RouteConfig big;
    big.id = 1;
    big.logicalModel = QStringLiteral("gpt-4o");
    big.channelIds = {1};
    RouteConfig small;
    small.id = 2;
    small.logicalModel = QStringLiteral("gpt-4o-mini");
    small.channelIds = {2};
    c.routes = {big, small};
    return c;
}

EngineConfig costConfig()
{
    EngineConfig c = baseConfig();
    c.budgets = {BudgetConfig{QStringLiteral("gpt-4o"), BudgetPeriod::Month, 40.0, 50.0},
                 BudgetConfig{QStringLiteral("gpt-4o-mini"), BudgetPeriod::Day, 1.5, 0.0}};
    c.autoModel.modelName = QStringLiteral("smart");
    c.autoModel.allowHints = false;
    c.autoModel.tiers = {AutoTier{QStringLiteral("small"), QStringLiteral("gpt-4o-mini")}, AutoTier{QStringLiteral("large"), QStringLiteral("gpt-4o")}};
    TierRule keywords{QStringLiteral("large"), 10, 5000, FeatureCondition::No, FeatureCondition::Yes, {QStringLiteral("prove"), QStringLiteral("Refactor")}};
    TierRule rest;
    rest.tier = QStringLiteral("small");
    c.autoModel.rules = {keywords, rest};
    return c;
}

ConfigImport reimport(const QJsonObject &json)
{
    return importConfigJson(QJsonDocument(json).toJson());
}

} // namespace

class tst_CostConfigJson : public QObject {
    Q_OBJECT
private slots:
    void roundTripKeepsEveryField()
    {
        const EngineConfig in = costConfig();
        QVERIFY2(in.validate().isEmpty(), qPrintable(in.validate().join(' ')));
        const ConfigImport out = reimport(exportConfigJson(in).json);
        QVERIFY2(out.ok(), qPrintable(out.errors.join(' ')));
        QVERIFY2(out.warnings.isEmpty(), qPrintable(out.warnings.join(' ')));
        QCOMPARE(out.config.budgets.size(), std::size_t(2));
        for (std::size_t i = 0; i < 2; ++i) {
            QCOMPARE(out.config.budgets[i].model, in.budgets[i].model);
            QCOMPARE(out.config.budgets[i].period, in.budgets[i].period);
            QCOMPARE(out.config.budgets[i].softLimitUsd, in.budgets[i].softLimitUsd);
            QCOMPARE(out.config.budgets[i].hardLimitUsd, in.budgets[i].hardLimitUsd);
        }
        const AutoModelConfig &a = out.config.autoModel;
        QCOMPARE(a.modelName, QStringLiteral("smart"));
        QCOMPARE(a.allowHints, false);
        QCOMPARE(a.tiers.size(), std::size_t(2));
        QCOMPARE(a.tiers[1].name, QStringLiteral("large"));
        QCOMPARE(a.tiers[1].model, QStringLiteral("gpt-4o"));
        QVERIFY(a.rules == in.autoModel.rules);
    }

    void handWrittenFileGetsTheDefaultRules()
    {
        QJsonObject json = exportConfigJson(baseConfig()).json;
        json.insert("auto_model", QJsonObject{{"tiers", QJsonArray{QJsonObject{{"name", "small"}, {"model", "gpt-4o-mini"}},
                                                                   QJsonObject{{"name", "large"}, {"model", "gpt-4o"}}}}});
        json.insert("budgets", QJsonArray{QJsonObject{{"model", "gpt-4o"}, {"hard_limit_usd", 5}}});
        const ConfigImport out = reimport(json);
        QVERIFY2(out.ok(), qPrintable(out.errors.join(' ')));
        QCOMPARE(out.config.autoModel.modelName, QStringLiteral("auto"));
        QVERIFY(out.config.autoModel.allowHints);
        QVERIFY(out.config.autoModel.rules == AutoModelConfig::defaultRules());
        QCOMPARE(out.config.budgets[0].period, BudgetPeriod::Day);
        QCOMPARE(out.config.budgets[0].softLimitUsd, 0.0);
        QCOMPARE(out.config.budgets[0].hardLimitUsd, 5.0);

        // Without an auto_model object the task-based model is simply off.
        const ConfigImport plain = reimport(exportConfigJson(baseConfig()).json);
        QVERIFY(plain.ok());
        QVERIFY(!plain.config.autoModel.enabled());
    }

    void badValuesAreErrorsThatNameTheField_data()
    {
        QTest::addColumn<QString>("patch");
        QTest::addColumn<QString>("expected");
        QTest::newRow("negative limit") << R"({"budgets":[{"model":"gpt-4o","soft_limit_usd":-1}]})" << "budgets[0]: \"soft_limit_usd\"";
        QTest::newRow("bad period") << R"({"budgets":[{"model":"gpt-4o","period":"week"}]})" << "\"day\" or \"month\"";
        QTest::newRow("budget for no route") << R"({"budgets":[{"model":"gpt-5","hard_limit_usd":1}]})" << "names no configured route";
        QTest::newRow("two budgets") << R"({"budgets":[{"model":"gpt-4o"},{"model":"gpt-4o"}]})" << "has two budgets";
        QTest::newRow("soft above hard") << R"({"budgets":[{"model":"gpt-4o","soft_limit_usd":9,"hard_limit_usd":5}]})" << "above the hard stop";
        QTest::newRow("tools not bool") << R"({"auto_model":{"tiers":[{"name":"s","model":"gpt-4o"}],"rules":[{"tier":"s","tools":"yes"}]}})"
                                        << "auto_model.rules[0]: \"tools\"";
        QTest::newRow("keywords not strings") << R"({"auto_model":{"rules":[{"tier":"s","keywords":[1]}]}})" << "\"keywords\"";
        QTest::newRow("fraction of a token") << R"({"auto_model":{"rules":[{"tier":"s","min_prompt_tokens":1.5}]}})" << "\"min_prompt_tokens\"";
        QTest::newRow("tier to no route") << R"({"auto_model":{"tiers":[{"name":"s","model":"nope"}],"rules":[{"tier":"s"}]}})"
                                          << "which is not a configured route";
        QTest::newRow("auto not an object") << R"({"auto_model":[]})" << "\"auto_model\" must be an object";
    }

    void badValuesAreErrorsThatNameTheField()
    {
        QFETCH(QString, patch);
        QFETCH(QString, expected);
        QJsonObject json = exportConfigJson(baseConfig()).json;
        const QJsonObject extra = QJsonDocument::fromJson(patch.toUtf8()).object();
        for (auto it = extra.begin(); it != extra.end(); ++it)
            json.insert(it.key(), it.value());
        const ConfigImport out = reimport(json);
        QVERIFY(!out.ok());
        QVERIFY2(out.errors.join('\n').contains(expected), qPrintable(out.errors.join('\n')));
    }

    void unknownFieldsWarn()
    {
        QJsonObject json = exportConfigJson(baseConfig()).json;
        json.insert("budgets", QJsonArray{QJsonObject{{"model", "gpt-4o"}, {"limit", 3}}});
        const ConfigImport out = reimport(json);
        QVERIFY(out.ok());
        QVERIFY2(out.warnings.join('\n').contains(QStringLiteral("budgets[0]: unknown field \"limit\"")), qPrintable(out.warnings.join('\n')));
    }
};

QTEST_APPLESS_MAIN(tst_CostConfigJson)
#include "tst_CostConfigJson.moc"
