// Attach (issue #9, point 4): a console attached through the Attach dialog to a real Gateway on a
// loopback port shows that instance on the same pages — its channels, its incidents, its figures —
// sends the Channels page's eject to it, says which instance is shown (never the token), reports a
// refused token and a vanished instance, and goes back to the embedded engine with nothing of the
// remote left on screen. Real sockets, real widgets offscreen; the providers are the simulator's.
#include "FakeProvider.h"
#include "MainWindow.h"
#include "TestPaths.h"
#include "attach/AttachDialog.h"
#include "attach/InstanceIndicator.h"
#include "attach/UnavailableNotice.h"
#include "engine/Gateway.h"
#include "incidents/IncidentTableModel.h"
#include "incidents/IncidentsPage.h"
#include "models/ChannelTableModel.h"
#include "pages/ChannelsPage.h"
#include "pages/OverviewPage.h"
#include "requests/RequestsPage.h"

#include <QtTest>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>

using namespace sb;
using namespace sb::sim;
using namespace std::chrono_literals;

namespace {

const QString kToken = QStringLiteral("remote-secret-token-7f3a");

// Two channels over the two simulated providers; `prefix` names them, so a test can tell the
// embedded engine's rows ("local/…") from the remote instance's ("gpt-4o/…").
std::shared_ptr<EngineConfig> config(const QString &prefix, const QString &primaryUrl, const QString &fallbackUrl,
                                     const QString &token)
{
    auto c = std::make_shared<EngineConfig>();
    c->proxy.listenPort = 0;
    c->proxy.localToken = token;
    ProviderConfig a;
    a.id = 1;
    a.name = QStringLiteral("primary");
    a.dialect = QStringLiteral("openai_compat");
    a.baseUrl = primaryUrl;
    a.keys = {ApiKeyConfig{1, QStringLiteral("primary key"), QStringLiteral("sk-primary-0001"), true, {}}};
    ProviderConfig b = a;
    b.id = 2;
    b.name = QStringLiteral("fallback");
    b.baseUrl = fallbackUrl;
    b.keys = {ApiKeyConfig{2, QStringLiteral("fallback key"), QStringLiteral("sk-fallback-0002"), true, {}}};
    c->providers = {a, b};
    ChannelConfig ca;
    ca.id = 1;
    ca.name = prefix + QStringLiteral("/A");
    ca.providerId = 1;
    ca.upstreamModel = QStringLiteral("gpt-4o");
    ChannelConfig cb = ca;
    cb.id = 2;
    cb.name = prefix + QStringLiteral("/B");
    cb.providerId = 2;
    c->channels = {ca, cb};
    RouteConfig route;
    route.id = 1;
    route.logicalModel = QStringLiteral("gpt-4o");
    route.strategy = RoutingStrategy::Priority;
    route.channelIds = {1, 2};
    c->routes = {route};
    c->probe.interval = 3600s; // heartbeats only at the first tick: the pool changes are the test's own
    return c;
}

ProviderSpec spec(const QString &name)
{
    ProviderSpec s;
    s.name = name;
    s.dialect = QStringLiteral("openai_compat");
    s.models = {QStringLiteral("gpt-4o")};
    s.ttftMs = Distribution::constant(5);
    s.tokensPerSecond = Distribution::constant(2000);
    s.completionTokens = 12;
    return s;
}

QStringList channelNames(const MainWindow &window)
{
    QStringList names;
    const ChannelTableModel *model = window.channelsPage()->model();
    for (int r = 0; r < model->rowCount(); ++r)
        names << model->channelAt(r).name;
    names.sort();
    return names;
}

PoolState poolOf(const Gateway &gateway, int channelId)
{
    for (const ChannelSnapshot &channel : gateway.snapshot().channels) {
        if (channel.channelId == channelId)
            return channel.pool;
    }
    return PoolState::Active;
}

} // namespace

class tst_AttachRemote : public QObject {
    Q_OBJECT

private:
    SplitMixRandom m_random{91};
    std::unique_ptr<ScenarioClock> m_scenarioClock;
    std::unique_ptr<FakeProvider> m_primary;
    std::unique_ptr<FakeProvider> m_fallback;
    std::unique_ptr<Gateway> m_embedded;
    std::unique_ptr<Gateway> m_remote;

    void startAll()
    {
        m_scenarioClock = std::make_unique<ScenarioClock>(SystemClock::instance(), 1.0);
        m_primary = std::make_unique<FakeProvider>(spec("primary"), *m_scenarioClock, m_random);
        m_fallback = std::make_unique<FakeProvider>(spec("fallback"), *m_scenarioClock, m_random);
        QVERIFY(m_primary->start());
        QVERIFY(m_fallback->start());
        QString error;
        m_embedded = std::make_unique<Gateway>(SystemClock::instance(), SystemRandom::instance(),
                                               config(QStringLiteral("local"), m_primary->baseUrl(), m_fallback->baseUrl(), QString()));
        QVERIFY2(m_embedded->start(&error), qPrintable(error));
        m_remote = std::make_unique<Gateway>(SystemClock::instance(), SystemRandom::instance(),
                                             config(QStringLiteral("gpt-4o"), m_primary->baseUrl(), m_fallback->baseUrl(), kToken));
        QVERIFY2(m_remote->start(&error), qPrintable(error));
    }

    RemoteGateway::Target remoteTarget(const QString &token) const
    {
        RemoteGateway::Target t;
        t.host = QStringLiteral("127.0.0.1");
        t.port = m_remote->port();
        t.token = token;
        return t;
    }

    // A request through the remote instance's proxy, so its figures are not all zero.
    void chatThroughRemote()
    {
        QNetworkAccessManager http;
        QNetworkRequest request(QUrl(remoteAddress() + QStringLiteral("/v1/chat/completions")));
        request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        request.setRawHeader("Authorization", "Bearer " + kToken.toUtf8());
        const QJsonObject body{{"model", "gpt-4o"}, {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hi"}}}}};
        QNetworkReply *reply = http.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        QVERIFY(finished.wait(20000));
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        reply->deleteLater();
    }

    QString remoteAddress() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_remote->port()); }

    // The dialog's code path, as a user takes it: fields typed, Connect clicked, the dialog closes itself.
    static void attachThroughDialog(MainWindow &window, const RemoteGateway::Target &target)
    {
        AttachDialog *dialog = window.openAttachDialog();
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        auto *host = dialog->findChild<QLineEdit *>(QStringLiteral("hostEdit"));
        host->clear();
        QTest::keyClicks(host, target.host);
        dialog->findChild<QSpinBox *>(QStringLiteral("portSpin"))->setValue(target.port);
        QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("tokenEdit")), target.token);
        QVERIFY(dialog->connectButton()->isEnabled());
        QPointer<AttachDialog> alive(dialog);
        QTest::mouseClick(dialog->connectButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!alive || alive->stateText().startsWith(QStringLiteral("Connected")), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!alive, 10000); // closes itself once connected
        QVERIFY(window.isAttachedRemote());
    }

private slots:
    void initTestCase()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(QApplication::style()->standardPalette());
    }

    void cleanup()
    {
        for (auto *gateway : {m_remote.get(), m_embedded.get()}) {
            if (gateway)
                gateway->stop(200ms);
        }
        m_remote.reset();
        m_embedded.reset();
        m_primary.reset();
        m_fallback.reset();
    }

    void attachedWindowShowsTheRemoteInstanceAndDetachesBack()
    {
        startAll();
        MainWindow window;
        window.resize(1400, 860);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.attach(m_embedded.get());
        QTRY_COMPARE_WITH_TIMEOUT(channelNames(window), (QStringList{"local/A", "local/B"}), 10000);
        QVERIFY(window.instanceIndicator()->text().startsWith(QStringLiteral("EMBEDDED ENGINE")));
        QVERIFY(window.windowTitle().contains(QStringLiteral("embedded engine")));

        for (int i = 0; i < 6; ++i)
            chatThroughRemote();
        attachThroughDialog(window, remoteTarget(kToken));

        // The same pages, the remote's channels — and, over several polls while the embedded engine
        // keeps publishing, never one of the embedded engine's rows mixed in.
        QTRY_COMPARE_WITH_TIMEOUT(channelNames(window), (QStringList{"gpt-4o/A", "gpt-4o/B"}), 10000);
        const std::uint64_t seen = window.overviewPage()->stats().snapshots;
        QTRY_VERIFY_WITH_TIMEOUT(window.overviewPage()->stats().snapshots >= seen + 2, 10000);
        QCOMPARE(channelNames(window), (QStringList{"gpt-4o/A", "gpt-4o/B"}));
        // Route and provider names from the instance, not "provider 1".
        const ChannelTableModel *rows = window.channelsPage()->model();
        QTRY_COMPARE_WITH_TIMEOUT(rows->index(rows->rowOf(2), ChannelTableModel::Provider).data().toString(),
                                  QStringLiteral("fallback"), 10000);
        QCOMPARE(rows->index(rows->rowOf(1), ChannelTableModel::Route).data().toString(), QStringLiteral("gpt-4o"));
        // The remote's traffic, not the embedded engine's (which had none).
        QVERIFY(rows->channelAt(rows->rowOf(1)).calls5m >= 6u); // the six, plus the first heartbeat probe
        QCOMPARE(window.overviewPage()->kpiCaption(QStringLiteral("Requests/s")), QStringLiteral("0 in flight · 6 total"));

        // Which instance is shown: the strip, the window title and the status bar; never the token.
        const QString indicator = window.instanceIndicator()->text();
        QVERIFY2(indicator.startsWith(QStringLiteral("ATTACHED")), qPrintable(indicator));
        QVERIFY2(indicator.contains(remoteAddress() + QStringLiteral(" · Connected")), qPrintable(indicator));
        QCOMPARE(window.instanceIndicator()->background(), QColor(0x2e, 0x7d, 0x32));
        QVERIFY(window.windowTitle().contains(remoteAddress()));
        QVERIFY(window.statusText().contains(remoteAddress()));
        for (const QString &shown : {indicator, window.windowTitle(), window.statusText(), window.instanceIndicator()->toolTip()})
            QVERIFY2(!shown.contains(kToken), qPrintable(shown));

        // Eject from the Channels page's menu: it reaches the remote instance, not the embedded engine.
        ChannelsPage *channels = window.channelsPage();
        const int sourceRow = channels->model()->rowOf(1);
        const int proxyRow = channels->proxy()->mapFromSource(channels->model()->index(sourceRow, 0)).row();
        std::unique_ptr<QMenu> menu(channels->contextMenuFor(proxyRow, nullptr));
        QAction *drain = menu->findChild<QAction *>(QStringLiteral("drain"));
        QVERIFY(drain && drain->isEnabled());
        QVERIFY(!menu->findChild<QAction *>(QStringLiteral("openProvider"))->isEnabled());
        drain->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(poolOf(*m_remote, 1), PoolState::Drained, 10000);
        QCOMPARE(poolOf(*m_embedded, 1), PoolState::Active);
        QTRY_VERIFY_WITH_TIMEOUT(window.statusBar()->currentMessage().contains(QStringLiteral("done")), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(channels->model()->channelAt(channels->model()->rowOf(1)).pool, PoolState::Drained, 10000);

        // Incidents from the instance's events: the eject opened one on gpt-4o/A.
        IncidentTableModel *incidents = window.incidentsPage()->model();
        QTRY_VERIFY_WITH_TIMEOUT(incidents->rowCount() >= 1, 10000);
        QCOMPARE(incidents->incident(0)->channelName, QStringLiteral("gpt-4o/A"));
        QVERIFY(incidents->incident(0)->isOpen());
        QTRY_VERIFY(window.pageNames().at(2).contains(QStringLiteral("1")));
        window.showPage(2);
        window.incidentsPage()->table()->selectRow(0);
        QVERIFY(window.incidentsPage()->detailsText().contains(QStringLiteral("instance's own history")));
        QCOMPARE(incidents->index(0, IncidentTableModel::Affected).data().toString(), QStringLiteral("—"));
        QVERIFY(window.grab().save(test::artifactPath(QStringLiteral("attach/attached-incidents.png"))));

        // Pages that need this machine's database or configuration say so instead of showing its data.
        for (int page : {3, 4, 5, 6}) {
            window.showPage(page);
            auto *notice = qobject_cast<UnavailableNotice *>(window.currentPageWidget());
            QVERIFY2(notice, qPrintable(window.pageNames().at(page)));
            QVERIFY2(notice->text().contains(QStringLiteral("attached instance")), qPrintable(notice->text()));
        }
        window.showPage(3);
        QVERIFY(window.currentPageWidget()->findChild<QLabel *>(QStringLiteral("unavailableReason"))->text().startsWith(
            QStringLiteral("Requests history is not available for an attached instance")));

        window.showPage(1);
        window.overviewPage()->redrawNow();
        for (int round = 0; round < 4; ++round)
            QCoreApplication::processEvents();
        const QString shot = test::artifactPath(QStringLiteral("attach/attached.png"));
        QVERIFY(QDir().mkpath(QFileInfo(shot).path()));
        QVERIFY(window.grab().save(shot));
        window.showPage(0);
        window.overviewPage()->redrawNow();
        QVERIFY(window.grab().save(test::artifactPath(QStringLiteral("attach/attached-overview.png"))));
        qInfo("screenshots in %s", qPrintable(QFileInfo(shot).path()));

        // The instance goes away: the strip turns red and says so.
        m_remote->stop(200ms);
        QTRY_VERIFY_WITH_TIMEOUT(window.instanceIndicator()->text().contains(QStringLiteral("Unreachable")), 15000);
        QCOMPARE(window.instanceIndicator()->background(), QColor(0xc6, 0x28, 0x28));
        QVERIFY(window.windowTitle().contains(QStringLiteral("Unreachable")));
        QVERIFY(window.grab().save(test::artifactPath(QStringLiteral("attach/unreachable.png"))));

        // Back to the embedded engine: nothing of the remote stays, the embedded pages return.
        window.detachRemote();
        QVERIFY(!window.isAttachedRemote());
        QCOMPARE(window.channelsPage()->model()->rowCount(), 0);
        QCOMPARE(window.incidentsPage()->model()->rowCount(), 0);
        QVERIFY(!window.incidentsPage()->isWatchingEvents());
        QVERIFY(window.overviewPage()->history().channels().empty());
        QVERIFY(window.instanceIndicator()->text().startsWith(QStringLiteral("EMBEDDED ENGINE")));
        QVERIFY(window.instanceIndicator()->text().contains(m_embedded->baseUrl()));
        QVERIFY(window.windowTitle().contains(QStringLiteral("embedded engine")));
        QTRY_COMPARE_WITH_TIMEOUT(channelNames(window), (QStringList{"local/A", "local/B"}), 10000);
        window.showPage(3);
        QCOMPARE(window.currentPageWidget(), static_cast<QWidget *>(window.requestsPage()));
        QVERIFY(window.unavailableReason(3).isEmpty());
        window.showPage(1);
        std::unique_ptr<QMenu> localMenu(channels->contextMenuFor(0, nullptr));
        QVERIFY(localMenu->findChild<QAction *>(QStringLiteral("openProvider"))->isEnabled());
    }

    void wrongTokenShowsRefused()
    {
        startAll();
        MainWindow window;
        window.attach(m_embedded.get());
        const QString wrong = QStringLiteral("not-the-token-42");
        window.attachTo(remoteTarget(wrong)); // the --attach path with SWITCHBOARD_TOKEN set
        QTRY_VERIFY_WITH_TIMEOUT(window.instanceIndicator()->text().contains(QStringLiteral("Refused")), 10000);
        QCOMPARE(window.instanceIndicator()->background(), QColor(0xc6, 0x28, 0x28));
        QVERIFY(window.instanceIndicator()->text().contains(QStringLiteral("refused the token")));
        QVERIFY(window.windowTitle().contains(QStringLiteral("Refused")));
        for (const QString &shown : {window.instanceIndicator()->text(), window.windowTitle(), window.statusText()})
            QVERIFY2(!shown.contains(wrong), qPrintable(shown));
        QCOMPARE(window.channelsPage()->model()->rowCount(), 0); // nothing shown, and not the embedded rows either
    }

    void dialogKeepsARefusalOnScreen()
    {
        startAll();
        MainWindow window;
        AttachDialog *dialog = window.openAttachDialog();
        dialog->setTarget(remoteTarget(QStringLiteral("wrong-token-99")));
        dialog->connectButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->stateText().contains(QStringLiteral("refused the token")), 10000);
        QVERIFY(dialog->isVisible()); // stays open so the token can be corrected
        QVERIFY(dialog->connectButton()->isEnabled());
        QVERIFY(!window.isAttachedRemote());
        QVERIFY(!dialog->stateText().contains(QStringLiteral("wrong-token-99")));
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QVERIFY(dialog->grab().save(test::artifactPath(QStringLiteral("attach/dialog-refused.png"))));
        dialog->reject();
    }

    void dialogValidatesInline()
    {
        AttachDialog dialog;
        auto *host = dialog.findChild<QLineEdit *>(QStringLiteral("hostEdit"));
        auto *hostError = dialog.findChild<QLabel *>(QStringLiteral("hostError"));
        host->setText(QStringLiteral("http://10.0.0.5:8400/v1"));
        QVERIFY(!dialog.connectButton()->isEnabled());
        QVERIFY(hostError->text().contains(QStringLiteral("without http://")));
        host->setText(QStringLiteral("10.0.0.5"));
        QVERIFY(dialog.connectButton()->isEnabled());
        QVERIFY(hostError->text().isEmpty());
        auto *token = dialog.findChild<QLineEdit *>(QStringLiteral("tokenEdit"));
        QCOMPARE(token->echoMode(), QLineEdit::Password);
        token->setText(QStringLiteral("two words"));
        QVERIFY(!dialog.connectButton()->isEnabled());
    }
};

QTEST_MAIN(tst_AttachRemote)
#include "tst_AttachRemote.moc"
