// Spend survives a restart: an EngineHost on a real SQLite file serves priced requests, stops, and a
// second EngineHost on the same file starts with the same spend — so a spent hard budget still
// refuses after the restart instead of granting a fresh allowance.
#include "sim/FakeProvider.h"
#include "FakeProviderSpecs.h"
#include "HeadlessHost.h"
#include "ProxyClient.h"
#include "ProxyConfigs.h"

#include <QtTest>
#include <QTemporaryDir>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

class tst_CostPersistence : public QObject {
    Q_OBJECT

private:
    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{7};
    ProxyClient m_client;

    int chat(EngineHost &host)
    {
        return m_client.postChat(host.gateway()->port(), chatBody(std::nullopt, QStringLiteral("m"), QStringLiteral("Count to three."))).status;
    }

private slots:
    void spendAndHardStopSurviveARestart()
    {
        ScenarioClock scenarioClock(m_clock, 1.0);
        ProviderSpec spec = fakeProviderSpec(QStringLiteral("up"));
        spec.models = {QStringLiteral("up-model")};
        spec.completionTokens = 20;
        FakeProvider provider(spec, scenarioClock, m_random);
        QString error;
        QVERIFY2(provider.start(&error), qPrintable(error));

        EngineConfig config = *oneChannelConfig(QStringLiteral("up"), provider.baseUrl(), QStringLiteral("m"));
        config.channels.front().upstreamModel = QStringLiteral("up-model");
        config.prices = {ModelPrice{QStringLiteral("up-model"), 1000.0, 1000.0}}; // $0.001 a token: easy to see
        // Three requests of ~30 tokens each fit under $0.2; the hard stop comes with the third.
        config.budgets = {BudgetConfig{QStringLiteral("m"), BudgetPeriod::Month, 0.0, 0.2}};
        QVERIFY2(config.validate().isEmpty(), qPrintable(config.validate().join(' ')));

        QTemporaryDir dir;
        const EngineHost::Options options = headlessOptions(dir.path());
        QVERIFY(writeConfigFile(options.configPath, config));

        double spentBefore = 0.0;
        {
            EngineHost host(m_clock, m_random);
            QVERIFY2(host.start(options, &error), qPrintable(error));
            QCOMPARE(host.gateway()->context().costMeter().spent(QStringLiteral("m"), BudgetPeriod::Month, m_clock.wallMillis()), 0.0);
            int served = 0;
            while (chat(host) == 200)
                QVERIFY(++served < 20);
            QVERIFY2(served >= 2, qPrintable(QString::number(served))); // the budget allowed some, then stopped
            spentBefore = host.gateway()->context().costMeter().spent(QStringLiteral("m"), BudgetPeriod::Month, m_clock.wallMillis());
            QVERIFY(spentBefore >= 0.2);
            host.stop(500ms); // drains the history writer
        }
        {
            EngineHost host(m_clock, m_random);
            QVERIFY2(host.start(options, &error), qPrintable(error));
            const double spentAfter = host.gateway()->context().costMeter().spent(QStringLiteral("m"), BudgetPeriod::Month, m_clock.wallMillis());
            QVERIFY2(qAbs(spentAfter - spentBefore) < 1e-9, qPrintable(QStringLiteral("%1 vs %2").arg(spentAfter).arg(spentBefore)));
            QVERIFY(qAbs(host.gateway()->context().costMeter().stats(m_clock.wallMillis()).todayUsd - spentBefore) < 1e-9);
            QCOMPARE(chat(host), 429); // still spent after the restart
            host.stop(500ms);
        }
    }
};

QTEST_GUILESS_MAIN(tst_CostPersistence)
#include "tst_CostPersistence.moc"
