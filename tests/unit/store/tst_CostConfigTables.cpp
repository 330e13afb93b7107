// Budgets and the task-based model survive a save and a load through the real SQLite tables, and
// the request history keeps whether a cost is known and which tier `auto` chose.
#include "store/ConfigRepository.h"
#include "store/Database.h"
#include "store/DatabaseSecretStore.h"
#include "store/HistoryReader.h"
#include "store/HistoryWriter.h"

#include "FakeClock.h"

#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;

namespace {

EngineConfig costConfig()
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
    c.budgets = {BudgetConfig{QStringLiteral("gpt-4o"), BudgetPeriod::Month, 40.0, 50.0},
                 BudgetConfig{QStringLiteral("gpt-4o-mini"), BudgetPeriod::Day, 1.5, 0.0}};
    c.autoModel.modelName = QStringLiteral("smart");
    c.autoModel.allowHints = false;
    c.autoModel.tiers = {AutoTier{QStringLiteral("small"), QStringLiteral("gpt-4o-mini")}, AutoTier{QStringLiteral("large"), QStringLiteral("gpt-4o")}};
    c.autoModel.rules = {TierRule{QStringLiteral("large"), 10, 5000, FeatureCondition::No, FeatureCondition::Yes,
                                  {QStringLiteral("prove"), QStringLiteral("naïve \"quoted\"")}},
                         TierRule{QStringLiteral("small"), -1, -1, FeatureCondition::Any, FeatureCondition::Any, {}}};
    return c;
}

struct Fixture {
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("switchboard.db"));
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

class tst_CostConfigTables : public QObject {
    Q_OBJECT
private slots:
    void budgetsAndTiersSurviveSaveAndLoad()
    {
        Fixture f;
        const EngineConfig in = costConfig();
        const auto saved = f.repo.save(in);
        QVERIFY2(saved.ok(), qPrintable(saved.errors.join(' ')));
        QString error;
        const EngineConfigPtr out = f.repo.load(&error);
        QVERIFY2(out, qPrintable(error));
        QCOMPARE(out->budgets.size(), std::size_t(2));
        QCOMPARE(out->budgets[0].model, QStringLiteral("gpt-4o"));
        QCOMPARE(out->budgets[0].period, BudgetPeriod::Month);
        QCOMPARE(out->budgets[0].softLimitUsd, 40.0);
        QCOMPARE(out->budgets[0].hardLimitUsd, 50.0);
        QCOMPARE(out->budgets[1].period, BudgetPeriod::Day);
        QCOMPARE(out->autoModel.modelName, QStringLiteral("smart"));
        QCOMPARE(out->autoModel.allowHints, false);
        QCOMPARE(out->autoModel.tiers.size(), std::size_t(2));
        QCOMPARE(out->autoModel.tiers[0].model, QStringLiteral("gpt-4o-mini"));
        QVERIFY(out->autoModel.rules == in.autoModel.rules);

        // A second save with fewer rows replaces, never appends.
        EngineConfig fewer = in;
        fewer.budgets.pop_back();
        fewer.autoModel.rules = {in.autoModel.rules.back()};
        QVERIFY(f.repo.save(fewer).ok());
        const EngineConfigPtr again = f.repo.load();
        QCOMPARE(again->budgets.size(), std::size_t(1));
        QCOMPARE(again->autoModel.rules.size(), std::size_t(1));
    }

    void aDatabaseSavedBeforeTheTablesKeepsTheDefaultRules()
    {
        Fixture f;
        EngineConfig c = costConfig();
        c.budgets.clear();
        c.autoModel = AutoModelConfig{};
        QVERIFY(f.repo.save(c).ok());
        // As an older build would have left it: no auto.* meta rows.
        QVERIFY(f.repo.database().exec(QStringLiteral("DELETE FROM meta WHERE key LIKE 'auto.%'")));
        const EngineConfigPtr out = f.repo.load();
        QVERIFY(out);
        QVERIFY(out->autoModel.rules == AutoModelConfig::defaultRules());
        QCOMPARE(out->autoModel.modelName, QStringLiteral("auto"));
        QVERIFY(!out->autoModel.enabled());
    }

    void historyKeepsUnknownCostAndTheTier()
    {
        Fixture f;
        HistoryWriter writer(f.path, f.clock);
        QString error;
        QVERIFY2(writer.start(&error), qPrintable(error));
        RequestRecord priced;
        priced.requestId = QStringLiteral("a");
        priced.timeMs = f.clock.wallMillis();
        priced.logicalModel = QStringLiteral("gpt-4o-mini");
        priced.costUsd = 0.25;
        priced.autoTier = QStringLiteral("small");
        RequestRecord unpriced = priced;
        unpriced.requestId = QStringLiteral("b");
        unpriced.timeMs += 1;
        unpriced.costUsd = 0.0;
        unpriced.costKnown = false;
        unpriced.autoTier.clear();
        QVERIFY(writer.enqueue(priced));
        QVERIFY(writer.enqueue(unpriced));
        writer.flush();
        writer.stop();

        HistoryReader reader(f.path);
        QVERIFY(reader.open());
        const auto rows = reader.requests({}); // newest first
        QCOMPARE(rows.size(), std::size_t(2));
        QCOMPARE(rows[0].requestId, QStringLiteral("b"));
        QVERIFY(!rows[0].costKnown);
        QVERIFY(rows[0].autoTier.isEmpty());
        QVERIFY(rows[1].costKnown);
        QCOMPARE(rows[1].autoTier, QStringLiteral("small"));
        QCOMPARE(rows[1].costUsd, 0.25);
    }

    void oldRequestRowsReadAsKnownCostAndNoTier()
    {
        // A version-1 database with a request row, then opened by this build: the migration adds the
        // columns with defaults that say what version 1 meant.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("old.db"));
        {
            Database db(path, QStringLiteral("v1"));
            std::vector<Migration> v1 = {Database::migrations().front()};
            QString error;
            QVERIFY2(db.open(v1, &error), qPrintable(error));
            QVERIFY(db.exec(QStringLiteral("INSERT INTO requests (time_ms, request_id, logical_model, channel_id, channel_name, status, outcome,"
                                           " http_status, ttft_ms, latency_ms, input_tokens, output_tokens, cost_usd, failover, cache_hit,"
                                           " streamed, error, attempts) VALUES (1, 'old', 'gpt-4o', 1, 'A', 'ok', 'success', 200, 1, 1,"
                                           " 10, 10, 0.5, 0, 0, 0, '', '[]')")));
        }
        HistoryReader reader(path);
        QString error;
        QVERIFY2(reader.open(&error), qPrintable(error));
        const auto rows = reader.requests({});
        QCOMPARE(rows.size(), std::size_t(1));
        QVERIFY(rows[0].costKnown);
        QVERIFY(rows[0].autoTier.isEmpty());
        QCOMPARE(rows[0].costUsd, 0.5);
    }
};

QTEST_GUILESS_MAIN(tst_CostConfigTables)
#include "tst_CostConfigTables.moc"
