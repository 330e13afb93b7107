#include "IncidentScenario.h"
#include "MainWindow.h"
#include "TestPaths.h"
#include "common/Clock.h"
#include "common/Random.h"
#include "control/Gateway.h"
#include "models/ChannelTableModel.h"
#include "pages/ChannelsPage.h"
#include "pages/OverviewPage.h"

#include <QtTest>
#include <QImage>
#include <QListWidget>
#include <QStackedWidget>

class tst_MainWindow : public QObject {
    Q_OBJECT
private slots:
    void opensWithEveryPage()
    {
        MainWindow window;
        QCOMPARE(window.pageNames(),
                 (QStringList{"Overview", "Channels", "Incidents", "Requests", "Providers", "Drills", "Fleet", "Settings"}));
        auto *stack = window.findChild<QStackedWidget *>();
        QVERIFY(stack);
        window.showPage(4);
        QCOMPARE(stack->currentIndex(), 4);
    }

    void grabGivesANonBlankImage()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QImage image = window.grab().toImage();
        QCOMPARE(image.size(), QSize(1280, 800));
        // A blank window is one colour; a real one has text, tiles and chart axes.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
        QVERIFY(image.save(sb::test::artifactPath(QStringLiteral("main-window.png"))));
    }

    void withoutAGatewayPagesShowTheirEmptyStates()
    {
        MainWindow window;
        window.attach(nullptr);
        QVERIFY(window.statusText().contains(QStringLiteral("Proxy not running")));
        QVERIFY(window.statusText().contains(QStringLiteral("no open incidents")));
        QCOMPARE(window.overviewPage()->stats().snapshots, 0u);
        QCOMPARE(window.channelsPage()->model()->rowCount(), 0);
    }

    void statusBarFollowsSnapshots()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        sb::test::IncidentScenario scenario;
        MainWindow window;
        window.applySnapshot(scenario.at(sb::test::IncidentScenario::kOpen + 3));
        const QString status = window.statusText();
        QVERIFY2(status.contains(QStringLiteral(" req/s")), qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("% (5m)")), qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("TTFT p95 ")) && status.contains(QStringLiteral(" ms")), qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("1 open incident")), qPrintable(status));
        window.applySnapshot(scenario.at(sb::test::IncidentScenario::kRecovered + 5));
        QVERIFY2(window.statusText().contains(QStringLiteral("no open incidents")), qPrintable(window.statusText()));
    }

    void openInProvidersSwitchesPage()
    {
        MainWindow window;
        auto *stack = window.findChild<QStackedWidget *>();
        emit window.channelsPage()->openProviderRequested(2);
        QCOMPARE(stack->currentIndex(), 4);
    }

    void attachedGatewayFeedsPagesAndTakesDrainAndReadmit()
    {
        sb::test::IncidentScenario scenario;
        sb::Gateway gateway(sb::SystemClock::instance(), sb::SystemRandom::instance(), sb::test::incidentConfig());
        MainWindow window;
        window.attach(&gateway);
        QVERIFY(window.statusText().contains(QStringLiteral("http://127.0.0.1:8400/v1")));

        // Delivered queued, as from the control thread: nothing happens until the event loop turns.
        emit gateway.snapshotReady(scenario.at(0));
        QCOMPARE(window.overviewPage()->stats().snapshots, 0u);
        QTRY_COMPARE(window.overviewPage()->stats().snapshots, 1u);
        QCOMPARE(window.channelsPage()->model()->rowCount(), 4);
        QCOMPARE(window.channelsPage()->model()->index(0, 0).data().toString(), QStringLiteral("gpt-4o"));

        const auto poolOf = [&gateway](int channelId) {
            for (const sb::ChannelSnapshot &channel : gateway.snapshot().channels) {
                if (channel.channelId == channelId)
                    return channel.pool;
            }
            return sb::PoolState::Active;
        };
        emit window.channelsPage()->drainRequested(2);
        QCOMPARE(poolOf(2), sb::PoolState::Drained);
        emit window.channelsPage()->readmitRequested(2);
        QVERIFY(poolOf(2) != sb::PoolState::Drained);
    }
};

QTEST_MAIN(tst_MainWindow)
#include "tst_MainWindow.moc"
