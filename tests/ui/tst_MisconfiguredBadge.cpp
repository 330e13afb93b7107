// The Channels page on a real engine state: a Router on FakeClock whose primary channel an
// endpoint 404 marked misconfigured, its snapshot shown by real widgets offscreen. The state badge
// reads MISCONFIGURED in its own colour, the notice above the table says what to fix in the
// upstream's words, the tooltip carries the same sentence, and Re-admit is offered. The page is
// saved as a PNG under the build tree, and the badge's colour is read back from those pixels.
#include "ConsoleStyle.h"
#include "FakeClock.h"
#include "FakeRandom.h"
#include "control/MetricsSnapshot.h"
#include "models/ChannelTableModel.h"
#include "pages/ChannelsPage.h"
#include "routing/RetryPolicy.h"
#include "routing/RetryState.h"
#include "routing/Router.h"

#include <QDir>
#include <QLabel>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

using namespace std::chrono_literals;
using namespace sb;

namespace {

EngineConfigPtr twoChannels()
{
    auto c = std::make_shared<EngineConfig>();
    for (int id : {1, 2}) {
        ProviderConfig p;
        p.id = id;
        p.name = id == 1 ? QStringLiteral("openai-main") : QStringLiteral("backup");
        p.baseUrl = QStringLiteral("https://api%1.example/v1").arg(id);
        p.keys = {ApiKeyConfig{id, QStringLiteral("key"), QStringLiteral("sk-ui-test-%1-abcdefghijkl").arg(id), true, {}}};
        c->providers.push_back(p);
        c->channels.push_back(ChannelConfig{id, id == 1 ? QStringLiteral("gpt-4o/A") : QStringLiteral("gpt-4o/B"), id,
                                            QStringLiteral("gpt-4o"), 1.0, true, {}, {}, {}});
    }
    RouteConfig route;
    route.id = 1;
    route.logicalModel = QStringLiteral("gpt-4o");
    route.channelIds = {1, 2};
    route.strategy = RoutingStrategy::Priority;
    c->routes = {route};
    return c;
}

} // namespace

class tst_MisconfiguredBadge : public QObject {
    Q_OBJECT

private slots:
    void theChannelsPageShowsTheBadgeAndWhatToFix()
    {
        test::FakeClock clock;
        test::FakeRandom random{3};
        const EngineConfigPtr config = twoChannels();
        Router router(clock, random, config);
        RetryPolicy policy(config->retry);
        RetryState state(policy, clock, clock.now());
        RouteResult first = router.choose(QStringLiteral("gpt-4o"), state, std::nullopt);
        QVERIFY(first);
        QCOMPARE(first.choice->channelId, 1);
        Outcome notFound;
        notFound.kind = OutcomeKind::ProviderDown;
        notFound.httpStatus = 404;
        notFound.message = QStringLiteral("HTTP 404 'Not Found' (no such endpoint)");
        notFound.misconfiguration = Misconfiguration::EndpointNotFound;
        notFound.endpoint = QStringLiteral("POST https://api1.example/v1/chat/completions");
        router.record(*first.choice, notFound, 40ms);

        MetricsSnapshot snapshot;
        snapshot.channels = router.snapshots();
        ChannelsPage page;
        page.setConfig(config);
        page.resize(1280, 320);
        page.applySnapshot(snapshot);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));

        const int row = page.model()->rowOf(1);
        const QModelIndex badge = page.model()->index(row, ChannelTableModel::State);
        QCOMPARE(badge.data(Qt::DisplayRole).toString(), QStringLiteral("misconfigured"));
        QCOMPARE(static_cast<ChannelState>(badge.data(ChannelTableModel::StateRole).toInt()), ChannelState::Misconfigured);
        const QString fix = QStringLiteral("Check the base URL of provider openai-main: POST https://api1.example/v1/chat/completions "
                                           "answered HTTP 404 'Not Found' (no such endpoint)");
        QVERIFY2(badge.data(Qt::ToolTipRole).toString().contains(fix), qPrintable(badge.data(Qt::ToolTipRole).toString()));
        const QModelIndex other = page.model()->index(page.model()->rowOf(2), ChannelTableModel::State);
        QCOMPARE(other.data(Qt::DisplayRole).toString(), QStringLiteral("closed"));

        auto *notice = page.findChild<QLabel *>(QStringLiteral("misconfiguredNotice"));
        QVERIFY(notice);
        QVERIFY(notice->isVisible());
        QCOMPARE(notice->text(), QStringLiteral("gpt-4o/A is misconfigured: ") + fix);
        QVERIFY(!notice->text().contains(QStringLiteral("sk-ui-test")));

        const int proxyRow = page.proxy()->mapFromSource(page.model()->index(row, 0)).row();
        std::unique_ptr<QMenu> menu(page.contextMenuFor(proxyRow, &page));
        QAction *readmit = nullptr;
        for (QAction *a : menu->actions())
            if (a->objectName() == QLatin1String("readmit"))
                readmit = a;
        QVERIFY(readmit && readmit->isEnabled());

        // The picture, kept for a person to look at, and the badge's colour read from it.
        const QImage image = page.grab().toImage();
        const QString path = QDir(QStringLiteral(SB_TEST_ARTIFACTS)).filePath(QStringLiteral("misconfigured-channel.png"));
        QVERIFY(image.save(path));
        const QRect cell = page.view()->visualRect(page.proxy()->mapFromSource(badge));
        const QPoint origin = page.view()->viewport()->mapTo(&page, cell.topLeft());
        const qreal ratio = image.devicePixelRatio();
        int purple = 0;
        for (int x = origin.x(); x < origin.x() + cell.width(); ++x)
            for (int y = origin.y(); y < origin.y() + cell.height(); ++y)
                if (image.pixelColor(int(x * ratio), int(y * ratio)) == stateColor(ChannelState::Misconfigured))
                    ++purple;
        QVERIFY2(purple > 50, qPrintable(QStringLiteral("%1 badge pixels in %2").arg(purple).arg(path)));

        // Cleared (a heartbeat succeeded): the notice goes and the badge is green again.
        router.pool().channel(1)->recordProbe(true, 5ms);
        snapshot.channels = router.snapshots();
        page.applySnapshot(snapshot);
        QVERIFY(!notice->isVisible());
        QCOMPARE(page.model()->index(row, ChannelTableModel::State).data(Qt::DisplayRole).toString(), QStringLiteral("closed"));
    }
};

QTEST_MAIN(tst_MisconfiguredBadge)
#include "tst_MisconfiguredBadge.moc"
