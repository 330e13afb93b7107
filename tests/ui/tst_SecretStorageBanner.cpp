#include "TestPaths.h"
#include "ThemeManager.h"
#include "store/Database.h"
#include "store/SecretBackendRecord.h"
#include "store/SecretStoreFactory.h"
#include "widgets/SecretStorageBanner.h"

#include <QtTest>
#include <QLabel>
#include <QSettings>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QVBoxLayout>

#include <sys/stat.h>

using namespace sb;

class tst_SecretStorageBanner : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QCoreApplication::setOrganizationName(QStringLiteral("SwitchboardTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_SecretStorageBanner"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
    }

    void keysInTheDatabaseFileShowAWarningWithWhatToDo()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("switchboard.db"));
        // The choice EngineHost makes when no keyring answers (or a service may not use one).
        SecretStoreChoice choice = SecretStoreFactory::create(path, SecretStoreFactory::Preference::DatabaseOnly);
        QVERIFY2(choice.store, qPrintable(choice.error));
        QCOMPARE(choice.backend, SecretBackend::Database);
        QVERIFY(!choice.warning.isEmpty());
        QVERIFY(choice.store->store(QStringLiteral("api-key/1/r1"), QStringLiteral("sk-live-abcdefghijklmnop")));
        struct stat info {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);

        QWidget window;
        auto *layout = new QVBoxLayout(&window);
        auto *banner = new SecretStorageBanner(&window);
        layout->addWidget(banner);
        layout->addStretch(1);
        QVERIFY(!banner->isVisibleTo(&window)); // nothing to warn about yet
        banner->setWarning(choice.warning, path);
        QVERIFY(banner->isVisibleTo(&window));
        const QString text = banner->text();
        QVERIFY(text.contains(choice.warning.toHtmlEscaped()));
        QVERIFY(text.contains(path.toHtmlEscaped()));
        QVERIFY(text.contains(QStringLiteral("0600")));
        QVERIFY(text.contains(QStringLiteral("keyring")));
        QVERIFY(!text.contains(QStringLiteral("abcdefghijklmnop"))); // never a key

        banner->setWarning(QString());
        QVERIFY(!banner->isVisibleTo(&window));
    }

    void keysInAKeyringOutOfReachSayWhatToDoInstead()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("switchboard.db"));
        {
            Database db(path, QStringLiteral("seed"));
            QVERIFY(db.open());
            QVERIFY(SecretBackendRecord::write(db, SecretBackend::Keyring));
        }
        // DatabaseOnly asks no keyring: the recorded one is out of reach, as on a machine without one.
        SecretStoreChoice choice = SecretStoreFactory::create(path, SecretStoreFactory::Preference::DatabaseOnly);
        QVERIFY2(choice.store, qPrintable(choice.error));
        QVERIFY(!choice.store->readable());

        QWidget window;
        window.resize(1100, 140);
        auto *layout = new QVBoxLayout(&window);
        auto *banner = new SecretStorageBanner(&window);
        layout->addWidget(banner);
        layout->addStretch(1);
        banner->setWarning(choice.warning, path, false);
        QVERIFY(banner->isVisibleTo(&window));
        const QString text = banner->text();
        QVERIFY(text.contains(QStringLiteral("cannot be reached")));
        QVERIFY(text.contains(QStringLiteral("unlock the keyring")));
        QVERIFY(!text.contains(QStringLiteral("0600"))); // the file holds no key: nothing to keep out of backups
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCoreApplication::processEvents();
        QVERIFY(window.grab().save(test::artifactPath(QStringLiteral("settings/secret-banner-keyring-unreachable.png"))));
    }

    void screenshotsLightAndDark()
    {
        ThemeManager themes;
        for (const auto theme : {ThemeManager::Theme::Light, ThemeManager::Theme::Dark}) {
            themes.setTheme(theme);
            QWidget window;
            window.resize(1100, 140);
            auto *layout = new QVBoxLayout(&window);
            auto *banner = new SecretStorageBanner(&window);
            layout->addWidget(banner);
            layout->addWidget(new QLabel(QStringLiteral("(the console's pages continue below)"), &window));
            layout->addStretch(1);
            banner->setWarning(QStringLiteral("No keyring is available (org.freedesktop.secrets was not provided by any .service files): "
                                              "API keys are stored unencrypted in the database file (readable by your user only)."),
                               QStringLiteral("/home/ops/.local/share/Switchboard/switchboard/switchboard.db"));
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QCoreApplication::processEvents();
            const QString path = test::artifactPath(
                QStringLiteral("settings/secret-banner-%1.png").arg(ThemeManager::themeName(theme)));
            QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
            QVERIFY(window.grab().save(path));
            // The strip keeps its own light amber on either palette.
            const QImage image(path);
            const QPoint inside = banner->geometry().center() + QPoint(banner->width() / 2 - 8, 0);
            QVERIFY(image.pixelColor(inside).lightness() > 200);
            qInfo("screenshot %s", qPrintable(path));
        }
        themes.setTheme(ThemeManager::Theme::System);
    }

private:
    QTemporaryDir m_settingsDir;
};

QTEST_MAIN(tst_SecretStorageBanner)
#include "tst_SecretStorageBanner.moc"
