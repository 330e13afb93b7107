// Heartbeats in every dialect, end to end: a real Gateway whose prober sends each dialect's probe
// request to the simulator's provider of that dialect. A healthy provider must pass its heartbeat;
// one in an outage must fail it. (DashScope's probe lists models, which its chat ErrorMap took for
// a broken answer, so its ejected channels could never be re-admitted.)
#include "sim/FakeProvider.h"
#include "FakeProviderSpecs.h"
#include "ProxyConfigs.h"
#include "control/Gateway.h"

#include <QtTest>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

// One provider of `dialect` serving m-1.
std::shared_ptr<EngineConfig> dialectConfig(const QString &dialect, const QString &baseUrl)
{
    auto config = oneChannelConfig(dialect, baseUrl, QStringLiteral("m-1"));
    config->providers.front().dialect = dialect;
    config->probe.interval = 3600s; // the first tick probes the idle channel once; nothing after
    return config;
}

} // namespace

class tst_HeartbeatDialects : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{99};
    ScenarioClock m_scenarioClock{m_clock, 1.0};

    struct Probed {
        std::uint64_t succeeded = 0, failed = 0;
        quint64 atProvider = 0;
    };

    Probed heartbeat(const QString &dialect, std::vector<FaultSpec> faults)
    {
        ProviderSpec spec = fakeProviderSpec(dialect, std::move(faults));
        spec.dialect = dialect;
        spec.models = {QStringLiteral("m-1")};
        FakeProvider provider(spec, m_scenarioClock, m_random, 1);
        QString error;
        if (!provider.start(&error))
            qFatal("fake provider did not start: %s", qPrintable(error));
        Gateway gateway(m_clock, m_random, dialectConfig(dialect, provider.baseUrl()));
        if (!gateway.start(&error))
            qFatal("gateway did not start: %s", qPrintable(error));
        const auto finished = [&] {
            const auto s = gateway.snapshot().prober;
            return s.started >= 1 && s.succeeded + s.failed == s.started;
        };
        if (!QTest::qWaitFor(finished, 15000))
            qWarning("no heartbeat finished within 15 s");
        const auto s = gateway.snapshot().prober;
        // ERNIE has no listing endpoint: its probe is a one-token chat.
        Probed out{s.succeeded, s.failed, provider.stats().probes + provider.stats().chat};
        gateway.stop();
        provider.stop();
        return out;
    }

private slots:
    void healthyProviderPassesItsHeartbeat_data()
    {
        QTest::addColumn<QString>("dialect");
        for (const char *d : {"openai_compat", "anthropic", "gemini", "dashscope", "ernie"})
            QTest::newRow(d) << QString::fromLatin1(d);
    }

    void healthyProviderPassesItsHeartbeat()
    {
        QFETCH(QString, dialect);
        const Probed p = heartbeat(dialect, {});
        QVERIFY2(p.atProvider >= 1, "the probe never reached the provider");
        QCOMPARE(p.failed, 0u);
        QVERIFY(p.succeeded >= 1);
    }

    void providerInAnOutageFailsItsHeartbeat_data() { healthyProviderPassesItsHeartbeat_data(); }

    void providerInAnOutageFailsItsHeartbeat()
    {
        QFETCH(QString, dialect);
        FaultSpec blackout;
        blackout.type = FaultSpec::Type::Blackout;
        blackout.from = 0;
        blackout.mix = {ErrorMixEntry{SimError::Http503, 1.0}};
        const Probed p = heartbeat(dialect, {blackout});
        QVERIFY2(p.atProvider >= 1, "the probe never reached the provider");
        QCOMPARE(p.succeeded, 0u);
        QVERIFY(p.failed >= 1);
    }
};

QTEST_GUILESS_MAIN(tst_HeartbeatDialects)
#include "tst_HeartbeatDialects.moc"
