#include "ConsoleStyle.h"
#include "FakeClock.h"
#include "HistoryFixture.h"
#include "IncidentScenario.h"
#include "TestPaths.h"
#include "charts/AlignedChartView.h"
#include "charts/CircuitTimeline.h"
#include "history/HistoryService.h"
#include "pages/OverviewPage.h"
#include "store/HistoryWriter.h"

#include <QChart>
#include <QDateTimeAxis>
#include <QTemporaryDir>
#include <QToolButton>
#include <QWheelEvent>
#include <QtTest>

using namespace sb;

namespace {

void feed(OverviewPage &page, const test::IncidentScenario &scenario, int from, int to)
{
    for (int s = from; s < to; ++s) {
        page.applySnapshot(scenario.at(s));
        for (const HealthEvent &event : scenario.eventsAt(s))
            page.addEvent(event);
    }
}

// Two hours of history for two channels, one sample every 10 s; channel 1 dips to 20 with its
// circuit open in minutes 50–54, and requests in those minutes fail over.
constexpr qint64 kHistoryBase = test::HistoryFixture::kBaseMs;
constexpr qint64 kMinute = 60'000;
constexpr qint64 kHistorySpan = 120 * kMinute;

bool inDip(qint64 t)
{
    return t >= kHistoryBase + 50 * kMinute && t < kHistoryBase + 55 * kMinute;
}

void writeHistory(const QString &path)
{
    {
        Database db(path, QStringLiteral("fixture"));
        QVERIFY(db.open());
        test::HistoryFixture::addChannels(db);
    }
    test::FakeClock clock(kHistoryBase + kHistorySpan);
    HistoryWriter writer(path, clock);
    QVERIFY(writer.start());
    for (qint64 t = kHistoryBase; t < kHistoryBase + kHistorySpan; t += 10'000) {
        for (int channel : {1, 2}) {
            HealthSample sample;
            sample.timeMs = t;
            sample.channelId = channel;
            const bool dip = channel == 1 && inDip(t);
            sample.score = dip ? 20 : 95;
            sample.state = dip ? QStringLiteral("open") : QStringLiteral("closed");
            QVERIFY(writer.enqueue(sample));
        }
    }
    for (qint64 t = kHistoryBase; t < kHistoryBase + kHistorySpan; t += 30'000) {
        RequestRecord r;
        r.requestId = QStringLiteral("h%1").arg(t);
        r.timeMs = t;
        r.logicalModel = QStringLiteral("gpt-4o");
        r.channelId = inDip(t) ? 2 : 1;
        r.failover = inDip(t);
        r.ttftMs = inDip(t) ? 900 : 200;
        QVERIFY(writer.enqueue(r));
    }
    writer.flush();
}

void wheel(QWidget *viewport, QPoint at, QPoint delta, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QWheelEvent event(at, viewport->mapToGlobal(at), QPoint(), delta, Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(viewport, &event);
}

} // namespace

class tst_OverviewPage : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

    void startsEmpty()
    {
        OverviewPage page;
        QCOMPARE(page.kpiValue(QStringLiteral("Availability 5m")), QStringLiteral("—"));
        QCOMPARE(page.kpiValue(QStringLiteral("Requests/s")), QStringLiteral("—"));
        QCOMPARE(page.healthPointCount(1), 0);
        QCOMPARE(page.circuitTimeline()->rowCount(), 0);
    }

    void chartsGetPointsForEveryChannel()
    {
        test::IncidentScenario scenario;
        OverviewPage page;
        feed(page, scenario, 0, 120);
        page.redrawNow();
        for (int id = 1; id <= 4; ++id)
            QCOMPARE(page.healthPointCount(id), 120);
        QCOMPARE(page.ttftPointCount(), 120);
        QCOMPARE(page.circuitTimeline()->rowCount(), 4);
    }

    void redrawsAreBatched()
    {
        test::IncidentScenario scenario;
        OverviewPage page;
        feed(page, scenario, 0, 50);
        // Fifty snapshots without the event loop turning: nothing drawn yet, one redraw to come.
        QCOMPARE(page.stats().redraws, 0u);
        QCOMPARE(page.healthPointCount(1), 0);
        QTRY_COMPARE(page.stats().redraws, 1u);
        QCOMPARE(page.healthPointCount(1), 50);
        QCOMPARE(page.stats().snapshots, 50u);
    }

    void windowSelectorLimitsTheSpan()
    {
        test::IncidentScenario scenario;
        OverviewPage page;
        feed(page, scenario, 0, test::IncidentScenario::kSeconds);
        page.setWindowSeconds(300);
        QVERIFY2(page.healthPointCount(1) >= 300 && page.healthPointCount(1) <= 302,
                 qPrintable(QString::number(page.healthPointCount(1))));
        page.setWindowSeconds(3600);
        QCOMPARE(page.windowSeconds(), 3600);
        // All 900 samples are in the span, thinned to the plot width but never below the 5-minute count.
        QVERIFY2(page.healthPointCount(1) >= 300 && page.healthPointCount(1) <= test::IncidentScenario::kSeconds,
                 qPrintable(QString::number(page.healthPointCount(1))));
    }

    void thinningKeepsTheDip()
    {
        test::IncidentScenario scenario;
        OverviewPage page;
        page.resize(400, 600); // a narrow chart: many samples per pixel
        feed(page, scenario, 0, 3600);
        page.setWindowSeconds(3600);
        QVERIFY(page.healthPointCount(1) < 3600);
        double lowest = 100;
        for (int s = 0; s < 3600; ++s)
            lowest = std::min(lowest, test::IncidentScenario::scoreA(s));
        QCOMPARE(page.healthMinimum(1), lowest);
    }

    void ringsAreBoundedToAnHour()
    {
        test::IncidentScenario scenario;
        OverviewPage page;
        for (int s = 0; s < 4000; ++s)
            page.applySnapshot(scenario.at(s)); // seconds 0…3999
        QCOMPARE(page.history().totals().size(), TimelineHistory::kCapacity);
        QCOMPARE(page.history().channels().at(1).samples.size(), TimelineHistory::kCapacity);
        page.setWindowSeconds(3600);
        QVERIFY(page.healthPointCount(1) <= int(TimelineHistory::kCapacity));
    }

    void failoversBecomeOneMarkerPerSecondWithTheirCount()
    {
        test::IncidentScenario scenario;
        OverviewPage page;
        feed(page, scenario, 0, test::IncidentScenario::kSeconds);
        page.redrawNow();
        int seconds = 0, events = 0;
        for (int s = 0; s < test::IncidentScenario::kSeconds; ++s) {
            seconds += test::IncidentScenario::failoversAt(s) > 0 ? 1 : 0;
            events += test::IncidentScenario::failoversAt(s);
        }
        QVERIFY(seconds > 10);
        QCOMPARE(page.failoverMarkerCount(), seconds);
        int counted = 0;
        for (const auto &marker : page.history().failovers()) {
            QCOMPARE(marker.fromName, QStringLiteral("gpt-4o/A"));
            QCOMPARE(marker.toName, QStringLiteral("gpt-4o/B"));
            counted += marker.count;
        }
        QCOMPARE(counted, events);
        QCOMPARE(int(page.stats().failoverEvents), events);
    }

    void circuitBandsFollowTheIncident()
    {
        test::IncidentScenario scenario;
        OverviewPage page;
        feed(page, scenario, 0, test::IncidentScenario::kSeconds);
        page.redrawNow();
        const auto at = [&](int s) { return scenario.baseMillis + std::int64_t(s) * 1000 + 300; };
        CircuitTimeline *timeline = page.circuitTimeline();
        QCOMPARE(timeline->stateAt(1, at(100)), ChannelState::Closed);
        QCOMPARE(timeline->stateAt(1, at(test::IncidentScenario::kOpen - 3)), ChannelState::Degraded);
        QCOMPARE(timeline->stateAt(1, at(test::IncidentScenario::kOpen + 10)), ChannelState::Open);
        QCOMPARE(timeline->stateAt(1, at(test::IncidentScenario::kHalfOpen + 2)), ChannelState::HalfOpen);
        QCOMPARE(timeline->stateAt(1, at(test::IncidentScenario::kRecovered + 20)), ChannelState::Closed);
        QCOMPARE(timeline->stateAt(2, at(test::IncidentScenario::kOpen + 10)), ChannelState::Closed);
        // Every state has its own pattern, so the bands do not rely on colour alone.
        QSet<int> patterns;
        for (ChannelState state : {ChannelState::Closed, ChannelState::Degraded, ChannelState::HalfOpen,
                                   ChannelState::Open, ChannelState::Ejected})
            patterns.insert(int(CircuitTimeline::statePattern(state)));
        QCOMPARE(patterns.size(), 5);
    }

    void tilesShowTheLatestSnapshot()
    {
        test::IncidentScenario scenario;
        OverviewPage page;
        feed(page, scenario, 0, test::IncidentScenario::kOpen + 5);
        const MetricsSnapshot last = scenario.at(test::IncidentScenario::kOpen + 4);
        QCOMPARE(page.kpiValue(QStringLiteral("Availability 5m")), formatPercent(last.availability5m));
        QVERIFY(page.kpiValue(QStringLiteral("Availability 5m")).endsWith(QStringLiteral(" %")));
        QCOMPARE(page.kpiValue(QStringLiteral("Requests/s")), QLocale().toString(std::llround(last.requestsPerSecond)));
        QCOMPARE(page.kpiValue(QStringLiteral("TTFT p95")), formatMs(last.ttftP95Ms));
        QCOMPARE(page.kpiValue(QStringLiteral("Failovers 1h")), formatCount(last.failovers));
        QCOMPARE(page.kpiValue(QStringLiteral("Cost today")), QStringLiteral("—"));
    }

    void historyModeLoadsAPastRange()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("history.db"));
        writeHistory(path);
        if (QTest::currentTestFailed())
            return;
        HistoryService history(path);
        OverviewPage page;
        page.resize(1110, 760);
        page.setHistory(&history);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.showHistory(kHistoryBase, kHistoryBase + kHistorySpan);
        QVERIFY(page.isHistoryMode());
        QTRY_COMPARE(page.historyLoads(), 1);
        // One point per minute bucket the samples touch: the base is not on a whole minute, so 120
        // minutes of 10 s samples fall into 121 buckets.
        const int buckets = int((kHistoryBase + kHistorySpan - 10'000) / kMinute - kHistoryBase / kMinute + 1);
        QCOMPARE(buckets, 121);
        QCOMPARE(page.healthPointCount(1), buckets);
        QCOMPARE(page.healthPointCount(2), buckets);
        QCOMPARE(page.healthMinimum(1), 20.0);   // the dip survives the per-minute rollup
        QCOMPARE(page.healthMinimum(2), 95.0);
        QCOMPARE(page.circuitTimeline()->rowCount(), 2);
        QCOMPARE(page.circuitTimeline()->stateAt(1, kHistoryBase + 52 * kMinute), ChannelState::Open);
        QCOMPARE(page.circuitTimeline()->stateAt(1, kHistoryBase + 10 * kMinute), ChannelState::Closed);
        QCOMPARE(page.circuitTimeline()->stateAt(2, kHistoryBase + 52 * kMinute), ChannelState::Closed);
        QCOMPARE(page.failoverMarkerCount(), 5); // one per minute of the dip, with the count
        QCOMPARE(page.ttftPointCount(), 120);
        QCOMPARE(page.visibleFrom(), kHistoryBase);
        QCOMPARE(page.visibleTo(), kHistoryBase + kHistorySpan);
        QVERIFY(page.historyStatus().contains(QStringLiteral("2 channels")));
        QVERIFY(!page.findChild<QToolButton *>(QStringLiteral("window300"))->isVisibleTo(&page));
        QVERIFY(page.findChild<QWidget *>(QStringLiteral("historyRange"))->isVisibleTo(&page));
        QTest::qWait(50);
        QVERIFY(page.grab().save(test::artifactPath(QStringLiteral("overview-history.png"))));

        // Zoom into the incident (what a person does next), and keep that shot too.
        page.setViewRange(kHistoryBase + 40 * kMinute, kHistoryBase + 65 * kMinute);
        QTest::qWait(50);
        QVERIFY(page.grab().save(test::artifactPath(QStringLiteral("overview-history-zoomed.png"))));

        page.showLive();
        QVERIFY(!page.isHistoryMode());
        QVERIFY(page.isFollowingLive());
        QCOMPARE(page.healthPointCount(1), 0); // the live rings are empty in this test
    }

    void zoomOnOneChartMovesTheOthers()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("history.db"));
        writeHistory(path);
        if (QTest::currentTestFailed())
            return;
        HistoryService history(path);
        OverviewPage page;
        page.resize(1110, 760);
        page.setHistory(&history);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.showHistory(kHistoryBase, kHistoryBase + kHistorySpan);
        QTRY_COMPARE(page.historyLoads(), 1);

        const auto ttftRange = [&] {
            return std::make_pair(page.ttftTimeAxis()->min().toMSecsSinceEpoch(), page.ttftTimeAxis()->max().toMSecsSinceEpoch());
        };
        const auto expectAligned = [&] {
            QCOMPARE(ttftRange().first, page.visibleFrom());
            QCOMPARE(ttftRange().second, page.visibleTo());
            QCOMPARE(page.circuitTimeline()->fromMillis(), page.visibleFrom());
            QCOMPARE(page.circuitTimeline()->toMillis(), page.visibleTo());
        };

        // The wheel on the health chart: zoom in around the cursor, all three follow.
        AlignedChartView *health = page.healthView();
        const QRectF plot = health->chart()->plotArea();
        wheel(health->viewport(), plot.center().toPoint(), QPoint(0, 120));
        const qint64 zoomed = page.visibleTo() - page.visibleFrom();
        QVERIFY2(std::abs(double(zoomed) - 0.8 * double(kHistorySpan)) < 2000, qPrintable(QString::number(zoomed)));
        expectAligned();

        // Shift+wheel scrolls: same span, earlier.
        const qint64 fromBefore = page.visibleFrom();
        wheel(health->viewport(), plot.center().toPoint(), QPoint(0, 120), Qt::ShiftModifier);
        QVERIFY(page.visibleFrom() < fromBefore);
        QVERIFY(std::abs((page.visibleTo() - page.visibleFrom()) - zoomed) < 2);
        expectAligned();

        // A rubber band on the TTFT chart (QChartView zooms its own axes): health and circuit follow.
        AlignedChartView *ttft = page.ttftView();
        const QRectF ttftPlot = ttft->chart()->plotArea();
        const qint64 spanBefore = page.visibleTo() - page.visibleFrom();
        ttft->chart()->zoomIn(QRectF(ttftPlot.left() + ttftPlot.width() / 4, ttftPlot.top(), ttftPlot.width() / 2, ttftPlot.height()));
        const qint64 spanAfter = page.visibleTo() - page.visibleFrom();
        QVERIFY2(std::abs(double(spanAfter) - double(spanBefore) / 2) < double(spanBefore) / 50,
                 qPrintable(QStringLiteral("%1 -> %2").arg(spanBefore).arg(spanAfter)));
        expectAligned();
        QVERIFY(page.isHistoryMode()); // zooming does not leave history mode

        page.findChild<QToolButton *>(QStringLiteral("liveMode"))->click();
        QVERIFY(!page.isHistoryMode());
    }

    void liveZoomHoldsTheRangeUntilLive()
    {
        test::IncidentScenario scenario;
        OverviewPage page;
        page.resize(1110, 760);
        feed(page, scenario, 0, 300);
        page.redrawNow();
        QVERIFY(page.isFollowingLive());
        QVERIFY(!page.findChild<QToolButton *>(QStringLiteral("liveMode"))->isVisibleTo(&page));
        page.healthView()->zoomBy(0.5, page.healthView()->chart()->plotArea().center().x());
        QVERIFY(!page.isFollowingLive());
        QVERIFY(page.findChild<QToolButton *>(QStringLiteral("liveMode"))->isVisibleTo(&page));
        const qint64 heldTo = page.visibleTo();
        feed(page, scenario, 300, 400);
        page.redrawNow();
        QCOMPARE(page.visibleTo(), heldTo); // the user's range holds while new snapshots arrive
        page.findChild<QToolButton *>(QStringLiteral("liveMode"))->click();
        QVERIFY(page.isFollowingLive());
        QCOMPARE(page.visibleTo(), scenario.at(399).wallMillis);
    }

    void longerAvailabilityAndCostComeFromTheHistory()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("history.db"));
        {
            Database db(path, QStringLiteral("fixture"));
            QVERIFY(db.open());
        }
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const qint64 at = now - 10 * kMinute;
        {
            test::FakeClock clock(now);
            HistoryWriter writer(path, clock);
            QVERIFY(writer.start());
            for (int i = 0; i < 100; ++i) {
                RequestRecord r;
                r.requestId = QStringLiteral("t%1").arg(i);
                r.timeMs = at + i;
                r.logicalModel = QStringLiteral("gpt-4o");
                r.status = i == 0 ? RequestStatus::Error : RequestStatus::Ok;
                r.costUsd = 0.01;
                r.inputTokens = 10;
                QVERIFY(writer.enqueue(r));
            }
            writer.flush();
        }
        HistoryService history(path);
        OverviewPage page;
        page.setHistory(&history);
        QTRY_COMPARE(page.kpiCaption(QStringLiteral("Availability 5m")), QStringLiteral("1h 99.00 % · 24h 99.00 %"));
        const bool today = at >= QDateTime(QDate::currentDate(), QTime(0, 0)).toMSecsSinceEpoch();
        QCOMPARE(page.kpiValue(QStringLiteral("Cost today")), today ? QStringLiteral("$1.00") : QStringLiteral("$0.00"));
        // A snapshot keeps the history's figures beside the 5-minute one.
        test::IncidentScenario scenario;
        page.applySnapshot(scenario.at(10));
        QCOMPARE(page.kpiCaption(QStringLiteral("Availability 5m")), QStringLiteral("1h 99.00 % · 24h 99.00 %"));
    }

    void numbersFollowTheConventions()
    {
        QCOMPARE(formatRate(1234.4), QStringLiteral("1,234"));
        QCOMPARE(formatRate(38.24), QStringLiteral("38.2"));
        QCOMPARE(formatPercent(0.99984), QStringLiteral("99.98 %"));
        QCOMPARE(formatMs(312.4), QStringLiteral("312 ms"));
        QCOMPARE(formatMs(9999), QStringLiteral("9,999 ms"));
        QCOMPARE(formatMs(12500), QStringLiteral("12.5 s"));
        QCOMPARE(formatMs(0), QStringLiteral("—"));
    }

    void channelColoursAreStableAndDistinct()
    {
        QCOMPARE(channelColor(3), channelColor(3));
        QSet<QRgb> colours;
        for (int id = 1; id <= 6; ++id)
            colours.insert(channelColor(id).rgb());
        QCOMPARE(colours.size(), 6);
    }
};

QTEST_MAIN(tst_OverviewPage)
#include "tst_OverviewPage.moc"
