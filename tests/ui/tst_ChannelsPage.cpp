#include "IncidentScenario.h"
#include "models/ChannelTableModel.h"
#include "pages/ChannelsPage.h"

#include <QtTest>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>

using namespace sb;

namespace {

QAction *action(QMenu *menu, const QString &name)
{
    for (QAction *a : menu->actions()) {
        if (a->objectName() == name)
            return a;
    }
    return nullptr;
}

int proxyRowOf(const ChannelsPage &page, int channelId)
{
    const QModelIndex source = page.model()->index(page.model()->rowOf(channelId), 0);
    return page.proxy()->mapFromSource(source).row();
}

} // namespace

class tst_ChannelsPage : public QObject {
    Q_OBJECT
private slots:
    void showsAnEmptyStateUntilTheFirstSnapshot()
    {
        ChannelsPage page;
        auto *empty = page.findChild<QLabel *>(QStringLiteral("channelsEmpty"));
        QVERIFY(empty);
        QVERIFY(empty->isVisibleTo(&page));
        QVERIFY(!page.view()->isVisibleTo(&page));
        page.applySnapshot(test::IncidentScenario().at(0));
        QVERIFY(!empty->isVisibleTo(&page));
        QVERIFY(page.view()->isVisibleTo(&page));
    }

    void filterBoxNarrowsRows()
    {
        test::IncidentScenario scenario;
        ChannelsPage page;
        page.setConfig(test::incidentConfig());
        page.applySnapshot(scenario.at(test::IncidentScenario::kOpen + 2));
        QCOMPARE(page.proxy()->rowCount(), 4);

        page.filterBox()->setText(QStringLiteral("claude"));
        QCOMPARE(page.proxy()->rowCount(), 2);
        page.filterBox()->setText(QStringLiteral("AZURE")); // provider column, any case
        QCOMPARE(page.proxy()->rowCount(), 1);
        QCOMPARE(page.proxy()->index(0, ChannelTableModel::Channel).data().toString(), QStringLiteral("gpt-4o/B"));
        page.filterBox()->setText(QStringLiteral("open")); // the state text; also matches "openai-main"
        QCOMPARE(page.proxy()->rowCount(), 1);
        QCOMPARE(page.proxy()->index(0, ChannelTableModel::Channel).data().toString(), QStringLiteral("gpt-4o/A"));
        page.filterBox()->clear();
        QCOMPARE(page.proxy()->rowCount(), 4);
    }

    void filteredRowsStayFilteredAcrossSnapshots()
    {
        test::IncidentScenario scenario;
        ChannelsPage page;
        page.setConfig(test::incidentConfig());
        page.applySnapshot(scenario.at(0));
        page.filterBox()->setText(QStringLiteral("degraded"));
        QCOMPARE(page.proxy()->rowCount(), 0);
        page.applySnapshot(scenario.at(test::IncidentScenario::kOpen - 5)); // gpt-4o/A degrades
        QCOMPARE(page.proxy()->rowCount(), 1);
    }

    void sortsNumericallyByHealth()
    {
        test::IncidentScenario scenario;
        ChannelsPage page;
        page.applySnapshot(scenario.at(test::IncidentScenario::kOpen + 2));
        page.view()->sortByColumn(ChannelTableModel::Health, Qt::AscendingOrder);
        QCOMPARE(page.proxy()->index(0, ChannelTableModel::Channel).data().toString(), QStringLiteral("gpt-4o/A"));
        page.view()->sortByColumn(ChannelTableModel::State, Qt::DescendingOrder);
        QCOMPARE(page.proxy()->index(0, ChannelTableModel::State).data().toString(), QStringLiteral("open"));
    }

    void contextMenuAsksToDrainReadmitAndProbe()
    {
        test::IncidentScenario scenario;
        ChannelsPage page;
        MetricsSnapshot snapshot = scenario.at(test::IncidentScenario::kOpen + 2);
        snapshot.channels[1].pool = PoolState::Drained;
        page.applySnapshot(snapshot);
        const QString summary = page.findChild<QLabel *>(QStringLiteral("channelSummary"))->text();
        QVERIFY2(summary.contains(QStringLiteral("1 drained")) && !summary.contains(QStringLiteral("all serving")),
                 qPrintable(summary));
        QSignalSpy drain(&page, &ChannelsPage::drainRequested);
        QSignalSpy readmit(&page, &ChannelsPage::readmitRequested);
        QSignalSpy open(&page, &ChannelsPage::openProviderRequested);
        QSignalSpy probeNow(&page, &ChannelsPage::probeRequested);

        std::unique_ptr<QMenu> menuA(page.contextMenuFor(proxyRowOf(page, 1), nullptr));
        QVERIFY(action(menuA.get(), "drain")->isEnabled());
        QVERIFY(!action(menuA.get(), "readmit")->isEnabled()); // in the pool: nothing to re-admit
        action(menuA.get(), "probe")->trigger();
        QCOMPARE(probeNow.count(), 1);
        QCOMPARE(probeNow.at(0).at(0).toInt(), 1);
        action(menuA.get(), "drain")->trigger();
        QCOMPARE(drain.count(), 1);
        QCOMPARE(drain.at(0).at(0).toInt(), 1);

        std::unique_ptr<QMenu> menuB(page.contextMenuFor(proxyRowOf(page, 2), nullptr));
        QVERIFY(!action(menuB.get(), "drain")->isEnabled()); // already drained
        QVERIFY(action(menuB.get(), "readmit")->isEnabled());
        action(menuB.get(), "readmit")->trigger();
        QCOMPARE(readmit.count(), 1);
        QCOMPARE(readmit.at(0).at(0).toInt(), 2);
        action(menuB.get(), "openProvider")->trigger();
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.at(0).at(0).toInt(), 2); // the provider id
    }

    void selectionSurvivesSnapshots()
    {
        test::IncidentScenario scenario;
        ChannelsPage page;
        page.applySnapshot(scenario.at(0));
        page.view()->selectRow(proxyRowOf(page, 3));
        for (int s = 1; s < 30; ++s)
            page.applySnapshot(scenario.at(s));
        const QModelIndexList selected = page.view()->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().data(ChannelTableModel::ChannelIdRole).toInt(), 3);
    }
};

QTEST_MAIN(tst_ChannelsPage)
#include "tst_ChannelsPage.moc"
