#include "FakeClock.h"
#include "TestPaths.h"
#include "ThemeManager.h"
#include "TrayNotifier.h"
#include "attach/UnavailableNotice.h"
#include "control/Gateway.h"
#include "settings/SettingRow.h"
#include "settings/SettingsPage.h"
#include "settings/TlsFilesEditor.h"
#include "settings/TokenEditor.h"
#include "TestCertificate.h"
#include "store/ConfigRepository.h"
#include "store/ConfigStore.h"
#include "store/DatabaseSecretStore.h"

#include <QtTest>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QToolButton>

#include <memory>

using namespace sb;
using namespace std::chrono_literals;

namespace {

// A real database file with the seeded demo configuration, as the console opens it.
struct StoreOnDisk {
    QTemporaryDir dir;
    test::FakeClock clock;
    QString path = dir.filePath(QStringLiteral("switchboard.db"));
    std::unique_ptr<DatabaseSecretStore> secrets;
    std::unique_ptr<ConfigRepository> repository;
    std::unique_ptr<ConfigStore> store;

    bool ready = false; // false when the file could not be opened (the test stops there)

    StoreOnDisk() { open(); }

    void open()
    {
        ready = false;
        store.reset();
        repository.reset();
        secrets = std::make_unique<DatabaseSecretStore>(path);
        QString error;
        QVERIFY2(secrets->open(&error), qPrintable(error));
        repository = std::make_unique<ConfigRepository>(path, *secrets, clock);
        QVERIFY2(repository->open(&error), qPrintable(error));
        store = std::make_unique<ConfigStore>(*repository);
        QVERIFY2(store->initialize(&error), qPrintable(error));
        ready = true;
    }

    // What a fresh start would read from the file.
    EngineConfigPtr reload()
    {
        DatabaseSecretStore otherSecrets(path);
        QString error;
        if (!otherSecrets.open(&error))
            return nullptr;
        ConfigRepository other(path, otherSecrets, clock);
        if (!other.open(&error))
            return nullptr;
        return other.load(&error);
    }
};

// The page as the console wires it: on a real database file, with the theme and the tray.
struct WiredPage {
    StoreOnDisk disk;
    test::FakeClock clock;
    TrayNotifier tray{clock};
    SettingsPage page;

    explicit WiredPage(ThemeManager &themes)
    {
        page.setConfigStore(disk.store.get());
        page.setThemeManager(&themes);
        page.setTrayNotifier(&tray);
    }
};

void setNumber(SettingsPage &page, const char *key, double value)
{
    QDoubleSpinBox *spin = page.numberEditor(QString::fromLatin1(key));
    QVERIFY2(spin, key);
    spin->setValue(value);
}

QString errorUnder(SettingsPage &page, const QString &key)
{
    SettingRow *row = page.row(key);
    return row ? row->error() : QStringLiteral("<no row %1>").arg(key);
}

} // namespace

class tst_SettingsPage : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QCoreApplication::setOrganizationName(QStringLiteral("SwitchboardTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_SettingsPage"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
    }

    void showsTheStoredValuesUnitsAndDefaults()
    {
        StoreOnDisk disk;
        QVERIFY(disk.ready);
        SettingsPage page;
        page.setConfigStore(disk.store.get());
        const EngineConfigPtr stored = disk.store->current();
        QCOMPARE(page.numberEditor(QStringLiteral("health.window_s"))->value(), double(stored->health.window.count()));
        QCOMPARE(page.numberEditor(QStringLiteral("breaker.failure_rate_threshold"))->value(), stored->breaker.failureRateThreshold * 100);
        QCOMPARE(page.listenHostEdit()->text(), stored->proxy.listenHost);
        auto *defaultLabel = page.row(QStringLiteral("health.eject_after_s"))->findChild<QLabel *>(QStringLiteral("default"));
        QCOMPARE(defaultLabel->text(), QStringLiteral("default 180 s"));
        auto *unit = page.row(QStringLiteral("proxy.max_body_bytes"))->findChild<QLabel *>(QStringLiteral("unit"));
        QCOMPARE(unit->text(), QStringLiteral("KiB"));
        QCOMPARE(page.numberEditor(QStringLiteral("proxy.max_body_bytes"))->value(), 32768.0);
        // The demo plays the launch-day drill, so its breaker is that preset.
        QCOMPARE(page.presetBox()->currentData().toString(), QStringLiteral("launch-day"));
        QVERIFY(!page.isDirty());
        QVERIFY(!page.saveButton()->isEnabled());
        QVERIFY(!page.revertButton()->isEnabled());
    }

    void editedThresholdsAndRetentionAreSavedToTheFileAndReloadEqual()
    {
        StoreOnDisk disk;
        QVERIFY(disk.ready);
        const EngineConfigPtr before = disk.store->current();
        SettingsPage page;
        page.setConfigStore(disk.store.get());

        setNumber(page, "health.window_s", 120);
        setNumber(page, "breaker.open_duration_s", 90);
        setNumber(page, "retry.overall_deadline_ms", 45.5);
        setNumber(page, "health.degraded_weight_factor", 40);
        page.panicModeBox()->setChecked(!before->pool.panicMode);
        page.continueStreamsBox()->setChecked(!before->retry.continueStreams);
        page.retentionEditor()->setValue(14);
        QVERIFY(page.isDirty());
        QVERIFY2(page.problems().isEmpty(), qPrintable(page.problems().join(u' ')));
        QVERIFY(page.saveButton()->isEnabled());
        QTest::mouseClick(page.saveButton(), Qt::LeftButton);
        QVERIFY2(page.statusText().startsWith(QStringLiteral("Saved")), qPrintable(page.statusText()));
        QVERIFY(!page.isDirty());
        QVERIFY(!page.saveButton()->isEnabled());

        const EngineConfigPtr reloaded = disk.reload();
        QVERIFY(reloaded);
        QCOMPARE(reloaded->health.window, 120s);
        QCOMPARE(reloaded->breaker.openDuration, 90s);
        QCOMPARE(reloaded->retry.overallDeadline, 45500ms);
        QCOMPARE(reloaded->health.degradedWeightFactor, 0.40);
        QCOMPARE(reloaded->pool.panicMode, !before->pool.panicMode);
        QCOMPARE(reloaded->retry.continueStreams, !before->retry.continueStreams);
        // The breaker no longer matches a preset, and says so.
        QCOMPARE(reloaded->breaker.preset, QStringLiteral("custom"));
        // Untouched fields and the rest of the configuration are as they were.
        QCOMPARE(reloaded->health.fastWindow, before->health.fastWindow);
        QCOMPARE(reloaded->proxy.maxBodyBytes, before->proxy.maxBodyBytes);
        QCOMPARE(reloaded->channels.size(), before->channels.size());
        QCOMPARE(reloaded->routes.size(), before->routes.size());
        QCOMPARE(disk.repository->historyRetentionDays(), 14);

        // A page opened on the reopened file shows exactly what was saved.
        disk.open();
        QVERIFY(disk.ready);
        SettingsPage second;
        second.setConfigStore(disk.store.get());
        QCOMPARE(second.numberEditor(QStringLiteral("health.window_s"))->value(), 120.0);
        QCOMPARE(second.numberEditor(QStringLiteral("retry.overall_deadline_ms"))->value(), 45.5);
        QCOMPARE(second.retentionEditor()->value(), 14);
        QVERIFY(!second.isDirty());
    }

    void invalidValuesShowTheEngineSentenceUnderTheFieldAndDisableSave()
    {
        StoreOnDisk disk;
        QVERIFY(disk.ready);
        SettingsPage page;
        page.setConfigStore(disk.store.get());

        setNumber(page, "health.eject_below", 60); // above "degrade below" (50)
        const QString ejectSentence = QStringLiteral("The ejection threshold must not be above the degradation threshold.");
        QCOMPARE(errorUnder(page, QStringLiteral("health.eject_below")), ejectSentence);
        QVERIFY(page.row(QStringLiteral("health.eject_below"))->findChild<QLabel *>(QStringLiteral("error"))->isVisibleTo(&page));
        QVERIFY(!page.saveButton()->isEnabled());
        QVERIFY(!page.save());

        setNumber(page, "breaker.failure_rate_threshold", 0);
        QVERIFY(errorUnder(page, QStringLiteral("breaker.failure_rate_threshold")).contains(QStringLiteral("failure rate threshold")));
        setNumber(page, "health.error_weight", 0);
        setNumber(page, "health.latency_weight", 0);
        QVERIFY(errorUnder(page, QStringLiteral("health.error_weight")).startsWith(QStringLiteral("Health score weights")));
        QVERIFY(errorUnder(page, QStringLiteral("health.latency_weight")).startsWith(QStringLiteral("Health score weights")));
        QVERIFY(errorUnder(page, QStringLiteral("health.window_s")).isEmpty());
        QVERIFY(page.statusText().contains(QStringLiteral("red")));

        // Fixing them clears the sentences and enables Save; nothing was written meanwhile.
        setNumber(page, "health.eject_below", 30);
        setNumber(page, "breaker.failure_rate_threshold", 25);
        setNumber(page, "health.error_weight", 70);
        QVERIFY(errorUnder(page, QStringLiteral("health.eject_below")).isEmpty());
        QVERIFY(errorUnder(page, QStringLiteral("health.latency_weight")).isEmpty());
        QVERIFY(page.problems().isEmpty());
        QVERIFY(page.saveButton()->isEnabled());
        const EngineConfigPtr stored = disk.reload();
        QCOMPARE(stored->health.ejectBelow, disk.store->current()->health.ejectBelow);
        QCOMPARE(stored->health.latencyWeight, disk.store->current()->health.latencyWeight);
        QCOMPARE(stored->breaker.failureRateThreshold, disk.store->current()->breaker.failureRateThreshold);
    }

    void resetRestoresTheDefaultPerFieldAndPerGroup()
    {
        StoreOnDisk disk;
        QVERIFY(disk.ready);
        SettingsPage page;
        page.setConfigStore(disk.store.get());
        SettingRow *row = page.row(QStringLiteral("health.window_s"));
        QVERIFY(!row->resetButton()->isEnabled()); // at its default already

        setNumber(page, "health.window_s", 100);
        QVERIFY(row->resetButton()->isEnabled());
        QTest::mouseClick(row->resetButton(), Qt::LeftButton);
        QCOMPARE(page.numberEditor(QStringLiteral("health.window_s"))->value(), 300.0);
        QVERIFY(!row->resetButton()->isEnabled());

        setNumber(page, "probe.interval_s", 3);
        setNumber(page, "probe.timeout_s", 2);
        setNumber(page, "probe.successes_to_readmit", 7);
        QTest::mouseClick(page.groupResetButton(SettingsGroup::HeartbeatProbe), Qt::LeftButton);
        QCOMPARE(page.numberEditor(QStringLiteral("probe.interval_s"))->value(), 10.0);
        QCOMPARE(page.numberEditor(QStringLiteral("probe.timeout_s"))->value(), 5.0);
        QCOMPARE(page.numberEditor(QStringLiteral("probe.successes_to_readmit"))->value(), 2.0);

        // The breaker group resets to the relay preset (the engine's defaults), from launch-day.
        QTest::mouseClick(page.groupResetButton(SettingsGroup::CircuitBreaker), Qt::LeftButton);
        QCOMPARE(page.presetBox()->currentData().toString(), QStringLiteral("relay"));
        QCOMPARE(page.numberEditor(QStringLiteral("breaker.open_duration_s"))->value(), 60.0);
        QCOMPARE(page.halfOpenModeBox()->currentData().toString(), QStringLiteral("trial_calls"));
        QVERIFY(page.save());
        QCOMPARE(disk.reload()->breaker.preset, QStringLiteral("relay"));
        QCOMPARE(disk.reload()->breaker.halfOpenMode, HalfOpenMode::TrialCalls);

        page.retentionEditor()->setValue(90);
        page.resetField(QString::fromLatin1(SettingsKey::RetentionDays));
        QCOMPARE(page.retentionEditor()->value(), ConfigRepository::DefaultRetentionDays);
    }

    void revertDropsTheDraft()
    {
        StoreOnDisk disk;
        QVERIFY(disk.ready);
        SettingsPage page;
        page.setConfigStore(disk.store.get());
        setNumber(page, "retry.max_attempts", 9);
        page.listenHostEdit()->setText(QStringLiteral("127.0.0.2"));
        QVERIFY(page.isDirty());
        QTest::mouseClick(page.revertButton(), Qt::LeftButton);
        QVERIFY(!page.isDirty());
        QCOMPARE(page.numberEditor(QStringLiteral("retry.max_attempts"))->value(), double(disk.store->current()->retry.maxAttempts));
        QCOMPARE(page.listenHostEdit()->text(), disk.store->current()->proxy.listenHost);
    }

    void nonLoopbackListenWithoutTokenIsRefusedInline()
    {
        StoreOnDisk disk;
        QVERIFY(disk.ready);
        SettingsPage page;
        page.setConfigStore(disk.store.get());
        QVERIFY(disk.store->current()->proxy.localToken.isEmpty());

        page.listenHostEdit()->setText(QStringLiteral("0.0.0.0"));
        ProxyConfig proxy;
        proxy.listenHost = QStringLiteral("0.0.0.0");
        QString engineSentence;
        QVERIFY(!listenAddressAllowed(proxy, &engineSentence));
        QCOMPARE(errorUnder(page, QString::fromLatin1(SettingsKey::ListenHost)), engineSentence);
        QVERIFY(!page.saveButton()->isEnabled());

        page.listenHostEdit()->setText(QStringLiteral("not-an-address"));
        QVERIFY(errorUnder(page, QString::fromLatin1(SettingsKey::ListenHost)).contains(QStringLiteral("not an IP address")));

        page.listenHostEdit()->setText(QStringLiteral("0.0.0.0"));
        QTest::mouseClick(page.tokenEditor()->generateButton(), Qt::LeftButton);
        const QString token = page.tokenEditor()->token();
        QVERIFY(token.startsWith(QStringLiteral("sb-")));
        QVERIFY(token.size() >= 40);
        QVERIFY(errorUnder(page, QString::fromLatin1(SettingsKey::ListenHost)).isEmpty());
        setNumber(page, "proxy.listen_port", 8411);
        QVERIFY(page.save());
        QVERIFY2(page.statusText().contains(QStringLiteral("apply at once")), qPrintable(page.statusText()));
        const EngineConfigPtr reloaded = disk.reload();
        QCOMPARE(reloaded->proxy.listenHost, QStringLiteral("0.0.0.0"));
        QCOMPARE(reloaded->proxy.listenPort, 8411);
        QCOMPARE(reloaded->proxy.localToken, token);

        // Removing the token while listening on every interface is refused again.
        page.resetField(QString::fromLatin1(SettingsKey::LocalToken));
        QCOMPARE(errorUnder(page, QString::fromLatin1(SettingsKey::ListenHost)), engineSentence);
        QVERIFY(!page.saveButton()->isEnabled());
    }

    void httpsFilesAreReadAsTheEngineReadsThemAndSaved()
    {
        StoreOnDisk disk;
        QVERIFY(disk.ready);
        SettingsPage page;
        page.setConfigStore(disk.store.get());
        page.resize(1000, 900);
        TlsFilesEditor *tls = page.tlsEditor();
        const QString key = QString::fromLatin1(SettingsKey::Tls);
        QVERIFY2(tls->description().contains(QStringLiteral("Plain HTTP")), qPrintable(tls->description()));

        test::TestCertificate certificate, other;
        QString why;
        QVERIFY2(certificate.make(&why, QStringLiteral("gateway.test")) && other.make(&why), qPrintable(why));
        // Half a pair, then a key of another certificate: said under the row, and nothing saved.
        tls->certificateEdit()->setText(certificate.certificateFile());
        QVERIFY2(errorUnder(page, key).contains(QStringLiteral("both")), qPrintable(errorUnder(page, key)));
        QVERIFY(!page.saveButton()->isEnabled());
        tls->keyEdit()->setText(other.keyFile());
        QVERIFY2(errorUnder(page, key).contains(QStringLiteral("does not belong to the certificate")), qPrintable(errorUnder(page, key)));
        QVERIFY(!page.saveButton()->isEnabled());

        tls->keyEdit()->setText(certificate.keyFile());
        QVERIFY2(errorUnder(page, key).isEmpty(), qPrintable(errorUnder(page, key)));
        QVERIFY2(tls->description().contains(QStringLiteral("CN=gateway.test")), qPrintable(tls->description()));
        QVERIFY(tls->description().contains(QStringLiteral("IP:127.0.0.1")));
        QVERIFY(tls->description().contains(QStringLiteral("SHA-256 ")));
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        auto *state = tls->findChild<QLabel *>(QStringLiteral("tlsState"));
        // Every line shows, inside the editor.
        QTRY_VERIFY(state->height() >= state->fontMetrics().lineSpacing() * 4 && state->geometry().bottom() < tls->height());
        QVERIFY(page.grab().save(test::artifactPath(QStringLiteral("settings-https.png"))));
        QVERIFY(page.save());
        const EngineConfigPtr reloaded = disk.reload();
        QCOMPARE(reloaded->proxy.tlsCertFile, certificate.certificateFile());
        QCOMPARE(reloaded->proxy.tlsKeyFile, certificate.keyFile());

        page.resetField(key);
        QVERIFY(tls->certificateFile().isEmpty() && tls->keyFile().isEmpty());
        QVERIFY(page.save());
        QVERIFY(!disk.reload()->proxy.servesTls());
    }

    void tokenIsNeverShownUnmaskedUnlessShowIsToggled()
    {
        StoreOnDisk disk;
        QVERIFY(disk.ready);
        SettingsPage page;
        page.setConfigStore(disk.store.get());
        page.resize(1400, 1200);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        const QString secret = QStringLiteral("sb-do-not-show-1234567890");
        page.tokenEditor()->lineEdit()->setFocus();
        QTest::keyClicks(page.tokenEditor()->lineEdit(), secret);
        QCOMPARE(page.tokenEditor()->token(), secret);

        const auto visibleAnywhere = [&] {
            QStringList seen;
            for (QWidget *w : page.findChildren<QWidget *>()) {
                seen << w->toolTip();
                if (auto *label = qobject_cast<QLabel *>(w))
                    seen << label->text();
                if (auto *edit = qobject_cast<QLineEdit *>(w))
                    seen << edit->displayText();
            }
            return seen.join(u'\n').contains(QStringLiteral("do-not-show"));
        };
        QCOMPARE(page.tokenEditor()->lineEdit()->echoMode(), QLineEdit::Password);
        QVERIFY(!visibleAnywhere());
        QTest::mouseClick(page.tokenEditor()->generateButton(), Qt::LeftButton);
        QVERIFY(!page.tokenEditor()->isRevealed()); // a generated token stays masked too
        page.tokenEditor()->setToken(secret);

        page.tokenEditor()->showButton()->click();
        QVERIFY(page.tokenEditor()->isRevealed());
        QCOMPARE(page.tokenEditor()->lineEdit()->displayText(), secret);
        QVERIFY(visibleAnywhere());
        page.tokenEditor()->showButton()->click();
        QVERIFY(!page.tokenEditor()->isRevealed());
        QVERIFY(!visibleAnywhere());

        // Saved, the token goes to the secret store, and the reopened page masks it again.
        QVERIFY(page.save());
        SettingsPage second;
        second.setConfigStore(disk.store.get());
        QCOMPARE(second.tokenEditor()->token(), secret);
        QCOMPARE(second.tokenEditor()->lineEdit()->echoMode(), QLineEdit::Password);
    }

    void presetFillsTheBreakerAndEditsMakeItCustom()
    {
        StoreOnDisk disk;
        QVERIFY(disk.ready);
        SettingsPage page;
        page.setConfigStore(disk.store.get());
        const int relay = page.presetBox()->findData(QStringLiteral("relay"));
        page.presetBox()->setCurrentIndex(relay);
        emit page.presetBox()->activated(relay);
        QCOMPARE(page.numberEditor(QStringLiteral("breaker.consecutive_failures"))->value(), 5.0);
        QCOMPARE(page.numberEditor(QStringLiteral("breaker.open_duration_s"))->value(), 60.0);
        QCOMPARE(page.halfOpenModeBox()->currentData().toString(), QStringLiteral("trial_calls"));
        QCOMPARE(page.presetBox()->currentData().toString(), QStringLiteral("relay"));
        setNumber(page, "breaker.consecutive_failures", 8);
        QCOMPARE(page.presetBox()->currentData().toString(), QStringLiteral("custom"));
        setNumber(page, "breaker.consecutive_failures", 5);
        QCOMPARE(page.presetBox()->currentData().toString(), QStringLiteral("relay"));
    }

    void savesMadeElsewhereAreShownWhenNotEditing()
    {
        StoreOnDisk disk;
        QVERIFY(disk.ready);
        SettingsPage page;
        page.setConfigStore(disk.store.get());
        EngineConfig edited = *disk.store->current();
        edited.health.window = 200s;
        QVERIFY(disk.store->save(edited, QStringLiteral("a dialog")).ok());
        QCOMPARE(page.numberEditor(QStringLiteral("health.window_s"))->value(), 200.0);

        // Mid-edit, the draft is kept, and saving it does not undo the other change.
        setNumber(page, "probe.interval_s", 20);
        edited = *disk.store->current();
        edited.health.fastWindow = 40s;
        QVERIFY(disk.store->save(edited, QStringLiteral("a dialog")).ok());
        QCOMPARE(page.numberEditor(QStringLiteral("probe.interval_s"))->value(), 20.0);
        QVERIFY(page.save());
        QCOMPARE(disk.reload()->health.fastWindow, 40s);
        QCOMPARE(disk.reload()->probe.interval, 20s);
    }

    void themeAndMuteApplyAtOnce()
    {
        test::FakeClock clock;
        ThemeManager themes;
        TrayNotifier tray(clock);
        tray.setMuted(false);
        SettingsPage page;
        page.setThemeManager(&themes);
        page.setTrayNotifier(&tray);
        const int dark = page.themeBox()->findData(QStringLiteral("dark"));
        page.themeBox()->setCurrentIndex(dark);
        emit page.themeBox()->activated(dark);
        QCOMPARE(themes.theme(), ThemeManager::Theme::Dark);
        QVERIFY(ThemeManager::isDark(QApplication::palette()));
        page.resetField(QString::fromLatin1(SettingsKey::Theme));
        QCOMPARE(themes.theme(), ThemeManager::Theme::System);
        QVERIFY(!ThemeManager::isDark(QApplication::palette()));

        page.muteBox()->setChecked(true);
        QVERIFY(tray.isMuted());
        tray.muteAction()->setChecked(false); // the tray menu's toggle
        QVERIFY(!page.muteBox()->isChecked());
    }

    void attachedShowsTheConsolesOwnPreferencesOnly()
    {
        ThemeManager themes;
        WiredPage wired(themes);
        QVERIFY(wired.disk.ready);
        StoreOnDisk &disk = wired.disk;
        TrayNotifier &tray = wired.tray;
        SettingsPage &page = wired.page;
        tray.setMuted(false);
        page.resize(1200, 700);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        const std::chrono::seconds storedInterval = disk.store->current()->probe.interval;
        setNumber(page, "probe.interval_s", 20); // a draft in progress when the console attaches
        QVERIFY(page.isDirty());

        const QString address = QStringLiteral("http://10.0.0.5:8400");
        page.setAttachedInstance(address);
        const auto group = [&page](SettingsGroup g) {
            return page.findChild<QWidget *>(QStringLiteral("group%1").arg(static_cast<int>(g)));
        };
        for (SettingsGroup g : {SettingsGroup::Proxy, SettingsGroup::HealthScore, SettingsGroup::CircuitBreaker, SettingsGroup::PoolEjection,
                                SettingsGroup::HeartbeatProbe, SettingsGroup::RetryBudget, SettingsGroup::History})
            QVERIFY2(!group(g)->isVisible(), qPrintable(groupTitle(g)));
        QVERIFY(group(SettingsGroup::Appearance)->isVisible());
        QVERIFY(!page.saveButton()->isVisible() && !page.revertButton()->isVisible());
        QVERIFY(page.engineNotice()->isVisible());
        QVERIFY2(page.engineNotice()->text().contains(address), qPrintable(page.engineNotice()->text()));
        QVERIFY(!page.save()); // nothing is saved that the user cannot see
        QCOMPARE(disk.reload()->probe.interval, storedInterval);
        QSignalSpy detach(&page, &SettingsPage::detachRequested);
        page.engineNotice()->findChild<QPushButton *>(QStringLiteral("noticeDetach"))->click();
        QCOMPARE(detach.count(), 1);

        // The console's own preferences still apply at once.
        const int dark = page.themeBox()->findData(QStringLiteral("dark"));
        page.themeBox()->setCurrentIndex(dark);
        emit page.themeBox()->activated(dark);
        QCOMPARE(themes.theme(), ThemeManager::Theme::Dark);
        page.muteBox()->setChecked(true);
        QVERIFY(tray.isMuted());
        for (int round = 0; round < 4; ++round)
            QCoreApplication::processEvents();
        QVERIFY(page.grab().save(test::artifactPath(QStringLiteral("settings/settings-attached.png"))));
        themes.setTheme(ThemeManager::Theme::System);
        tray.setMuted(false);

        // Back on the embedded engine, the engine's groups return with the draft as it was.
        page.setAttachedInstance(QString());
        QVERIFY(!page.engineNotice()->isVisible());
        QVERIFY(group(SettingsGroup::HeartbeatProbe)->isVisible());
        QVERIFY(page.saveButton()->isVisible() && page.saveButton()->isEnabled());
        QCOMPARE(page.numberEditor(QStringLiteral("probe.interval_s"))->value(), 20.0);
        QVERIFY(page.save());
        QCOMPARE(disk.reload()->probe.interval, 20s);
    }

    void screenshotsLightAndDark()
    {
        ThemeManager themes;
        for (const auto theme : {ThemeManager::Theme::Light, ThemeManager::Theme::Dark}) {
            themes.setTheme(theme);
            WiredPage wired(themes);
            QVERIFY(wired.disk.ready);
            SettingsPage &page = wired.page;
            page.resize(1400, 1320);
            page.show();
            QVERIFY(QTest::qWaitForWindowExposed(&page));
            if (theme == ThemeManager::Theme::Dark) {
                // The dark shot shows the inline validation: an unsaved edit and a refused address.
                page.listenHostEdit()->setText(QStringLiteral("0.0.0.0"));
                setNumber(page, "health.eject_below", 60);
            } else {
                page.tokenEditor()->setToken(QStringLiteral("sb-masked-in-the-screenshot"));
            }
            for (int round = 0; round < 4; ++round)
                QCoreApplication::processEvents();
            const QString name = theme == ThemeManager::Theme::Dark ? QStringLiteral("settings-dark.png") : QStringLiteral("settings-light.png");
            const QString path = test::artifactPath(QStringLiteral("settings/") + name);
            QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
            const QImage image = page.grab().toImage();
            QVERIFY(image.save(path));
            const QColor background = image.pixelColor(5, image.height() - 5);
            QCOMPARE(background.lightness() < 128, theme == ThemeManager::Theme::Dark);
            qInfo("screenshot %s", qPrintable(path));
            if (theme == ThemeManager::Theme::Light) {
                // The retry group, with the deadlines and the stream continuation switch.
                auto *scroll = page.findChild<QScrollArea *>();
                QVERIFY(scroll);
                scroll->ensureWidgetVisible(page.continueStreamsBox(), 0, 400);
                QCoreApplication::processEvents();
                QVERIFY(page.continueStreamsBox()->isChecked());
                QVERIFY(page.grab().save(test::artifactPath(QStringLiteral("settings/retry-and-streams.png"))));
            }
        }
        themes.setTheme(ThemeManager::Theme::System);
    }

private:
    QTemporaryDir m_settingsDir;
};

QTEST_MAIN(tst_SettingsPage)
#include "tst_SettingsPage.moc"
