// The Drills page against a real Gateway: the shipped launch-day drill runs through
// the page at a high time scale, the report appears with its figures beside their targets, the
// configuration that ran before is back afterwards, a cancelled drill restores it too, and the
// first-start offer asks for launch-day. Saves SB_TEST_ARTIFACTS/drills-report.png.

#include "TestPaths.h"
#include "drills/DrillOffer.h"
#include "drills/DrillsPage.h"
#include "control/Gateway.h"

#include <QComboBox>
#include <QListWidget>
#include <QPushButton>
#include <QStyleFactory>
#include <QTableWidget>
#include <QtTest>

using namespace sb;
using namespace std::chrono_literals;

namespace {

// The user's configuration while no drill runs: one provider nobody calls during the test.
EngineConfigPtr userConfig()
{
    auto c = std::make_shared<EngineConfig>();
    c->proxy.listenPort = 0;
    ProviderConfig p;
    p.id = 1;
    p.name = QStringLiteral("user-provider");
    p.dialect = QStringLiteral("openai_compat");
    p.baseUrl = QStringLiteral("http://127.0.0.1:9/v1");
    p.keys = {ApiKeyConfig{1, QStringLiteral("user key"), QStringLiteral("sk-user-secret-0001"), true, {}}};
    c->providers = {p};
    ChannelConfig ch;
    ch.id = 1;
    ch.name = QStringLiteral("user-channel");
    ch.providerId = 1;
    ch.upstreamModel = QStringLiteral("user-model");
    c->channels = {ch};
    RouteConfig r;
    r.id = 1;
    r.logicalModel = QStringLiteral("user-model");
    r.channelIds = {1};
    c->routes = {r};
    return c;
}

QString figure(const QTableWidget *table, const QString &name, int column)
{
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->item(row, 0) && table->item(row, 0)->text() == name)
            return table->item(row, column) ? table->item(row, column)->text() : QString();
    return QString();
}

bool hasChannel(const EngineConfigPtr &config, const QString &name)
{
    for (const auto &c : config->channels)
        if (c.name == name)
            return true;
    return false;
}

} // namespace

class tst_DrillsPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    }

    void listsTheShippedDrillsLaunchDayFirst()
    {
        DrillsPage page;
        const QStringList names = page.drillNames();
        QCOMPARE(names.value(0), QStringLiteral("launch-day"));
        for (const char *name : {"body-429-storm", "flapping-primary", "key-exhaustion", "slow-ttft", "hanging-primary", "stream-rescue",
                                 "tool-call-rescue"})
            QVERIFY2(names.contains(QLatin1String(name)), name);
        QCOMPARE(page.drillList()->count(), names.size());
        QVERIFY(page.drillList()->item(0)->text().contains(QStringLiteral("5 min")));
        // No engine: nothing to run, and the page says why instead of failing later.
        QVERIFY(!page.runButton()->isEnabled());
        QString error;
        QVERIFY(!page.runDrill(QStringLiteral("launch-day"), 10.0, &error));
        QVERIFY(error.contains(QStringLiteral("engine is not running")));
    }

    void launchDayRunsThroughThePageAndReports()
    {
        const EngineConfigPtr original = userConfig();
        SplitMixRandom random(7);
        Gateway gateway(SystemClock::instance(), random, original);
        QString error;
        QVERIFY2(gateway.start(&error), qPrintable(error));

        DrillsPage page;
        page.resize(1280, 860);
        page.attach(&gateway);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(page.runButton()->isEnabled());
        QSignalSpy finished(&page, &DrillsPage::drillFinished);

        // x20: the five-minute drill in 15 s.
        QVERIFY2(page.runDrill(QStringLiteral("launch-day"), 20.0, &error), qPrintable(error));
        QVERIFY(page.isRunning());
        QVERIFY(!page.runButton()->isEnabled());
        QVERIFY(page.cancelButton()->isEnabled());
        QVERIFY(!page.runDrill(QStringLiteral("slow-ttft"), 10.0, &error));
        QVERIFY(error.contains(QStringLiteral("still running")));
        // The drill's configuration is live in the engine while it runs, and progress comes in.
        QTRY_VERIFY_WITH_TIMEOUT(hasChannel(gateway.config(), QStringLiteral("primary")), 10'000);
        QVERIFY(!hasChannel(gateway.config(), QStringLiteral("user-channel")));
        QTRY_VERIFY_WITH_TIMEOUT(page.progressText().contains(QStringLiteral("requests sent"))
                                     && !page.progressText().contains(QStringLiteral(" 0 requests sent")),
                                 10'000);

        QVERIFY(finished.wait(120'000));
        QCOMPARE(finished.first().at(0).toString(), QStringLiteral("launch-day"));
        QCOMPARE(finished.first().at(1).toBool(), false);
        QVERIFY(!page.isRunning());
        QVERIFY(gateway.config() == original); // the very configuration that ran before
        QVERIFY(page.runButton()->isEnabled());

        // The report: every figure beside its target, with sensible values.
        QTableWidget *figures = page.figuresTable();
        QVERIFY(figures->isVisible());
        // Every planned request is accounted for: sent, or dropped at the load's cap when the machine is slow.
        const QString requests = figure(figures, QStringLiteral("Requests"), 1);
        const int sent = requests.section(QLatin1Char(' '), 0, 0).remove(QLatin1Char(',')).toInt();
        const QRegularExpression droppedText(QStringLiteral(", ([0-9,]+) dropped at the load's concurrency cap$"));
        const QRegularExpressionMatch dropped = droppedText.match(requests);
        const int droppedCount = dropped.hasMatch() ? dropped.captured(1).remove(QLatin1Char(',')).toInt() : 0;
        QVERIFY2(sent > 0 && sent + droppedCount == 1200, qPrintable(requests));
        const QString success = figure(figures, QStringLiteral("Success rate"), 1);
        QVERIFY2(success.endsWith(QStringLiteral(" %")) && success.section(QLatin1Char(' '), 0, 0).toDouble() >= 95.0,
                 qPrintable(success));
        QCOMPARE(figure(figures, QStringLiteral("Success rate"), 2), QStringLiteral("≥ 99.50 %"));
        // A duration with its unit: milliseconds, or seconds from 10 s on (a sanitizer build under load).
        const QString ttft = figure(figures, QStringLiteral("TTFT p95"), 1);
        QVERIFY2(ttft.endsWith(QStringLiteral(" ms")) || ttft.endsWith(QStringLiteral(" s")), qPrintable(ttft));
        QCOMPARE(figure(figures, QStringLiteral("TTFT p95"), 2), QStringLiteral("< 1,000 ms"));
        QVERIFY(figure(figures, QStringLiteral("TTFT p95"), 3).contains(QStringLiteral("pass"))
                || figure(figures, QStringLiteral("TTFT p95"), 3).contains(QStringLiteral("fail")));
        QVERIFY(!figure(figures, QStringLiteral("Failovers"), 1).startsWith(QStringLiteral("0 ")));
        QVERIFY(figure(figures, QStringLiteral("Time to full failover"), 1).contains(QStringLiteral(" s (settled traffic seen at ")));
        QVERIFY(!figure(figures, QStringLiteral("Time to recovery"), 1).isEmpty());
        QVERIFY(page.verdictText().contains(QStringLiteral("launch-day")));
        // Requests per channel: both channels answered, the primary marked.
        QTableWidget *channels = page.channelsTable();
        QStringList names;
        for (int row = 0; row < channels->rowCount(); ++row)
            names << channels->item(row, 0)->text();
        QVERIFY2(names.contains(QStringLiteral("primary (primary)")) && names.contains(QStringLiteral("fallback")),
                 qPrintable(names.join(QStringLiteral(", "))));
        QVERIFY(page.statusText().contains(QStringLiteral("configuration is running again")));

        QVERIFY(page.grab().save(sb::test::artifactPath(QStringLiteral("drills-report.png"))));
        gateway.stop(500ms);
    }

    void cancelRestoresTheConfiguration()
    {
        const EngineConfigPtr original = userConfig();
        SplitMixRandom random(8);
        Gateway gateway(SystemClock::instance(), random, original);
        QString error;
        QVERIFY2(gateway.start(&error), qPrintable(error));
        DrillsPage page;
        page.attach(&gateway);
        QSignalSpy finished(&page, &DrillsPage::drillFinished);
        QVERIFY2(page.runDrill(QStringLiteral("flapping-primary"), 10.0, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(hasChannel(gateway.config(), QStringLiteral("primary")), 10'000);
        QTRY_VERIFY_WITH_TIMEOUT(!page.progressText().contains(QStringLiteral(" 0 requests sent")), 10'000);

        page.cancelButton()->click();
        QVERIFY(finished.wait(30'000));
        QCOMPARE(finished.first().at(1).toBool(), true);
        QVERIFY(gateway.config() == original);
        QVERIFY(!page.isRunning());
        QVERIFY(page.runButton()->isEnabled());
        QVERIFY(page.statusText().contains(QStringLiteral("cancelled")));
        QVERIFY(!page.figuresTable()->isVisible());
        gateway.stop(500ms);
    }

    void destroyingThePageMidDrillRestoresTheConfiguration()
    {
        const EngineConfigPtr original = userConfig();
        SplitMixRandom random(9);
        Gateway gateway(SystemClock::instance(), random, original);
        QString error;
        QVERIFY2(gateway.start(&error), qPrintable(error));
        {
            DrillsPage page;
            page.attach(&gateway);
            QVERIFY(page.runDrill(QStringLiteral("slow-ttft"), 10.0, &error));
            QTRY_VERIFY_WITH_TIMEOUT(hasChannel(gateway.config(), QStringLiteral("fallback")), 10'000);
        }
        QVERIFY(gateway.config() == original);
        gateway.stop(500ms);
    }

    void theOfferAsksForLaunchDay()
    {
        DrillOffer offer;
        QSignalSpy run(&offer, &DrillOffer::runRequested);
        offer.runButton()->click();
        QCOMPARE(run.size(), 1);
        QCOMPARE(run.first().at(0).toString(), QStringLiteral("launch-day"));
        QCOMPARE(run.first().at(1).toDouble(), 10.0);
    }
};

QTEST_MAIN(tst_DrillsPage)
#include "tst_DrillsPage.moc"
