#include "FakeClock.h"
#include "health/SlidingWindow.h"

#include <QtTest>

using namespace std::chrono_literals;
using namespace sb;
using sb::test::FakeClock;

class tst_SlidingWindow : public QObject {
    Q_OBJECT
private slots:
    void countsPerSpanAndForgetsOldSeconds()
    {
        FakeClock clock;
        SlidingWindow w(300s);
        for (int s = 0; s < 60; ++s) {
            w.record(clock.now(), OutcomeKind::Success, 100ms);
            w.record(clock.now(), s % 2 ? OutcomeKind::ProviderDown : OutcomeKind::RetryableRateLimit);
            clock.advance(1s);
        }
        clock.advance(-1s); // stand in the last recorded second
        const auto five = w.snapshot(clock.now(), 5s);
        QCOMPARE(five.calls, 10u);
        QCOMPARE(five.count(OutcomeKind::Success), 5u);
        const auto all = w.snapshot(clock.now(), 300s);
        QCOMPARE(all.calls, 120u);
        QCOMPARE(all.failures, 30u); // only ProviderDown counts as a channel failure, not rate limits
        QCOMPARE(all.count(OutcomeKind::RetryableRateLimit), 30u);
        QCOMPARE(all.errorRate(), 0.25);

        clock.advance(270s); // the first 29 seconds have left the 5 min window
        const auto later = w.snapshot(clock.now(), 300s);
        QCOMPARE(later.calls, 2u * 30); // seconds 30..59 remain
        clock.advance(301s);
        QCOMPARE(w.snapshot(clock.now(), 300s).calls, 0u);
    }

    void ringReuseClearsBuckets()
    {
        FakeClock clock;
        SlidingWindow w(10s);
        w.record(clock.now(), OutcomeKind::ProviderDown);
        clock.advance(10s); // same ring slot, a new second
        w.record(clock.now(), OutcomeKind::Success, 5ms);
        const auto s = w.snapshot(clock.now(), 10s);
        QCOMPARE(s.calls, 1u);
        QCOMPARE(s.failures, 0u);
    }

    void quantilesFromHistogram()
    {
        FakeClock clock;
        SlidingWindow w(300s);
        // 1..1000 ms, one sample each: P50 ≈ 500, P95 ≈ 950, P99 ≈ 990, within the 20 % bin width.
        for (int ms = 1; ms <= 1000; ++ms)
            w.record(clock.now(), OutcomeKind::Success, std::chrono::milliseconds(ms), std::chrono::milliseconds(ms / 2));
        const auto s = w.snapshot(clock.now(), 30s);
        QCOMPARE(s.latencySamples, 1000u);
        QVERIFY2(std::abs(s.latencyP50Ms - 500) < 100, qPrintable(QString::number(s.latencyP50Ms)));
        QVERIFY2(std::abs(s.latencyP95Ms - 950) < 190, qPrintable(QString::number(s.latencyP95Ms)));
        QVERIFY2(std::abs(s.latencyP99Ms - 990) < 198, qPrintable(QString::number(s.latencyP99Ms)));
        QVERIFY(s.latencyP50Ms < s.latencyP95Ms && s.latencyP95Ms <= s.latencyP99Ms);
        QVERIFY2(std::abs(s.ttftP95Ms - 475) < 95, qPrintable(QString::number(s.ttftP95Ms)));
        // counts() skips the histograms entirely.
        QCOMPARE(w.counts(clock.now(), 30s).latencyP95Ms, 0.0);
    }

    void histogramBinsAreMonotonic()
    {
        int previous = 0;
        for (double ms = 0.1; ms < 200000; ms *= 1.07) {
            const int bin = LatencyHistogram::binFor(std::chrono::duration_cast<Clock::Duration>(
                std::chrono::duration<double, std::milli>(ms)));
            QVERIFY(bin >= previous);
            QVERIFY(bin < LatencyHistogram::BinCount);
            if (bin > 0 && bin < LatencyHistogram::BinCount - 1) {
                QVERIFY(ms >= LatencyHistogram::lowerBoundMillis(bin) * 0.999);
                QVERIFY(ms < LatencyHistogram::upperBoundMillis(bin) * 1.001);
            }
            previous = bin;
        }
    }

    void probesCountAsCallsWithoutLatency()
    {
        FakeClock clock;
        SlidingWindow w;
        w.record(clock.now(), OutcomeKind::Success, std::nullopt, std::nullopt, true);
        const auto s = w.snapshot(clock.now(), 30s);
        QCOMPARE(s.calls, 1u);
        QCOMPARE(s.probes, 1u);
        QCOMPARE(s.latencySamples, 0u);
        QVERIFY(!w.lastRecordAt().has_value()); // heartbeats are evidence, not traffic
        w.record(clock.now(), OutcomeKind::Success, 1ms);
        QVERIFY(w.lastRecordAt().has_value());
    }
};

QTEST_APPLESS_MAIN(tst_SlidingWindow)
#include "tst_SlidingWindow.moc"
