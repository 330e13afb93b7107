// The tray while the console is attached: a circuit that opens
// on the attached instance pops a notification just as one on the embedded engine does, named after
// the instance; mute holds for it too; the recent events an attach brings as context are never
// announced as news; and the embedded engine, still serving unseen, goes on alerting under its own
// name. Real Gateways on loopback ports, the simulator's providers (one of them failing every chat).
#include "AttachFixture.h"
#include "FakeClock.h"
#include "TrayNotifier.h"
#include "attach/InstanceIndicator.h"

using namespace sb;
using namespace sb::sim;
using namespace sb::test;

namespace {

// Trips after two failures in a row, and only on that: the test knows when each circuit opens.
std::shared_ptr<EngineConfig> tripsFast(std::shared_ptr<EngineConfig> config)
{
    config->breaker.consecutiveFailures = 2;
    config->breaker.minCallsInWindow = 100;
    return config;
}

QStringList titles(const QSignalSpy &notified)
{
    QStringList list;
    for (const QList<QVariant> &args : notified)
        list << args.at(0).toString();
    return list;
}

} // namespace

class tst_AttachedTray : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;
    std::unique_ptr<AttachLab> m_lab;

private slots:
    void initTestCase() { useOwnSettings(m_settingsDir, QStringLiteral("tst_AttachedTray")); }
    void init() { m_lab = std::make_unique<AttachLab>(); }
    void cleanup() { m_lab.reset(); }

    void attachedCircuitsNotifyNamedMutedAndNeverTwice()
    {
        FakeProvider *down = m_lab->provider(QStringLiteral("down"), true);
        FakeProvider *up = m_lab->provider(QStringLiteral("up"));
        QVERIFY(down && up);
        // The instance: gpt-4o over gpt-4o/A (the failing provider), then gpt-4o/B; and a route
        // "spare" over its own channel on the failing provider, so a second circuit opens when the
        // test asks for it.
        auto remoteConfig = tripsFast(twoChannelConfig(QStringLiteral("gpt-4o"), down->baseUrl(), up->baseUrl(), kRemoteToken));
        ChannelConfig spare = remoteConfig->channels.front();
        spare.id = 3;
        spare.name = QStringLiteral("spare/A");
        remoteConfig->channels.push_back(spare);
        RouteConfig spareRoute = remoteConfig->routes.front();
        spareRoute.id = 2;
        spareRoute.logicalModel = QStringLiteral("spare");
        spareRoute.channelIds = {3, 2};
        remoteConfig->routes.push_back(spareRoute);
        QString error;
        Gateway *remote = m_lab->engine(remoteConfig, &error);
        QVERIFY2(remote, qPrintable(error));
        Gateway *embedded = m_lab->engine(tripsFast(twoChannelConfig(QStringLiteral("local"), down->baseUrl(), up->baseUrl(), QString())), &error);
        QVERIFY2(embedded, qPrintable(error));

        test::FakeClock clock; // the tray's rate limit never lets time pass: each channel may notify once
        TrayNotifier tray(clock);
        tray.setMuted(false);
        QSignalSpy notified(&tray, &TrayNotifier::notified);
        MainWindow window;
        window.attach(embedded);
        window.setTrayNotifier(&tray);
        const RemoteGateway::Target target = targetOf(*remote, kRemoteToken);
        window.attachTo(target);
        QTRY_VERIFY_WITH_TIMEOUT(window.instanceIndicator()->text().contains(QStringLiteral("Connected")), 10000);
        const QString instance = window.remoteGateway()->displayName();

        // Muted: the instance's circuit opens, the console shows it, the tray counts it and stays quiet.
        tray.setMuted(true);
        QVERIFY(driveUntilOpen(*remote, kRemoteToken, QStringLiteral("gpt-4o"), 1));
        QTRY_VERIFY_WITH_TIMEOUT(incidentChannels(window).contains(QStringLiteral("gpt-4o/A")), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(tray.stats().muted >= 1, 10000);
        QCOMPARE(notified.count(), 0);

        // Unmuted: the next circuit that opens there pops up, the instance first in its title.
        tray.setMuted(false);
        QVERIFY(driveUntilOpen(*remote, kRemoteToken, QStringLiteral("spare"), 3));
        const QString spareOpen = instance + QStringLiteral(" — spare/A: circuit open");
        QTRY_VERIFY_WITH_TIMEOUT(titles(notified).contains(spareOpen), 10000);
        const QString body = notified.at(int(titles(notified).indexOf(spareOpen))).at(1).toString();
        QVERIFY2(!body.isEmpty() && body != QStringLiteral("No reason was given."), qPrintable(body)); // the engine's reason
        for (const QString &title : titles(notified))
            QVERIFY2(!title.contains(QStringLiteral("gpt-4o/A: circuit open")), qPrintable(title)); // that one came while muted

        // The embedded engine keeps serving while another instance is shown; its alert says whose it is.
        QVERIFY(driveUntilOpen(*embedded, QString(), QStringLiteral("gpt-4o"), 1));
        QTRY_VERIFY_WITH_TIMEOUT(titles(notified).contains(QStringLiteral("Embedded engine — local/A: circuit open")), 10000);

        // Attached again, the console gets the instance's recent events as context: both circuits
        // are on the Incidents page, and the tray announces neither a second time.
        const auto instanceCircuits = [&] {
            int n = 0;
            for (const QString &title : titles(notified))
                n += title.startsWith(instance) && title.endsWith(QStringLiteral("circuit open")) ? 1 : 0;
            return n;
        };
        QCOMPARE(instanceCircuits(), 1);
        window.detachRemote();
        QVERIFY(window.incidentsPage()->model()->rowCount() == 0);
        window.attachTo(target);
        QTRY_COMPARE_WITH_TIMEOUT(incidentChannels(window), (QStringList{QStringLiteral("gpt-4o/A"), QStringLiteral("spare/A")}), 10000);
        QCoreApplication::processEvents();
        QCOMPARE(instanceCircuits(), 1);
    }
};

QTEST_MAIN(tst_AttachedTray)
#include "tst_AttachedTray.moc"
