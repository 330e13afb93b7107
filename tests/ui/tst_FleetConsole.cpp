// The console in front of a fleet: two real engines sharing a real redis-server, the Fleet page
// listing both with their configurations told apart, a drain on one shown through the other, the
// banner while Redis is away, the same page for an instance attached through its admin API, and
// the Attach dialog refusing to send a token over plain HTTP to another machine unless told to.
#include "AttachFixture.h"
#include "RedisServer.h"
#include "TestPaths.h"

#include "fleet/FleetBanner.h"
#include "fleet/FleetPage.h"
#include "pages/OverviewPage.h"

#include <QCheckBox>
#include <QTableWidget>

using namespace sb;
using namespace sb::test;

namespace {

QStringList column(QTableWidget *table, int col)
{
    QStringList texts;
    for (int r = 0; r < table->rowCount(); ++r)
        texts << (table->item(r, col) ? table->item(r, col)->text() : QString());
    return texts;
}

QString stateOfChannel(const FleetPage &page, const QString &name)
{
    for (const auto &c : page.report().channels)
        if (c.name == name)
            return c.pool == u"active" ? c.breaker : c.pool;
    return {};
}

} // namespace

class tst_FleetConsole : public QObject {
    Q_OBJECT

    QTemporaryDir m_settingsDir;
    RedisServer m_redis;

    std::shared_ptr<EngineConfig> member(AttachLab &lab, const QString &instance)
    {
        sim::FakeProvider *primary = lab.provider(QStringLiteral("primary"));
        sim::FakeProvider *fallback = lab.provider(QStringLiteral("fallback"));
        if (!primary || !fallback)
            return nullptr;
        auto config = twoChannelConfig(QStringLiteral("gpt-4o"), primary->baseUrl(), fallback->baseUrl(), kRemoteToken);
        config->fleet.redisUrl = m_redis.url();
        config->fleet.name = QStringLiteral("console-fleet");
        config->fleet.instanceId = instance;
        return config;
    }

private slots:
    void initTestCase() { useOwnSettings(m_settingsDir, QStringLiteral("tst_FleetConsole")); }

    void theFleetPageShowsEveryInstanceAndTheBannerAnOutage()
    {
        QString error;
        QVERIFY2(m_redis.start({}, &error), qPrintable(error));
        AttachLab lab;
        auto configA = member(lab, QStringLiteral("instance-a"));
        auto configB = member(lab, QStringLiteral("instance-b"));
        QVERIFY(configA && configB);
        configB->breaker.consecutiveFailures = 9; // b runs another configuration than a
        Gateway *a = lab.engine(configA, &error);
        QVERIFY2(a, qPrintable(error));
        Gateway *b = lab.engine(configB, &error);
        QVERIFY2(b, qPrintable(error));

        MainWindow window;
        window.resize(1280, 800);
        window.attach(a);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showPage(window.pageNames().indexOf(QStringLiteral("Fleet")));
        FleetPage *page = window.fleetPage();
        QCOMPARE(window.currentPageWidget(), static_cast<QWidget *>(page));
        QTRY_VERIFY_WITH_TIMEOUT((window.pollFleet(), page->report().instances.size() == 2), 10000);
        QVERIFY(page->report().connected);
        QVERIFY2(page->summaryText().contains(QStringLiteral("console-fleet")), qPrintable(page->summaryText()));
        QVERIFY(page->summaryText().contains(QStringLiteral("instance-a")));
        QStringList ids = column(page->instanceTable(), 0);
        ids.sort();
        QCOMPARE(ids, (QStringList{QStringLiteral("instance-a (shown)"), QStringLiteral("instance-b")}));
        // Two configurations in one fleet: the notice says which instances differ.
        QVERIFY(page->report().configDiffers);
        // One against one: neither is the fleet's configuration, so both are named.
        for (const QString &config : column(page->instanceTable(), 2))
            QVERIFY2(config.contains(QStringLiteral("differs")), qPrintable(config));
        auto *notice = page->findChild<QLabel *>(QStringLiteral("fleetConfigNotice"));
        QVERIFY(notice->isVisible());
        QVERIFY2(notice->text().contains(QStringLiteral("instance-a")), qPrintable(notice->text()));
        QVERIFY2(notice->text().contains(QStringLiteral("instance-b")), qPrintable(notice->text()));
        QVERIFY(!window.fleetBanner()->isVisible());

        // A drain on b reaches a through Redis; a's page shows the fleet's view of the channel.
        QVERIFY(b->router().drain(configB->channels[0].id, QStringLiteral("drained on b")));
        QTRY_COMPARE_WITH_TIMEOUT((window.pollFleet(), stateOfChannel(*page, QStringLiteral("gpt-4o/A"))), QStringLiteral("drained"), 5000);
        QVERIFY(column(page->channelTable(), 1).contains(QStringLiteral("drained")));
        QVERIFY(window.grab().save(artifactPath(QStringLiteral("fleet/fleet.png"))));

        // Redis goes: the banner says so on every page, with the instance's own words.
        m_redis.kill();
        QTRY_VERIFY_WITH_TIMEOUT((window.pollFleet(), window.fleetBanner()->isVisible()), 5000);
        QVERIFY2(window.fleetBanner()->text().contains(QStringLiteral("unreachable")), qPrintable(window.fleetBanner()->text()));
        QVERIFY(window.fleetBanner()->text().contains(m_redis.url()));
        QVERIFY(window.fleetBanner()->text().contains(QStringLiteral("own state")));
        window.showPage(0);
        QVERIFY(window.fleetBanner()->isVisible());
        window.overviewPage()->redrawNow();
        QVERIFY(window.grab().save(artifactPath(QStringLiteral("fleet/redis-lost-overview.png"))));
        window.showPage(window.pageNames().indexOf(QStringLiteral("Fleet")));
        QVERIFY(window.grab().save(artifactPath(QStringLiteral("fleet/redis-lost.png"))));

        // Back: the banner goes as soon as the instance is in the fleet again.
        QVERIFY2(m_redis.start({}, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT((window.pollFleet(), !window.fleetBanner()->isVisible() && page->report().connected), 15000);

        // Attached to b over its admin API, the page is b's view of the same fleet.
        window.attachTo(RemoteGateway::Target{QStringLiteral("127.0.0.1"), b->port(), kRemoteToken});
        QTRY_VERIFY_WITH_TIMEOUT((window.pollFleet(), page->report().instance == u"instance-b"), 10000);
        QTRY_VERIFY_WITH_TIMEOUT((window.pollFleet(), column(page->instanceTable(), 0).contains(QStringLiteral("instance-b (shown)"))), 10000);
        QVERIFY(window.grab().save(artifactPath(QStringLiteral("fleet/attached-fleet.png"))));
        window.detachRemote();
        m_redis.kill();
    }

    void anInstanceOutsideAFleetSaysHowToMakeOne()
    {
        AttachLab lab;
        QString error;
        Gateway *alone = lab.twoChannelEngine(QStringLiteral("local"), QString(), &error);
        QVERIFY2(alone, qPrintable(error));
        MainWindow window;
        window.attach(alone);
        QTRY_VERIFY_WITH_TIMEOUT((window.pollFleet(), window.fleetPage()->summaryText().contains(QStringLiteral("not part of a fleet"))), 5000);
        QVERIFY(window.fleetPage()->summaryText().contains(QStringLiteral("--redis")));
        QVERIFY(!window.fleetBanner()->isVisible());
    }

    // The admin token over plain HTTP to another machine crosses the network in clear: the dialog
    // says so and connects only once that is chosen; TLS, or this machine, needs no such choice.
    void plainHttpToAnotherMachineNeedsAnExplicitChoice()
    {
        AttachDialog dialog;
        auto *consent = dialog.findChild<QCheckBox *>(QStringLiteral("plainConsent"));
        auto *tls = dialog.findChild<QCheckBox *>(QStringLiteral("tlsBox"));
        QVERIFY(consent && tls);
        dialog.setTarget(RemoteGateway::Target{QStringLiteral("10.0.0.5"), 8400, kRemoteToken});
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(!dialog.connectButton()->isEnabled());
        QVERIFY(consent->isVisible());
        QVERIFY2(dialog.problems().join(' ').contains(QStringLiteral("in clear")), qPrintable(dialog.problems().join(' ')));
        QVERIFY(dialog.grab().save(artifactPath(QStringLiteral("fleet/attach-plain-http.png"))));
        consent->setChecked(true);
        QVERIFY(dialog.connectButton()->isEnabled());
        QVERIFY(!dialog.target().tls);
        consent->setChecked(false);
        tls->setChecked(true);
        QVERIFY(dialog.connectButton()->isEnabled());
        QVERIFY(!consent->isVisible());
        QVERIFY(dialog.target().tls);
        // This machine, or no token to leak: nothing to choose.
        tls->setChecked(false);
        dialog.setTarget(RemoteGateway::Target{QStringLiteral("127.0.0.1"), 8400, kRemoteToken});
        QVERIFY(dialog.connectButton()->isEnabled());
        QVERIFY(!consent->isVisible());
        dialog.setTarget(RemoteGateway::Target{QStringLiteral("localhost"), 8400, kRemoteToken});
        QVERIFY(dialog.connectButton()->isEnabled());
    }
};

QTEST_MAIN(tst_FleetConsole)
#include "tst_FleetConsole.moc"
