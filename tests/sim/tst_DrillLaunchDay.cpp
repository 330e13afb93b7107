// The shipped launch-day drill at x10 speed through the real proxy
// (Gateway + Router + adapters + UpstreamClient + HttpServer), against its fake providers. The
// engine's windows and timeouts are scaled by the same factor. Asserts the drill's success target
// (>= 99.5 %) and that the breaker, not a per-request retry, carried the outage. TTFT is printed, not
// asserted: at x10 a scenario millisecond is a tenth of a real one, so a busy shared machine's noise
// shows ten times over (CI once saw p95 1,136 ms under parallel ctest). The full-length run at x1,
// tests/sim/run-drill.sh, is the benchmark that measures the TTFT target.

#include "sim/DrillRunner.h"
#include "sim/EngineTimeScale.h"

#include "TestPaths.h"
#include "control/Gateway.h"

#include <QFile>
#include <QJsonDocument>
#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace std::chrono_literals;

namespace {

std::shared_ptr<EngineConfig> launchDayConfig(const QString &primaryUrl, const QString &fallbackUrl)
{
    auto config = std::make_shared<EngineConfig>();
    config->proxy.listenPort = 0;
    config->breaker = BreakerConfig::launchDay();
    ProviderConfig a;
    a.id = 1;
    a.name = QStringLiteral("primary");
    a.dialect = QStringLiteral("openai_compat");
    a.baseUrl = primaryUrl;
    a.domain.account = QStringLiteral("acct-a");
    a.keys = {ApiKeyConfig{1, QStringLiteral("primary key"), QStringLiteral("sk-sim-primary-0001"), true, {}}};
    ProviderConfig b = a;
    b.id = 2;
    b.name = QStringLiteral("fallback");
    b.baseUrl = fallbackUrl;
    b.domain.account = QStringLiteral("acct-b");
    b.keys = {ApiKeyConfig{2, QStringLiteral("fallback key"), QStringLiteral("sk-sim-fallback-0002"), true, {}}};
    config->providers = {a, b};
    ChannelConfig ca;
    ca.id = 1;
    ca.name = QStringLiteral("primary"); // the names the scenario's report names as primary
    ca.providerId = 1;
    ca.upstreamModel = QStringLiteral("gpt-4o");
    ChannelConfig cb = ca;
    cb.id = 2;
    cb.name = QStringLiteral("fallback");
    cb.providerId = 2;
    config->channels = {ca, cb};
    RouteConfig route;
    route.id = 1;
    route.logicalModel = QStringLiteral("gpt-4o");
    route.channelIds = {1, 2};
    // Launch day has a primary and a fallback: listed order. (With the health strategy a busy test
    // machine can make the router leave the primary before the outage, and the drill drills nothing.)
    route.strategy = RoutingStrategy::Priority;
    config->routes = {route};
    return config;
}

} // namespace

class tst_DrillLaunchDay : public QObject {
    Q_OBJECT

private slots:
    void launchDayAtTenTimesSpeedThroughTheProxy()
    {
        constexpr double kScale = 10.0;
        QStringList errors;
        auto scenario = Scenario::fromFile(sb::test::sourcePath(QStringLiteral("resources/drills/launch-day.json")), &errors);
        QVERIFY2(scenario, qPrintable(errors.join('\n')));
        scenario->timeScale = kScale;
        for (ProviderSpec &p : scenario->providers)
            p.port = 0; // the shipped ports may be taken on a test machine

        DrillRunner runner(*scenario);
        QString error;
        QVERIFY2(runner.startProviders(&error), qPrintable(error));
        auto config = launchDayConfig(runner.provider("primary")->baseUrl(), runner.provider("fallback")->baseUrl());
        QVERIFY2(config->validate().isEmpty(), qPrintable(config->validate().join('\n')));
        int rounded = 0;
        auto scaled = std::make_shared<const EngineConfig>(scaleEngineConfig(*config, kScale, &rounded));
        SplitMixRandom random(99);
        Gateway gateway(SystemClock::instance(), random, scaled);
        QVERIFY2(gateway.start(&error), qPrintable(error));
        QVERIFY2(runner.startLoad(QUrl(gateway.baseUrl()), {}, &error), qPrintable(error));
        QSignalSpy finished(&runner, &DrillRunner::finished);
        QVERIFY(finished.wait(240'000)); // 30 s expected
        gateway.stop(500ms);

        const DrillReport report = runner.report();
        QFile out(sb::test::artifactPath(QStringLiteral("drill-launch-day-x10.json")));
        if (out.open(QIODevice::WriteOnly | QIODevice::Truncate))
            out.write(QJsonDocument(report.toJson()).toJson());
        qInfo().noquote() << report.toText() << "engine fields rounded by the x10 scaling:" << rounded;

        // The outage really happened and the proxy had to work around it.
        const FakeProvider::Stats primary = runner.provider("primary")->stats();
        const quint64 refused = primary.injected[std::size_t(SimError::Http500)] + primary.injected[std::size_t(SimError::Http503)]
            + primary.injected[std::size_t(SimError::Http429)];
        QVERIFY2(refused > 0, "the primary never refused anything: the drill did not drill");
        QVERIFY(runner.provider("fallback")->stats().succeeded > 0);
        QCOMPARE(report.requests, 1200);
        QCOMPARE(report.dropped, 0);

        // The drill's success target, as the client saw it.
        QVERIFY2(report.successRate >= 0.995, qPrintable(report.toText()));
        // The breaker took the primary out: of the ~480 requests inside the outage only the few that
        // filled its window paid a refused attempt first. Without it every one of them would have
        // (480 failovers), and each would carry a refusal's delay in its TTFT.
        constexpr int kOutageRequests = 120 * 4;
        QVERIFY2(report.failovers <= kOutageRequests / 20, qPrintable(report.toText()));
        QVERIFY2(report.attempts - report.requests <= kOutageRequests / 20, qPrintable(report.toText()));
    }
};

QTEST_GUILESS_MAIN(tst_DrillLaunchDay)
#include "tst_DrillLaunchDay.moc"
