// What an import will change, as its preview shows it (Settings → Import, switchboard --import):
// providers, channels and routes added, changed and removed by name, settings that move, and where
// each key's secret comes from — the format's rules in "Secrets", including a file from another
// database whose key ids mean other keys here.
#include "model/ConfigDiff.h"
#include "model/ConfigImportPlan.h"
#include "model/ConfigJson.h"

#include "../store/ConfigSamples.h"

#include <QtTest>

using namespace sb;

namespace {

// The file a user edits: an export of `config`, secrets left out unless asked for.
QByteArray fileOf(const EngineConfig &config, bool withSecrets = false)
{
    return exportConfigJson(config, ConfigExportOptions{withSecrets}).toBytes();
}

} // namespace

class tst_ConfigDiff : public QObject {
    Q_OBJECT
private slots:
    void theSameConfigurationChangesNothing()
    {
        const EngineConfig current = test::everyFieldSetConfig();
        const ConfigImportPlan plan = planConfigImport(current, fileOf(current, true));
        QVERIFY2(plan.ok(), qPrintable(plan.errors.join('\n')));
        QVERIFY2(plan.diff.isEmpty(), qPrintable(plan.diff.lines().join('\n')));
        QCOMPARE(plan.diff.keysWithSecret, 3);
    }

    void addedChangedAndRemovedAreNamed()
    {
        const EngineConfig current = test::everyFieldSetConfig();
        EngineConfig edited = current;
        edited.providers[0].baseUrl = QStringLiteral("https://eu.api.openai.com/v1"); // openai-main changed
        edited.providers[1].name = QStringLiteral("claude-eu");                      // renamed: one out, one in
        edited.channels.pop_back();                                                  // mini/A removed
        edited.channels[0].weight = 7;                                               // gpt-4o/A changed
        edited.routes[1].channelIds = {11};                                          // gpt-4o-mini now on gpt-4o/A
        RouteConfig added;
        added.logicalModel = QStringLiteral("fast");
        added.channelIds = {11};
        edited.routes.push_back(added);
        edited.health.window = std::chrono::seconds(120);

        const ConfigDiff diff = diffConfigs(current, edited);
        QCOMPARE(diff.providers.added, QStringList{QStringLiteral("claude-eu")});
        QCOMPARE(diff.providers.removed, QStringList{QStringLiteral("claude")});
        QCOMPARE(diff.providers.changed, QStringList{QStringLiteral("openai-main (base_url)")});
        QCOMPARE(diff.channels.added, QStringList());
        QCOMPARE(diff.channels.removed, QStringList{QStringLiteral("mini/A")});
        // gpt-4o/B names its provider, whose name changed
        QCOMPARE(diff.channels.changed, (QStringList{QStringLiteral("gpt-4o/A (weight)"), QStringLiteral("gpt-4o/B (provider)")}));
        QCOMPARE(diff.routes.added, QStringList{QStringLiteral("fast")});
        QCOMPARE(diff.routes.changed, QStringList{QStringLiteral("gpt-4o-mini (channels)")});
        QCOMPARE(diff.routes.removed, QStringList());
        QCOMPARE(diff.settings, QStringList{QStringLiteral("health.window_s: 301 → 120")});

        const QStringList lines = diff.lines();
        QVERIFY(lines.contains(QStringLiteral("+ provider claude-eu")));
        QVERIFY(lines.contains(QStringLiteral("- provider claude")));
        QVERIFY(lines.contains(QStringLiteral("~ route gpt-4o-mini (channels)")));
        QVERIFY(lines.contains(QStringLiteral("- channel mini/A")));
    }

    void aKeyEditIsAChangeOfItsProvider()
    {
        const EngineConfig current = test::everyFieldSetConfig();
        EngineConfig edited = current;
        edited.providers[1].keys[0].secret = QStringLiteral("sk-ant-api03-NEW-SECRET-0000");
        QCOMPARE(diffConfigs(current, edited).providers.changed, QStringList{QStringLiteral("claude (keys)")});
        edited = current;
        edited.providers[0].keys[1].enabled = true;
        QCOMPARE(diffConfigs(current, edited).providers.changed, QStringList{QStringLiteral("openai-main (keys)")});
    }

    // CONFIG_FORMAT.md, "Secrets": a key without a secret keeps the one stored under its id; keys
    // new to this database must be entered again, and the import says how many.
    void anExportWithoutSecretsKeepsTheStoredOnesOnThisMachine()
    {
        const EngineConfig current = test::everyFieldSetConfig();
        const ConfigImportPlan plan = planConfigImport(current, fileOf(current));
        QVERIFY2(plan.ok(), qPrintable(plan.errors.join('\n')));
        QVERIFY2(plan.diff.providers.isEmpty(), qPrintable(plan.diff.lines().join('\n'))); // the keys are the same keys
        QCOMPARE(plan.diff.keysKept, 3);
        QCOMPARE(plan.diff.keysToEnter, 0);
        QVERIFY(plan.diff.keysSentence().contains(QStringLiteral("3 keeping the secret stored here")));
    }

    void theLocalTokenLeftOutOfAFileIsNamedAsRemoved()
    {
        const EngineConfig current = test::everyFieldSetConfig();
        const ConfigDiff diff = planConfigImport(current, fileOf(current)).diff;
        QVERIFY2(diff.other.join(' ').contains(QStringLiteral("local proxy token is removed")), qPrintable(diff.other.join('\n')));
    }

    void aFileFromAnotherDatabaseDoesNotBorrowItsKeyIds()
    {
        // Here: key 9 is claude's. The file's openai-main has a key 9 of its own, without a secret.
        const EngineConfig current = test::everyFieldSetConfig();
        EngineConfig other = current;
        other.providers = {current.providers[0]};
        other.providers[0].keys = {ApiKeyConfig{9, QStringLiteral("theirs"), {}, true, {}}};
        other.channels = {current.channels[0], current.channels[2]};
        other.routes = {current.routes[1]};
        other.routes[0].channelIds = {13};
        const ConfigImportPlan plan = planConfigImport(current, fileOf(other));
        QVERIFY2(plan.ok(), qPrintable(plan.errors.join('\n')));
        QCOMPARE(plan.diff.keysToEnter, 1);
        QCOMPARE(plan.diff.keysKept, 0);
        QCOMPARE(plan.config.providers[0].keys[0].id, 0); // a new key here, so claude's secret stays claude's
    }

    void aFileThatCannotWorkIsRefusedWithItsSentenceAndNoDiff()
    {
        const EngineConfig current = test::everyFieldSetConfig();
        const ConfigImportPlan plan = planConfigImport(current, QByteArray("{\"routes\": [{\"model\": \"m\", \"channels\": [\"ghost\"]}]}"));
        QVERIFY(!plan.ok());
        QVERIFY2(plan.errors.join(' ').contains(QStringLiteral("ghost")), qPrintable(plan.errors.join('\n')));
        QVERIFY(plan.diff.isEmpty());
        QVERIFY(!planConfigImport(current, QByteArray("not json")).ok());
        QVERIFY(!planConfigImportFile(current, QStringLiteral("/nonexistent/switchboard.json")).ok());
    }
};

QTEST_GUILESS_MAIN(tst_ConfigDiff)
#include "tst_ConfigDiff.moc"
