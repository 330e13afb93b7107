#include "ConsoleStyle.h"
#include "IncidentScenario.h"
#include "models/ChannelTableModel.h"
#include "widgets/StateBadgeDelegate.h"

#include <QtTest>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>

using namespace sb;

namespace {

MetricsSnapshot withChannels(const MetricsSnapshot &snapshot, std::initializer_list<int> ids)
{
    MetricsSnapshot copy = snapshot;
    copy.channels.clear();
    for (const ChannelSnapshot &channel : snapshot.channels) {
        if (std::find(ids.begin(), ids.end(), channel.channelId) != ids.end())
            copy.channels.push_back(channel);
    }
    return copy;
}

QString cell(const ChannelTableModel &model, int channelId, int column)
{
    return model.data(model.index(model.rowOf(channelId), column)).toString();
}

} // namespace

class tst_ChannelTableModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

    void columnsMatchTheIssue()
    {
        ChannelTableModel model;
        QStringList headers;
        for (int c = 0; c < model.columnCount(); ++c)
            headers << model.headerData(c, Qt::Horizontal).toString();
        QCOMPARE(headers, (QStringList{"Route", "Provider", "Channel", "State", "Health", "Err 30s", "Err 5m", "P95",
                                       "TTFT p95", "In flight", "Keys", "Headroom"}));
    }

    void rowsAreInsertedWhenChannelsAppearNeverReset()
    {
        test::IncidentScenario scenario;
        ChannelTableModel model;
        model.setConfig(test::incidentConfig());
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);

        model.applySnapshot(withChannels(scenario.at(0), {1, 2}));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(inserted.at(0).at(2).toInt(), 1);

        model.applySnapshot(scenario.at(1));
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(inserted.at(1).at(1).toInt(), 2); // appended after the existing rows
        QCOMPARE(inserted.at(1).at(2).toInt(), 3);
        QCOMPARE(cell(model, 3, ChannelTableModel::Channel), QStringLiteral("claude-sonnet/A"));
        QCOMPARE(resets.count(), 0);
    }

    void channelsThatLeaveAreRemoved()
    {
        test::IncidentScenario scenario;
        ChannelTableModel model;
        model.applySnapshot(scenario.at(0));
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        model.applySnapshot(withChannels(scenario.at(1), {1, 2, 4}));
        QCOMPARE(removed.count(), 1);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.rowOf(3), -1);
        QCOMPARE(cell(model, 4, ChannelTableModel::Channel), QStringLiteral("claude-sonnet/B"));
    }

    void snapshotsUpdateOnlyTheCellsThatChanged()
    {
        test::IncidentScenario scenario;
        ChannelTableModel model;
        model.setConfig(test::incidentConfig());
        model.applySnapshot(scenario.at(0));
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

        // The same values again: nothing to repaint.
        model.applySnapshot(scenario.at(0));
        QCOMPARE(changed.count(), 0);

        // gpt-4o/A's breaker opens: its row changes, and the State cell is inside the changed range.
        model.applySnapshot(scenario.at(test::IncidentScenario::kOpen + 5));
        QVERIFY(changed.count() > 0);
        bool stateCovered = false;
        for (const QList<QVariant> &args : changed) {
            const auto topLeft = args.at(0).value<QModelIndex>();
            const auto bottomRight = args.at(1).value<QModelIndex>();
            QCOMPARE(topLeft.row(), bottomRight.row()); // one row per signal, never the whole table
            if (topLeft.row() == model.rowOf(1) && topLeft.column() <= ChannelTableModel::State
                && bottomRight.column() >= ChannelTableModel::State)
                stateCovered = true;
        }
        QVERIFY(stateCovered);
        QCOMPARE(cell(model, 1, ChannelTableModel::State), QStringLiteral("open"));
        QCOMPARE(resets.count(), 0);
    }

    void routeAndProviderNamesComeFromTheConfig()
    {
        test::IncidentScenario scenario;
        ChannelTableModel model;
        model.applySnapshot(scenario.at(0));
        QCOMPARE(cell(model, 2, ChannelTableModel::Route), QStringLiteral("—"));
        QCOMPARE(cell(model, 2, ChannelTableModel::Provider), QStringLiteral("provider 2"));

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setConfig(test::incidentConfig());
        QCOMPARE(changed.count(), 4);
        QCOMPARE(cell(model, 2, ChannelTableModel::Route), QStringLiteral("gpt-4o"));
        QCOMPARE(cell(model, 2, ChannelTableModel::Provider), QStringLiteral("azure-east"));
        QCOMPARE(cell(model, 4, ChannelTableModel::Route), QStringLiteral("claude-sonnet"));
    }

    void stateBadgeTextFollowsBreakerAndPool_data()
    {
        QTest::addColumn<int>("second");
        QTest::addColumn<QString>("state");
        QTest::newRow("healthy") << 100 << "closed";
        QTest::newRow("score below 50") << test::IncidentScenario::kOpen - 5 << "degraded";
        QTest::newRow("breaker open") << test::IncidentScenario::kOpen + 1 << "open";
        QTest::newRow("half-open") << test::IncidentScenario::kHalfOpen + 1 << "half-open";
        QTest::newRow("closed again") << test::IncidentScenario::kRecovered + 10 << "closed";
    }

    void stateBadgeTextFollowsBreakerAndPool()
    {
        QFETCH(int, second);
        QFETCH(QString, state);
        test::IncidentScenario scenario;
        ChannelTableModel model;
        model.applySnapshot(scenario.at(second));
        QCOMPARE(cell(model, 1, ChannelTableModel::State), state);
    }

    void ejectedAndDrainedWinOverTheBreaker()
    {
        test::IncidentScenario scenario;
        MetricsSnapshot snapshot = scenario.at(test::IncidentScenario::kOpen + 1);
        snapshot.channels[0].pool = PoolState::Ejected;
        snapshot.channels[1].pool = PoolState::Drained;
        ChannelTableModel model;
        model.applySnapshot(snapshot);
        QCOMPARE(cell(model, 1, ChannelTableModel::State), QStringLiteral("ejected"));
        QCOMPARE(cell(model, 2, ChannelTableModel::State), QStringLiteral("drained"));
    }

    void badgeIsPaintedInTheStateColourWithItsName()
    {
        test::IncidentScenario scenario;
        ChannelTableModel model;
        model.applySnapshot(scenario.at(test::IncidentScenario::kOpen + 1));
        StateBadgeDelegate delegate;
        QImage image(140, 30, QImage::Format_ARGB32);
        image.fill(Qt::white);
        QStyleOptionViewItem option;
        option.rect = QRect(0, 0, 140, 30);
        option.palette = QPalette(Qt::white);
        const QModelIndex index = model.index(model.rowOf(1), ChannelTableModel::State);
        {
            QPainter painter(&image);
            delegate.paint(&painter, option, index);
        }
        QCOMPARE(QColor(image.pixel(9, 15)), stateColor(ChannelState::Open));
        // Text is drawn on the badge: white pixels appear inside it (the badge is not colour alone).
        int white = 0;
        for (int x = 14; x < 50; ++x)
            for (int y = 8; y < 22; ++y)
                white += QColor(image.pixel(x, y)).lightness() > 200 ? 1 : 0;
        QVERIFY2(white > 10, qPrintable(QString::number(white)));
        QVERIFY(delegate.sizeHint(option, index).width() > 40);
    }

    void numbersFollowTheConventions()
    {
        test::IncidentScenario scenario;
        MetricsSnapshot snapshot = scenario.at(0);
        snapshot.channels[0].errorRate30s = 0.0125;
        snapshot.channels[0].p95Ms = 12345;
        snapshot.channels[0].ttftP95Ms = 1234;
        snapshot.channels[1].calls30s = 0; // idle: no rate to show
        ChannelTableModel model;
        model.applySnapshot(snapshot);
        QCOMPARE(cell(model, 1, ChannelTableModel::Err30s), QStringLiteral("1.25 %"));
        QCOMPARE(cell(model, 1, ChannelTableModel::P95), QStringLiteral("12.3 s"));
        QCOMPARE(cell(model, 1, ChannelTableModel::TtftP95), QStringLiteral("1,234 ms"));
        QCOMPARE(cell(model, 1, ChannelTableModel::Keys), QStringLiteral("3 / 3"));
        QCOMPARE(cell(model, 2, ChannelTableModel::Err30s), QStringLiteral("—"));
        QCOMPARE(model.data(model.index(model.rowOf(1), ChannelTableModel::Health), ChannelTableModel::SortRole).typeId(),
                 QMetaType::Double);
    }
};

QTEST_MAIN(tst_ChannelTableModel)
#include "tst_ChannelTableModel.moc"
