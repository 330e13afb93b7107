// Attach: a console attached through the Attach dialog to a real Gateway on a
// loopback port shows that instance on the same pages — its channels, its incidents, its figures —
// sends the Channels page's eject to it, says which instance is shown (never the token), reports a
// refused token and a vanished instance, and goes back to the embedded engine with nothing of the
// remote left on screen. Real sockets, real widgets offscreen; the providers are the simulator's.
#include "AttachFixture.h"
#include "FakeClock.h"
#include "TestCertificate.h"
#include "TestPaths.h"
#include "ThemeManager.h"
#include "TrayNotifier.h"
#include "attach/InstanceIndicator.h"
#include "attach/UnavailableNotice.h"
#include "pages/OverviewPage.h"
#include "remote/TrustedCertificates.h"
#include "requests/RequestsPage.h"
#include "settings/SettingsPage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>

using namespace sb;
using namespace sb::sim;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

const QString kToken = test::kRemoteToken;

PoolState poolOf(const Gateway &gateway, int channelId)
{
    return test::channelOf(gateway, channelId).pool;
}

} // namespace

class tst_AttachRemote : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;
    std::unique_ptr<AttachLab> m_lab;
    Gateway *m_embedded = nullptr;
    Gateway *m_remote = nullptr;

    void startAll()
    {
        m_lab = std::make_unique<AttachLab>();
        QString error;
        QVERIFY2((m_embedded = m_lab->twoChannelEngine(QStringLiteral("local"), QString(), &error)), qPrintable(error));
        QVERIFY2((m_remote = m_lab->twoChannelEngine(QStringLiteral("gpt-4o"), kToken, &error)), qPrintable(error));
    }

    RemoteGateway::Target remoteTarget(const QString &token) const { return targetOf(*m_remote, token); }

    // A request through the remote instance's proxy, so its figures are not all zero.
    void chatThroughRemote() { QCOMPARE(chatThrough(*m_remote, kToken), 200); }

    QString remoteAddress() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_remote->port()); }

private slots:
    void initTestCase()
    {
        useOwnSettings(m_settingsDir, QStringLiteral("tst_AttachRemote"));
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(QApplication::style()->standardPalette());
    }

    void cleanup()
    {
        m_lab.reset();
        m_embedded = m_remote = nullptr;
    }

    void attachedWindowShowsTheRemoteInstanceAndDetachesBack()
    {
        startAll();
        test::FakeClock clock;
        TrayNotifier tray(clock);
        ThemeManager themes;
        MainWindow window;
        window.setTrayNotifier(&tray);
        window.settingsPage()->setThemeManager(&themes);
        window.resize(1400, 860);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.attach(m_embedded);
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
        for (int page : {3, 4, 5}) {
            window.showPage(page);
            auto *notice = qobject_cast<UnavailableNotice *>(window.currentPageWidget());
            QVERIFY2(notice, qPrintable(window.pageNames().at(page)));
            QVERIFY2(notice->text().contains(QStringLiteral("attached instance")), qPrintable(notice->text()));
        }
        // Settings keeps the console's own preferences; the engine's groups give way to a notice
        // that they belong to the instance shown.
        window.showPage(7);
        for (int round = 0; round < 4; ++round)
            QCoreApplication::processEvents();
        SettingsPage *settings = window.settingsPage();
        QCOMPARE(window.currentPageWidget(), static_cast<QWidget *>(settings));
        QVERIFY(window.unavailableReason(7).isEmpty());
        QVERIFY(!settings->showsEngineSettings());
        QVERIFY(settings->engineNotice()->isVisible());
        QVERIFY2(settings->engineNotice()->text().contains(remoteAddress()), qPrintable(settings->engineNotice()->text()));
        QVERIFY(!settings->saveButton()->isVisible());
        QVERIFY(!settings->numberEditor(QStringLiteral("breaker.consecutive_failures"))->isVisible());
        QVERIFY(settings->themeBox()->isVisible() && settings->muteBox()->isVisible());
        QVERIFY(window.grab().save(test::artifactPath(QStringLiteral("attach/attached-settings.png"))));
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
        QVERIFY(settings->showsEngineSettings());
        QVERIFY(!settings->engineNotice()->isVisibleTo(settings));
        QVERIFY(settings->numberEditor(QStringLiteral("breaker.consecutive_failures"))->isVisibleTo(settings));
        window.showPage(1);
        std::unique_ptr<QMenu> localMenu(channels->contextMenuFor(0, nullptr));
        QVERIFY(localMenu->findChild<QAction *>(QStringLiteral("openProvider"))->isEnabled());
    }

    void wrongTokenShowsRefused()
    {
        startAll();
        MainWindow window;
        window.attach(m_embedded);
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

    void aSelfSignedInstanceIsAttachedOnceItsCertificateIsTrusted()
    {
        // An instance serving HTTPS with a certificate no CA signed: the usual case for a fleet on a
        // private network.
        TestCertificate certificate;
        QString why;
        QVERIFY2(certificate.make(&why), qPrintable(why));
        m_lab = std::make_unique<AttachLab>();
        sim::FakeProvider *primary = m_lab->provider(QStringLiteral("primary"));
        sim::FakeProvider *fallback = m_lab->provider(QStringLiteral("fallback"));
        QVERIFY(primary && fallback);
        auto config = twoChannelConfig(QStringLiteral("tls"), primary->baseUrl(), fallback->baseUrl(), kToken);
        config->proxy.tlsCertFile = certificate.certificateFile();
        config->proxy.tlsKeyFile = certificate.keyFile();
        QVERIFY2((m_remote = m_lab->engine(config, &why)), qPrintable(why));
        const QList<QSslCertificate> served = QSslCertificate::fromPath(certificate.certificateFile());
        QCOMPARE(served.size(), 1);
        const QString fingerprint = sha256Fingerprint(served.first());

        MainWindow window;
        AttachDialog *dialog = window.openAttachDialog();
        RemoteGateway::Target target = remoteTarget(kToken);
        target.tls = true;
        dialog->setTarget(target);
        auto *trust = dialog->findChild<QLineEdit *>(QStringLiteral("trustEdit"));
        auto *trustState = dialog->findChild<QLabel *>(QStringLiteral("trustState"));
        QVERIFY(trust->isVisibleTo(dialog));

        // Only the system's CAs: refused, and the sentence names the certificate and what to do.
        dialog->connectButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->stateText().contains(QStringLiteral("not trusted")), 10000);
        QVERIFY2(dialog->stateText().contains(fingerprint), qPrintable(dialog->stateText()));
        QVERIFY(dialog->stateText().contains(QStringLiteral("self-signed")));
        QVERIFY(!window.isAttachedRemote());
        QVERIFY(dialog->isVisible());
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QVERIFY(dialog->grab().save(test::artifactPath(QStringLiteral("attach/dialog-untrusted.png"))));

        // The key chosen by mistake is named as such, and nothing can be sent.
        trust->setText(certificate.keyFile());
        QVERIFY(trustState->text().contains(QStringLiteral("private key")));
        QVERIFY(!dialog->connectButton()->isEnabled());
        trust->setText(certificate.directory() + QStringLiteral("/missing.pem"));
        QVERIFY(trustState->text().contains(QStringLiteral("does not exist")));
        QVERIFY(!dialog->connectButton()->isEnabled());

        // The certificate itself: described with the fingerprint to compare, then trusted.
        trust->setText(certificate.certificateFile());
        QVERIFY(dialog->stateText().isEmpty()); // the refusal was about the fields as they were
        // Grouped by eight bytes on two lines; the same digits.
        auto *trustInfo = dialog->findChild<QLabel *>(QStringLiteral("trustInfo"));
        QString shown = trustInfo->text();
        shown.replace(QRegularExpression(QStringLiteral("\\s+")), QStringLiteral(":"));
        QVERIFY2(shown.contains(fingerprint), qPrintable(trustInfo->text()));
        QVERIFY(trustInfo->text().contains(QStringLiteral("CN=127.0.0.1")));
        QVERIFY(trustState->text().isEmpty());
        QVERIFY(dialog->connectButton()->isEnabled());
        QCOMPARE(dialog->target().trustFile, certificate.certificateFile());
        dialog->show();
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        // Laid out as a person sees it, not only set: every line of it.
        QTRY_VERIFY(trustInfo->height() >= trustInfo->sizeHint().height());
        QVERIFY(dialog->grab().save(test::artifactPath(QStringLiteral("attach/dialog-trust.png"))));
        QPointer<AttachDialog> alive(dialog);
        dialog->connectButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!alive, 10000);
        QVERIFY(window.isAttachedRemote());
        QTRY_COMPARE_WITH_TIMEOUT(channelNames(window), (QStringList{"tls/A", "tls/B"}), 10000);
        QVERIFY(window.instanceIndicator()->text().contains(QStringLiteral("https://127.0.0.1")));

        // Unticking TLS hides the row and forgets the file: plain HTTP has no certificate to trust.
        AttachDialog plain;
        plain.setTarget(target);
        auto *plainTrust = plain.findChild<QLineEdit *>(QStringLiteral("trustEdit"));
        plainTrust->setText(certificate.certificateFile());
        plain.findChild<QCheckBox *>(QStringLiteral("tlsBox"))->setChecked(false);
        QVERIFY(!plainTrust->isVisibleTo(&plain));
        QVERIFY(plain.target().trustFile.isEmpty());
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
