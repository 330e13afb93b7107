#include "sim/DrillReport.h"
#include "sim/EngineTimeScale.h"
#include "sim/LoadSchedule.h"

#include "FakeRandom.h"

#include <QJsonArray>
#include <QtTest>

using namespace sb::sim;
using namespace std::chrono_literals;

namespace {

RequestRecord rec(double at, bool ok, const QString &channel, double ttft = 100, bool failover = false, int attempts = 1)
{
    RequestRecord r;
    r.at = at;
    r.ok = ok;
    r.channel = channel;
    r.ttftMs = ok ? ttft : -1;
    r.latencyMs = ttft * 2;
    r.failover = failover;
    r.attempts = attempts;
    r.error = ok ? QString() : QStringLiteral("http_503");
    r.status = ok ? 200 : 503;
    return r;
}

} // namespace

class tst_SimReport : public QObject {
    Q_OBJECT

private slots:
    void percentilesUseNearestRank()
    {
        std::vector<double> v;
        for (int i = 1; i <= 100; ++i)
            v.push_back(i);
        const Percentiles p = Percentiles::of(v);
        QCOMPARE(p.p50, 50.0);
        QCOMPARE(p.p95, 95.0);
        QCOMPARE(p.p99, 99.0);
        QCOMPARE(Percentiles::of({7}).p99, 7.0);
        QCOMPARE(Percentiles::of({}).p50, 0.0);
    }

    void launchDayShapedRunIsMeasured()
    {
        // 4 req/s; outage from 10 to 20: the first second still fails over, one request is lost,
        // then the fallback carries everything; the primary is back 2 s after the outage.
        std::vector<RequestRecord> records;
        for (int i = 0; i < 120; ++i) {
            const double t = i * 0.25;
            if (t < 10 || t >= 22)
                records.push_back(rec(t, true, "primary", 200 + i));
            else if (t < 11)
                records.push_back(t == 10.5 ? rec(t, false, {}) : rec(t, true, "fallback", 900, true, 2));
            else
                records.push_back(rec(t, true, "fallback", 300));
        }
        RequestRecord dropped;
        dropped.at = 5;
        dropped.dropped = true;
        records.push_back(dropped);
        ReportSpec spec;
        spec.primaryChannels = {"primary"};
        spec.outageFrom = 10;
        spec.outageTo = 20;
        const DrillReport r = DrillReport::compute("t", 10, 30, records, spec);
        QCOMPARE(r.requests, 120);
        QCOMPARE(r.dropped, 1);
        QCOMPARE(r.failed, 1);
        QCOMPARE(r.succeeded, 119);
        QCOMPARE(r.successRate, 119.0 / 120.0);
        QCOMPARE(r.failovers, 3);
        QCOMPARE(r.errors.value("http_503"), 1);
        // The last failover was sent at 10.75 s; the settled run that shows it starts at 11 s.
        QCOMPARE(r.timeToFallback.value_or(-1), 0.75);
        QCOMPARE(r.firstSettledAfter.value_or(-1), 1.0);
        QCOMPARE(r.timeToRecovery.value_or(-1), 2.0);
        QCOMPARE(r.channels, QStringList({"fallback", "primary", "(failed)"}));
        QCOMPARE(r.perSecond.size(), std::size_t(30));
        QCOMPARE(r.perSecond[0], (std::vector<int>{0, 4, 0}));
        QCOMPARE(r.perSecond[10], (std::vector<int>{3, 0, 1}));
        QCOMPARE(r.perSecond[15], (std::vector<int>{4, 0, 0}));
        QCOMPARE(r.perSecond[25], (std::vector<int>{0, 4, 0}));

        const QJsonObject json = r.toJson();
        QCOMPARE(json["success_rate"].toDouble(), 119.0 / 120.0);
        QCOMPARE(json["time_to_fallback_s"].toDouble(), 0.75);
        QCOMPARE(json["first_settled_after_s"].toDouble(), 1.0);
        QCOMPARE(json["requests_per_channel_per_second"].toArray().size(), 30);
        QCOMPARE(json["requests_per_channel_per_second"].toArray()[10].toObject()["fallback"].toInt(), 3);
        QVERIFY(r.toText().contains(QLatin1String("99.17 %")));
    }

    void aFallbackAlreadyCarryingTheTrafficFailsOverInZero()
    {
        ReportSpec spec;
        spec.primaryChannels = {"primary"};
        spec.outageFrom = 10;
        spec.outageTo = 20;
        std::vector<RequestRecord> records;
        for (int i = 0; i < 80; ++i)
            records.push_back(rec(i * 0.25, true, "fallback", 300));
        const DrillReport r = DrillReport::compute("t", 1, 20, records, spec);
        QCOMPARE(r.timeToFallback.value_or(-1), 0.0);
        QCOMPARE(r.firstSettledAfter.value_or(-1), 0.0);
    }

    void noRecoveryIsReportedAsMissingNotZero()
    {
        ReportSpec spec;
        spec.primaryChannels = {"primary"};
        spec.outageFrom = 0;
        spec.outageTo = 5;
        const DrillReport r = DrillReport::compute("t", 1, 10, {rec(1, true, "primary", 100, false, 2), rec(6, true, "fallback")}, spec);
        QVERIFY(!r.timeToFallback);
        QVERIFY(!r.timeToRecovery);
        QVERIFY(r.toJson()["time_to_recovery_s"].isNull());
    }

    void constantLoadIsEvenlySpaced()
    {
        LoadSpec load;
        load.rate = 4;
        load.duration = 300;
        load.models = {{"a", 1}};
        sb::test::FakeRandom random(1);
        const auto plan = LoadSchedule::plan(load, random);
        QCOMPARE(plan.size(), std::size_t(1200));
        QCOMPARE(plan[0].at, 0.0);
        QCOMPARE(plan[1].at, 0.25);
        sb::test::FakeRandom random2(1);
        load.rate = 20;
        load.duration = 6;
        QCOMPARE(LoadSchedule::plan(load, random2).size(), std::size_t(120)); // 1/20 summed 120 times is not 6
        QVERIFY(plan.back().at < 300);
        QVERIFY(std::all_of(plan.begin(), plan.end(), [](const PlannedRequest &r) { return r.stream && r.model == "a"; }));
    }

    void poissonLoadHasTheRightRateAndMix()
    {
        LoadSpec load;
        load.rate = 20;
        load.duration = 500;
        load.process = LoadSpec::Process::Poisson;
        load.streamRatio = 0.3;
        load.models = {{"a", 3}, {"b", 1}};
        sb::test::FakeRandom random(2);
        const auto plan = LoadSchedule::plan(load, random);
        QVERIFY2(plan.size() > 9500 && plan.size() < 10500, qPrintable(QString::number(plan.size())));
        const auto a = std::count_if(plan.begin(), plan.end(), [](const PlannedRequest &r) { return r.model == "a"; });
        const auto streams = std::count_if(plan.begin(), plan.end(), [](const PlannedRequest &r) { return r.stream; });
        QVERIFY(std::abs(double(a) / plan.size() - 0.75) < 0.03);
        QVERIFY(std::abs(double(streams) / plan.size() - 0.3) < 0.03);
        // Poisson gaps vary; constant ones would not.
        double minGap = 1e9, maxGap = 0;
        for (std::size_t i = 1; i < plan.size(); ++i) {
            minGap = std::min(minGap, plan[i].at - plan[i - 1].at);
            maxGap = std::max(maxGap, plan[i].at - plan[i - 1].at);
        }
        QVERIFY(minGap < 0.01 && maxGap > 0.2);
        sb::test::FakeRandom again(2);
        QCOMPARE(LoadSchedule::plan(load, again).size(), plan.size()); // the seed fixes the load
    }

    void engineWindowsAndTimeoutsScaleByTheSameFactor()
    {
        sb::EngineConfig config;
        sb::ProviderConfig provider;
        provider.requestsPerMinute = 60;
        config.providers.push_back(provider);
        int rounded = -1;
        const sb::EngineConfig scaled = scaleEngineConfig(config, 10.0, &rounded);
        QCOMPARE(scaled.health.window, 30s);
        QCOMPARE(scaled.health.fastWindow, 3s);
        QCOMPARE(scaled.health.ejectAfter, 18s);
        QCOMPARE(scaled.breaker.openDuration, 6s);
        QCOMPARE(scaled.probe.interval, 1s);
        QCOMPARE(scaled.retry.baseDelay, 10ms);
        QCOMPARE(scaled.retry.overallDeadline, 6000ms);
        QCOMPARE(scaled.providers[0].primaryTimeout, 3000ms);
        QCOMPARE(scaled.providers[0].fallbackTimeout, 2000ms);
        QCOMPARE(scaled.providers[0].requestsPerMinute, 600);
        // 5 s / 10 cannot be kept in whole seconds: it stays at 1 s and is counted as rounded.
        QCOMPARE(scaled.breaker.rateWindow, 1s);
        QVERIFY(rounded >= 1);
        QCOMPARE(scaleEngineConfig(config, 1.0).health.window, config.health.window);
    }
};

QTEST_APPLESS_MAIN(tst_SimReport)
#include "tst_SimReport.moc"
