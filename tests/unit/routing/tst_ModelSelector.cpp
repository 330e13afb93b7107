// ModelSelector: each rule condition, rule order, the explicit hint winning over the rules, and
// the default rules (small for short plain prompts, large for tools, code and long prompts).
#include "routing/ModelSelector.h"

#include <QJsonArray>
#include <QtTest>

using namespace sb;

namespace {

QJsonObject chat(const QString &userText, const QString &system = {})
{
    QJsonArray messages;
    if (!system.isEmpty())
        messages.append(QJsonObject{{"role", "system"}, {"content", system}});
    messages.append(QJsonObject{{"role", "user"}, {"content", userText}});
    return QJsonObject{{"model", "auto"}, {"messages", messages}};
}

AutoModelConfig twoTiers()
{
    AutoModelConfig c;
    c.tiers = {AutoTier{QStringLiteral("small"), QStringLiteral("gpt-4o-mini")}, AutoTier{QStringLiteral("large"), QStringLiteral("gpt-4o")}};
    return c; // with the default rules
}

QString tierOf(const AutoModelConfig &config, const QJsonObject &body, const QString &hint = {})
{
    QString error;
    const auto choice = ModelSelector(config).choose(body, hint, &error);
    return choice ? choice->tier : QStringLiteral("error: ") + error;
}

} // namespace

class tst_ModelSelector : public QObject {
    Q_OBJECT
private slots:
    void handlesOnlyItsNameAndOnlyWithTiers()
    {
        AutoModelConfig c;
        QVERIFY(!ModelSelector(c).handles(u"auto")); // no tiers: off
        c = twoTiers();
        QVERIFY(ModelSelector(c).handles(u"auto"));
        QVERIFY(!ModelSelector(c).handles(u"gpt-4o"));
        c.modelName = QStringLiteral("router/auto");
        QVERIFY(ModelSelector(c).handles(u"router/auto"));
        QVERIFY(!ModelSelector(c).handles(u"auto"));
    }

    void defaultRules()
    {
        const AutoModelConfig c = twoTiers();
        QCOMPARE(tierOf(c, chat(QStringLiteral("What is the capital of France?"))), QStringLiteral("small"));

        QJsonObject withTools = chat(QStringLiteral("What's the weather in Paris?"));
        withTools.insert("tools", QJsonArray{QJsonObject{{"type", "function"}, {"function", QJsonObject{{"name", "weather"}}}}});
        QCOMPARE(tierOf(c, withTools), QStringLiteral("large"));

        QCOMPARE(tierOf(c, chat(QStringLiteral("Why does this fail?\n```cpp\nint x = nullptr;\n```"))), QStringLiteral("large"));
        QCOMPARE(tierOf(c, chat(QString(9000, QLatin1Char('a')))), QStringLiteral("large")); // ~2,250 tokens
        QCOMPARE(tierOf(c, chat(QString(7000, QLatin1Char('a')))), QStringLiteral("small")); // ~1,750 tokens
    }

    void eachCondition()
    {
        TierRule rule;
        rule.tier = QStringLiteral("large");
        TaskFeatures f;
        QVERIFY(ModelSelector::matches(rule, f)); // no conditions: a catch-all

        rule.minPromptTokens = 100;
        f.promptTokens = 99;
        QVERIFY(!ModelSelector::matches(rule, f));
        f.promptTokens = 100;
        QVERIFY(ModelSelector::matches(rule, f));
        rule.maxPromptTokens = 200;
        f.promptTokens = 201;
        QVERIFY(!ModelSelector::matches(rule, f));
        f.promptTokens = 150;

        rule.tools = FeatureCondition::No;
        f.tools = true;
        QVERIFY(!ModelSelector::matches(rule, f));
        f.tools = false;
        QVERIFY(ModelSelector::matches(rule, f));

        rule.codeBlocks = FeatureCondition::Yes;
        QVERIFY(!ModelSelector::matches(rule, f));
        f.codeBlocks = true;
        QVERIFY(ModelSelector::matches(rule, f));

        rule.keywords = {QStringLiteral("Prove"), QStringLiteral("step by step")};
        f.userText = QStringLiteral("please explain");
        QVERIFY(!ModelSelector::matches(rule, f));
        f.userText = QStringLiteral("Think STEP BY STEP about it"); // case-insensitive, any keyword
        QVERIFY(ModelSelector::matches(rule, f));
    }

    void featuresFromTheRequest()
    {
        QJsonObject body = chat(QStringLiteral("hello"), QStringLiteral("```you are a coding bot```"));
        TaskFeatures f = ModelSelector::features(body);
        QVERIFY(!f.codeBlocks); // the system prompt is not the task
        QVERIFY(!f.tools);
        QCOMPARE(f.promptTokens, (5 + 26 + 3) / 4);
        QCOMPARE(f.userText, QStringLiteral("hello"));

        // Content parts: only the text parts count.
        body = QJsonObject{{"messages", QJsonArray{QJsonObject{
                               {"role", "user"},
                               {"content", QJsonArray{QJsonObject{{"type", "text"}, {"text", "look:"}},
                                                      QJsonObject{{"type", "image_url"}, {"image_url", QJsonObject{{"url", "data:xyz"}}}},
                                                      QJsonObject{{"type", "text"}, {"text", "```\ncode\n```"}}}}}}},
                           {"functions", QJsonArray{QJsonObject{{"name", "f"}}}}};
        f = ModelSelector::features(body);
        QVERIFY(f.codeBlocks);
        QVERIFY(f.tools); // the legacy "functions" count as tools
        QVERIFY(f.userText.contains(QStringLiteral("look:")));
        QVERIFY(!f.userText.contains(QStringLiteral("data:xyz")));
    }

    void codeBlocksByFenceOrIndentation()
    {
        QVERIFY(ModelSelector::hasCodeBlock(QStringLiteral("see ```x```")));
        QVERIFY(ModelSelector::hasCodeBlock(QStringLiteral("Fix this:\n\n    def f():\n        return 1\n")));
        QVERIFY(ModelSelector::hasCodeBlock(QStringLiteral("Fix this:\n\tint a;\n\tint b;")));
        QVERIFY(!ModelSelector::hasCodeBlock(QStringLiteral("Dear team,\n    one indented line\nthanks")));
        QVERIFY(!ModelSelector::hasCodeBlock(QStringLiteral("plain words, no code")));
        QVERIFY(!ModelSelector::hasCodeBlock(QStringLiteral("    \n    \n"))); // blank indented lines are not code
    }

    void firstMatchingRuleWins()
    {
        AutoModelConfig c = twoTiers();
        c.tiers.push_back(AutoTier{QStringLiteral("reasoning"), QStringLiteral("o1")});
        TierRule reasoning;
        reasoning.tier = QStringLiteral("reasoning");
        reasoning.keywords = {QStringLiteral("prove")};
        TierRule small;
        small.tier = QStringLiteral("small");
        small.maxPromptTokens = 50;
        TierRule rest;
        rest.tier = QStringLiteral("large");
        c.rules = {reasoning, small, rest};
        QCOMPARE(tierOf(c, chat(QStringLiteral("Prove it."))), QStringLiteral("reasoning")); // short, but rule 1 comes first
        QCOMPARE(tierOf(c, chat(QStringLiteral("Hi."))), QStringLiteral("small"));
        QCOMPARE(tierOf(c, chat(QString(400, QLatin1Char('x')))), QStringLiteral("large"));
        c.rules = {small, reasoning, rest};
        QCOMPARE(tierOf(c, chat(QStringLiteral("Prove it."))), QStringLiteral("small")); // order is the policy

        QString error;
        const auto choice = ModelSelector(c).choose(chat(QStringLiteral("Hi.")), {}, &error);
        QVERIFY(choice);
        QCOMPARE(choice->model, QStringLiteral("gpt-4o-mini"));
        QCOMPARE(choice->reason, QStringLiteral("rule 1"));
    }

    void explicitHintWins()
    {
        AutoModelConfig c = twoTiers();
        QJsonObject withTools = chat(QStringLiteral("x"));
        withTools.insert("tools", QJsonArray{QJsonObject{{"type", "function"}}});
        QCOMPARE(tierOf(c, withTools, QStringLiteral("small")), QStringLiteral("small")); // header
        QCOMPARE(tierOf(c, withTools, QStringLiteral(" SMALL ")), QStringLiteral("small")); // case and spaces
        QJsonObject hinted = chat(QStringLiteral("hi"));
        hinted.insert("metadata", QJsonObject{{"tier", "large"}, {"user", "42"}});
        QCOMPARE(tierOf(c, hinted), QStringLiteral("large")); // metadata.tier
        QCOMPARE(tierOf(c, hinted, QStringLiteral("small")), QStringLiteral("small")); // the header before metadata

        QString error;
        QVERIFY(!ModelSelector(c).choose(chat(QStringLiteral("hi")), QStringLiteral("huge"), &error));
        QVERIFY2(error.contains(QStringLiteral("no tier \"huge\"")) && error.contains(QStringLiteral("small, large")), qPrintable(error));

        c.allowHints = false;
        QCOMPARE(tierOf(c, hinted, QStringLiteral("huge")), QStringLiteral("small")); // hints ignored, rules decide
    }

    void noMatchingRuleIsAnError()
    {
        AutoModelConfig c = twoTiers();
        TierRule onlyTools;
        onlyTools.tier = QStringLiteral("large");
        onlyTools.tools = FeatureCondition::Yes;
        c.rules = {onlyTools};
        QString error;
        QVERIFY(!ModelSelector(c).choose(chat(QStringLiteral("hi")), {}, &error));
        QVERIFY(error.contains(QStringLiteral("catch-all")));
    }

    void theHintIsRemovedBeforeForwarding()
    {
        QJsonObject body = chat(QStringLiteral("hi"));
        body.insert("metadata", QJsonObject{{"tier", "large"}, {"user", "42"}});
        ModelSelector::removeHint(&body);
        QCOMPARE(body.value("metadata").toObject(), (QJsonObject{{"user", "42"}}));
        body.insert("metadata", QJsonObject{{"tier", "large"}});
        ModelSelector::removeHint(&body);
        QVERIFY(!body.contains("metadata"));
    }

    void validationSentences()
    {
        const QStringList routes{QStringLiteral("gpt-4o"), QStringLiteral("gpt-4o-mini")};
        QVERIFY(AutoModelConfig().validate(routes).isEmpty()); // off by default: nothing to check
        QVERIFY(twoTiers().validate(routes).isEmpty());

        AutoModelConfig c = twoTiers();
        c.tiers[1].model = QStringLiteral("gpt-5");
        c.rules.push_back(TierRule{QStringLiteral("medium"), -1, -1, FeatureCondition::Any, FeatureCondition::Any, {}});
        c.modelName = QStringLiteral("gpt-4o");
        const QString all = c.validate(routes).join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("routes to \"gpt-5\", which is not a configured route")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("picks tier \"medium\"")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("same name as a route")), qPrintable(all));
    }
};

QTEST_APPLESS_MAIN(tst_ModelSelector)
#include "tst_ModelSelector.moc"
