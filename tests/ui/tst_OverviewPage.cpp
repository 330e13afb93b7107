#include "ConsoleStyle.h"
#include "IncidentScenario.h"
#include "charts/CircuitTimeline.h"
#include "pages/OverviewPage.h"

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
