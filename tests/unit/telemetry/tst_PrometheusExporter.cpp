// The Prometheus text format as the exporter writes it, checked by an independent line-by-line
// checker (PrometheusTextChecker) — and the checker itself shown to reject what the format forbids,
// so a pass means something.
#include "PrometheusTextChecker.h"
#include "telemetry/Histogram.h"
#include "telemetry/PrometheusExporter.h"
#include "telemetry/RequestMetrics.h"

#include <QtTest>

#include <thread>
#include <vector>

using namespace sb;

namespace {

RequestRecord request(const QString &route, std::vector<std::pair<int, OutcomeKind>> attempts, RequestStatus status)
{
    RequestRecord r;
    r.logicalModel = route;
    for (const auto &[channel, outcome] : attempts) {
        AttemptRecord a;
        a.channelId = channel;
        a.channelName = QStringLiteral("ch-%1").arg(channel);
        a.outcome = outcome;
        a.latencyMs = 300;
        a.ttftMs = outcome == OutcomeKind::Success ? 40 : -1;
        r.attempts.push_back(a);
    }
    r.channelId = attempts.back().first;
    r.channelName = QStringLiteral("ch-%1").arg(r.channelId);
    r.status = status;
    r.outcome = attempts.back().second;
    r.failover = attempts.size() > 1 && attempts.front().first != attempts.back().first;
    return r;
}

} // namespace

class tst_PrometheusExporter : public QObject {
    Q_OBJECT

private slots:
    void countersGaugesAndHistogramsPassTheChecker()
    {
        Histogram h;
        h.recordMillis(10);   // ≤ 0.025
        h.recordMillis(25);   // exactly on a bound: counts in that bucket (le is "less or equal")
        h.recordMillis(700);  // ≤ 1
        h.recordSeconds(500); // beyond 60: +Inf only

        PrometheusExporter out;
        out.family(QStringLiteral("sb_requests_total"), QStringLiteral("Requests."), PrometheusExporter::Type::Counter);
        out.sample({{QStringLiteral("route"), QStringLiteral("gpt-4o")}, {QStringLiteral("status"), QStringLiteral("ok")}}, 3);
        out.sample({{QStringLiteral("route"), QStringLiteral("gpt-4o")}, {QStringLiteral("status"), QStringLiteral("error")}}, 1);
        out.family(QStringLiteral("sb_score"), QStringLiteral("Score, 0 to 100."), PrometheusExporter::Type::Gauge);
        out.sample({}, 87.5);
        out.family(QStringLiteral("sb_ttft_seconds"), QStringLiteral("TTFT."), PrometheusExporter::Type::Histogram);
        out.histogram({{QStringLiteral("channel"), QStringLiteral("A")}}, h.snapshot());

        PrometheusTextChecker checker;
        const QStringList errors = checker.check(out.text());
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n') + "\n" + out.text()));
        const auto &s = checker.samples();
        QCOMPARE(s.value(R"(sb_requests_total{route="gpt-4o",status="ok"})"), 3.0);
        QCOMPARE(s.value("sb_score"), 87.5);
        QCOMPARE(s.value(R"(sb_ttft_seconds_bucket{channel="A",le="0.025"})"), 2.0);
        QCOMPARE(s.value(R"(sb_ttft_seconds_bucket{channel="A",le="1"})"), 3.0);
        QCOMPARE(s.value(R"(sb_ttft_seconds_bucket{channel="A",le="60"})"), 3.0);
        QCOMPARE(s.value(R"(sb_ttft_seconds_bucket{channel="A",le="+Inf"})"), 4.0);
        QCOMPARE(s.value(R"(sb_ttft_seconds_count{channel="A"})"), 4.0);
        QCOMPARE(s.value(R"(sb_ttft_seconds_sum{channel="A"})"), 0.010 + 0.025 + 0.7 + 500);
        QCOMPARE(checker.typeOf("sb_ttft_seconds"), QStringLiteral("histogram"));
        QVERIFY(out.text().contains("# TYPE sb_requests_total counter\n"));
    }

    void labelValuesAreEscaped()
    {
        const QString nasty = QStringLiteral("a\\b \"quoted\"\nnext line ünïcødé");
        PrometheusExporter out;
        out.family(QStringLiteral("sb_channel_info"), QStringLiteral("Help with a backslash \\ and\na newline."), PrometheusExporter::Type::Gauge);
        out.sample({{QStringLiteral("channel"), nasty}}, 1);
        QVERIFY(out.text().contains(R"(channel="a\\b \"quoted\"\nnext line)"));
        QVERIFY(out.text().contains("# HELP sb_channel_info Help with a backslash \\\\ and\\na newline.\n"));
        PrometheusTextChecker checker;
        const QStringList errors = checker.check(out.text());
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        // Read back, the value is the original string.
        QVERIFY(checker.samples().contains(PrometheusTextChecker::key("sb_channel_info", {{"channel", nasty}})));
    }

    void valuesFormat()
    {
        QCOMPARE(PrometheusExporter::formatValue(3), QStringLiteral("3"));
        QCOMPARE(PrometheusExporter::formatValue(0.025), QStringLiteral("0.025"));
        QCOMPARE(PrometheusExporter::formatValue(qInf()), QStringLiteral("+Inf"));
        QCOMPARE(PrometheusExporter::formatValue(-qInf()), QStringLiteral("-Inf"));
        QCOMPARE(PrometheusExporter::formatValue(qQNaN()), QStringLiteral("NaN"));
        QVERIFY(PrometheusExporter::validMetricName("switchboard_requests_total"));
        QVERIFY(!PrometheusExporter::validMetricName("1abc"));
        QVERIFY(!PrometheusExporter::validMetricName("a-b"));
        QVERIFY(!PrometheusExporter::validLabelName("__reserved"));
    }

    void histogramIgnoresNegativeAndNaN()
    {
        Histogram h;
        h.recordSeconds(-1);
        h.recordSeconds(std::nan(""));
        h.recordSeconds(2);
        const auto s = h.snapshot();
        QCOMPARE(s.count, 1u);
        QCOMPARE(s.cumulative.size(), Histogram::latencyBounds().size() + 1);
        QCOMPARE(s.sumSeconds, 2.0);
    }

    void checkerRejectsWhatTheFormatForbids_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addRow("sample before TYPE") << QByteArray("x_total 1\n# TYPE x_total counter\n");
        QTest::addRow("bad metric name") << QByteArray("# TYPE 1x gauge\n1x 1\n");
        QTest::addRow("bad label escape") << QByteArray("# TYPE x gauge\nx{a=\"\\t\"} 1\n");
        QTest::addRow("unquoted label") << QByteArray("# TYPE x gauge\nx{a=b} 1\n");
        QTest::addRow("bad value") << QByteArray("# TYPE x gauge\nx one\n");
        QTest::addRow("series twice") << QByteArray("# TYPE x gauge\nx{a=\"1\"} 1\nx{a=\"1\"} 2\n");
        QTest::addRow("family split") << QByteArray("# TYPE x gauge\nx 1\n# TYPE y gauge\ny 1\nx{a=\"2\"} 1\n");
        QTest::addRow("second TYPE") << QByteArray("# TYPE x gauge\nx 1\n# TYPE x gauge\n");
        QTest::addRow("counter without _total") << QByteArray("# TYPE x counter\nx 1\n");
        QTest::addRow("negative counter") << QByteArray("# TYPE x_total counter\nx_total -1\n");
        QTest::addRow("buckets not cumulative")
            << QByteArray("# TYPE h histogram\nh_bucket{le=\"1\"} 5\nh_bucket{le=\"2\"} 3\nh_bucket{le=\"+Inf\"} 5\nh_sum 1\nh_count 5\n");
        QTest::addRow("+Inf differs from _count")
            << QByteArray("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n");
        QTest::addRow("no +Inf bucket") << QByteArray("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n");
        QTest::addRow("bucket without le") << QByteArray("# TYPE h histogram\nh_bucket 1\nh_sum 1\nh_count 1\n");
        QTest::addRow("bad escape in HELP") << QByteArray("# HELP x a\\tb\n# TYPE x gauge\nx 1\n");
        QTest::addRow("no final newline") << QByteArray("# TYPE x gauge\nx 1");
    }

    void checkerRejectsWhatTheFormatForbids()
    {
        QFETCH(QByteArray, text);
        PrometheusTextChecker checker;
        QVERIFY2(!checker.check(text).isEmpty(), text.constData());
    }

    void requestMetricsCountByRouteChannelAndOutcome()
    {
        RequestMetrics metrics;
        metrics.record(request("gpt-4o", {{1, OutcomeKind::Success}}, RequestStatus::Ok));
        metrics.record(request("gpt-4o", {{1, OutcomeKind::ProviderDown}, {2, OutcomeKind::Success}}, RequestStatus::Ok));
        metrics.record(request("gpt-4o", {{1, OutcomeKind::ProviderDown}, {2, OutcomeKind::ProviderDown}, {1, OutcomeKind::Timeout}},
                               RequestStatus::Error));
        const auto s = metrics.snapshot();
        QCOMPARE(s.routes.at("gpt-4o").failovers, 1u); // the third ended on the channel it began on
        QCOMPARE(s.routes.at("gpt-4o").retries, 3u);
        QCOMPARE((s.requests.at({"gpt-4o", 2, "ch-2", RequestStatus::Ok, OutcomeKind::Success})), 1u);
        QCOMPARE((s.requests.at({"gpt-4o", 1, "ch-1", RequestStatus::Error, OutcomeKind::Timeout})), 1u);
        QCOMPARE((s.attempts.at({"gpt-4o", 1, "ch-1", OutcomeKind::ProviderDown})), 2u);
        const auto &ch1 = s.channels.at({1, "ch-1"});
        QCOMPARE(ch1.latency.count, 4u); // every attempt on channel 1
        QCOMPARE(ch1.ttft.count, 1u);    // only the successful one has a first token
    }

    // Workers record at once, each making series the others are reading: nothing is lost or counted
    // twice when a new series is made between two lookups of the same request.
    void workersRecordingAtOnceCountEveryRequestOnce()
    {
        RequestMetrics metrics;
        constexpr int kThreads = 4;
        constexpr int kEach = 3000;
        std::vector<std::thread> workers;
        for (int t = 0; t < kThreads; ++t) {
            workers.emplace_back([&metrics, t] {
                for (int i = 0; i < kEach; ++i) {
                    // Routes and channels new to every thread at first, then shared.
                    const QString route = QStringLiteral("route-%1").arg((i + t) % 7);
                    metrics.record(request(route, {{i % 5 + 1, OutcomeKind::ProviderDown}, {(i + t) % 3 + 1, OutcomeKind::Success}},
                                           RequestStatus::Ok));
                }
            });
        }
        for (std::thread &worker : workers)
            worker.join();
        const auto s = metrics.snapshot();
        std::uint64_t requests = 0, attempts = 0, latencies = 0, retries = 0;
        for (const auto &[key, count] : s.requests)
            requests += count;
        for (const auto &[key, count] : s.attempts)
            attempts += count;
        for (const auto &[key, channel] : s.channels)
            latencies += channel.latency.count;
        for (const auto &[route, totals] : s.routes)
            retries += totals.retries;
        QCOMPARE(requests, std::uint64_t(kThreads * kEach));
        QCOMPARE(attempts, std::uint64_t(2 * kThreads * kEach));
        QCOMPARE(latencies, std::uint64_t(2 * kThreads * kEach));
        QCOMPARE(retries, std::uint64_t(kThreads * kEach));
        QCOMPARE(s.routes.size(), std::size_t(7));
        QCOMPARE(s.channels.size(), std::size_t(5));
    }
};

QTEST_GUILESS_MAIN(tst_PrometheusExporter)
#include "tst_PrometheusExporter.moc"
