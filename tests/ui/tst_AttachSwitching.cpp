// Re-attach: a console attached to instance alpha, then
// straight to instance beta, back to the embedded engine and through the dialog to alpha again shows
// each time only the source it now shows — channel names, incidents, the Overview's lines and
// figures, the Settings notice — and keeps no connection open to an instance it left. A history
// answer already on its way when the console attaches is not shown as the instance's. Real Gateways
// on loopback ports, a real history file, widgets offscreen.
#include "AttachFixture.h"
#include "FakeClock.h"
#include "HistoryFixture.h"
#include "attach/InstanceIndicator.h"
#include "attach/UnavailableNotice.h"
#include "history/HistoryService.h"
#include "pages/OverviewPage.h"
#include "settings/SettingsPage.h"
#include "store/HistoryWriter.h"

#include <QTemporaryDir>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;

namespace {

const QString kBetaToken = QStringLiteral("beta-instance-token-51c2");

QStringList overviewChannels(const MainWindow &window)
{
    QStringList names;
    for (const auto &[id, track] : window.overviewPage()->history().channels())
        names << track.name;
    names.sort();
    return names;
}

bool allStartWith(const QStringList &names, const QString &prefix)
{
    for (const QString &name : names) {
        if (!name.startsWith(prefix))
            return false;
    }
    return true;
}

// The instance's side of the line: connections its proxy port holds open (the admin API shares it).
std::int64_t openConnections(const Gateway &gateway)
{
    return gateway.snapshot().server.connectionsOpen;
}

} // namespace

class tst_AttachSwitching : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<AttachLab> m_lab;
    Gateway *m_embedded = nullptr;
    Gateway *m_alpha = nullptr;
    Gateway *m_beta = nullptr;

    void startAll()
    {
        m_lab = std::make_unique<AttachLab>();
        QString error;
        QVERIFY2((m_embedded = m_lab->twoChannelEngine(QStringLiteral("local"), QString(), &error)), qPrintable(error));
        QVERIFY2((m_alpha = m_lab->twoChannelEngine(QStringLiteral("alpha"), kRemoteToken, &error)), qPrintable(error));
        QVERIFY2((m_beta = m_lab->twoChannelEngine(QStringLiteral("beta"), kBetaToken, &error)), qPrintable(error));
    }

private slots:
    void initTestCase()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    }

    void cleanup()
    {
        m_lab.reset();
        m_embedded = m_alpha = m_beta = nullptr;
    }

    void switchingInstancesLeavesNothingOfThePreviousOne()
    {
        startAll();
        // Each instance its own traffic and its own incident: alpha 3 requests and alpha/A drained,
        // beta 5 requests and beta/B drained.
        for (int i = 0; i < 3; ++i)
            QCOMPARE(chatThrough(*m_alpha, kRemoteToken), 200);
        for (int i = 0; i < 5; ++i)
            QCOMPARE(chatThrough(*m_beta, kBetaToken), 200);
        m_alpha->router().drain(1, QStringLiteral("drained by the test"));
        m_beta->router().drain(2, QStringLiteral("drained by the test"));

        MainWindow window;
        window.resize(1400, 860);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.attach(m_embedded);
        QTRY_COMPARE_WITH_TIMEOUT(channelNames(window), (QStringList{"local/A", "local/B"}), 10000);

        window.attachTo(targetOf(*m_alpha, kRemoteToken));
        const QString alpha = window.remoteGateway()->displayName();
        QTRY_COMPARE_WITH_TIMEOUT(channelNames(window), (QStringList{"alpha/A", "alpha/B"}), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(incidentChannels(window), QStringList{"alpha/A"}, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(window.overviewPage()->kpiCaption(QStringLiteral("Requests/s")), QStringLiteral("0 in flight · 3 total"), 10000);
        QVERIFY(window.settingsPage()->engineNotice()->text().contains(alpha));
        QTRY_VERIFY_WITH_TIMEOUT(openConnections(*m_alpha) >= 1, 10000);
        QPointer<RemoteGateway> alphaWatch = window.remoteGateway();

        // Straight on to beta: from the first moment, nothing of alpha on any page.
        window.attachTo(targetOf(*m_beta, kBetaToken));
        const QString beta = window.remoteGateway()->displayName();
        QVERIFY(channelNames(window).isEmpty());
        QVERIFY(incidentChannels(window).isEmpty());
        QVERIFY(overviewChannels(window).isEmpty());
        QCOMPARE(window.overviewPage()->kpiCaption(QStringLiteral("Requests/s")), QStringLiteral("no traffic yet"));
        QVERIFY(window.instanceIndicator()->text().contains(beta));
        QVERIFY(!window.instanceIndicator()->text().contains(alpha));
        QVERIFY(window.settingsPage()->engineNotice()->text().contains(beta));
        QVERIFY(!window.settingsPage()->engineNotice()->text().contains(alpha));
        QTRY_COMPARE_WITH_TIMEOUT(channelNames(window), (QStringList{"beta/A", "beta/B"}), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(incidentChannels(window), QStringList{"beta/B"}, 10000);
        // … and over several polls, none of alpha's rows, lines or counts comes back.
        const std::uint64_t seen = window.overviewPage()->stats().snapshots;
        QTRY_VERIFY_WITH_TIMEOUT(window.overviewPage()->stats().snapshots >= seen + 2, 10000);
        QCOMPARE(channelNames(window), (QStringList{"beta/A", "beta/B"}));
        QCOMPARE(incidentChannels(window), QStringList{"beta/B"});
        QVERIFY2(allStartWith(overviewChannels(window), QStringLiteral("beta/")), qPrintable(overviewChannels(window).join(u',')));
        QCOMPARE(window.overviewPage()->kpiCaption(QStringLiteral("Requests/s")), QStringLiteral("0 in flight · 5 total"));

        // No connection to alpha is left: its watch is gone, and so are its sockets on alpha's side.
        QTRY_VERIFY_WITH_TIMEOUT(!alphaWatch, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(openConnections(*m_alpha), std::int64_t(0), 10000);
        QVERIFY(openConnections(*m_beta) >= 1);

        // Back to the embedded engine: its rows, its Settings; beta let go of as well.
        QPointer<RemoteGateway> betaWatch = window.remoteGateway();
        window.detachRemote();
        QVERIFY(incidentChannels(window).isEmpty());
        QVERIFY(window.settingsPage()->showsEngineSettings());
        QTRY_COMPARE_WITH_TIMEOUT(channelNames(window), (QStringList{"local/A", "local/B"}), 10000);
        QVERIFY2(allStartWith(overviewChannels(window), QStringLiteral("local/")), qPrintable(overviewChannels(window).join(u',')));
        QTRY_VERIFY_WITH_TIMEOUT(!betaWatch, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(openConnections(*m_beta), std::int64_t(0), 10000);

        // And through the dialog to alpha again: its recent events bring its incident back.
        attachThroughDialog(window, targetOf(*m_alpha, kRemoteToken));
        QTRY_COMPARE_WITH_TIMEOUT(channelNames(window), (QStringList{"alpha/A", "alpha/B"}), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(incidentChannels(window), QStringList{"alpha/A"}, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(window.overviewPage()->kpiCaption(QStringLiteral("Requests/s")), QStringLiteral("0 in flight · 3 total"), 10000);
        QVERIFY2(allStartWith(overviewChannels(window), QStringLiteral("alpha/")), qPrintable(overviewChannels(window).join(u',')));
    }

    void aHistoryAnswerOnItsWayIsNotShownForTheInstance()
    {
        // The embedded engine's history: an open incident on gpt-4o/A, a budget alert and requests
        // of the last hour (the Overview's 1 h availability).
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("history.db"));
        {
            Database db(path, QStringLiteral("fixture"));
            QVERIFY(db.open());
            HistoryFixture::addChannels(db);
        }
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        {
            test::FakeClock clock(now);
            HistoryWriter writer(path, clock);
            QVERIFY(writer.start());
            EventRecord open;
            open.timeMs = now - 600'000;
            open.kind = EventKind::CircuitTransition;
            open.channelId = 1;
            open.fromState = QStringLiteral("closed");
            open.toState = QStringLiteral("open");
            open.message = QStringLiteral("gpt-4o/A: circuit closed → open");
            QVERIFY(writer.enqueue(open));
            EventRecord budget;
            budget.timeMs = now - 500'000;
            budget.kind = EventKind::Budget;
            budget.fromState = QStringLiteral("within_budget");
            budget.toState = QStringLiteral("over_soft_limit");
            budget.message = QStringLiteral("budget: route \"gpt-4o\" has spent US$8.01 of its US$8.00 alert limit (daily budget)");
            QVERIFY(writer.enqueue(budget));
            for (int i = 0; i < 4; ++i) {
                RequestRecord r;
                r.requestId = QStringLiteral("r%1").arg(i);
                r.timeMs = now - 300'000 + i * 1000;
                r.logicalModel = QStringLiteral("gpt-4o");
                r.channelId = 1;
                r.channelName = QStringLiteral("gpt-4o/A");
                r.status = i == 0 ? RequestStatus::Error : RequestStatus::Ok;
                r.attempts = {HistoryFixture::attempt(1, i == 0 ? OutcomeKind::ProviderDown : OutcomeKind::Success, i == 0 ? 503 : 200,
                                                      r.timeMs, 300)};
                QVERIFY(writer.enqueue(r));
            }
            writer.flush();
            writer.stop();
        }
        startAll();

        // The embedded engine's pages show its history: the incident and the budget alert.
        MainWindow window;
        window.setHistoryDatabase(path);
        auto *history = window.findChild<HistoryService *>();
        QVERIFY(history);
        QTRY_COMPARE_WITH_TIMEOUT(incidentChannels(window), QStringList{"gpt-4o/A"}, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!window.incidentsPage()->budgetAlertsText().isEmpty(), 10000);

        // Attached, neither stays on screen for a moment.
        window.attachTo(targetOf(*m_alpha, kRemoteToken));
        QVERIFY(incidentChannels(window).isEmpty());
        QVERIFY2(window.incidentsPage()->budgetAlertsText().isEmpty(), qPrintable(window.incidentsPage()->budgetAlertsText()));

        // Back on the embedded engine the pages ask the history again, and the console attaches
        // before the answers are back: they arrive, and are not shown as the instance's.
        window.detachRemote();
        QVERIFY(history->pending() > 0);
        const std::uint64_t answered = history->stats().completed;
        window.attachTo(targetOf(*m_alpha, kRemoteToken));
        QTRY_COMPARE_WITH_TIMEOUT(history->pending(), 0, 10000);
        QVERIFY(history->stats().completed >= answered + 2); // the Overview's and the Incidents page's
        const std::uint64_t seen = window.overviewPage()->stats().snapshots;
        QTRY_VERIFY_WITH_TIMEOUT(window.overviewPage()->stats().snapshots > seen, 10000);
        QVERIFY(incidentChannels(window).isEmpty());
        QVERIFY2(window.incidentsPage()->budgetAlertsText().isEmpty(), qPrintable(window.incidentsPage()->budgetAlertsText()));
        const QString availability = window.overviewPage()->kpiCaption(QStringLiteral("Availability 5m"));
        QVERIFY2(availability.contains(QStringLiteral("(no history)")), qPrintable(availability));
    }
};

QTEST_MAIN(tst_AttachSwitching)
#include "tst_AttachSwitching.moc"
