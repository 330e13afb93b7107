// Start-up that does not strand the user: the console's proxy port taken by another program is
// answered with the next free port (asked in PortInUseDialog), the engine starts there and the
// choice is kept in the database for the next start; a second Switchboard on a database another one
// runs on is told so instead of fighting it for the port. Real EngineHosts on real SQLite files,
// a real listening socket in the way, the dialog offscreen with a screenshot.
#include "FakeClock.h"
#include "TestPaths.h"
#include "common/Random.h"
#include "engine/EngineHost.h"
#include "startup/ConsoleStartup.h"
#include "startup/PortInUseDialog.h"
#include "store/ConfigRepository.h"
#include "store/ConfigStore.h"
#include "store/DatabaseSecretStore.h"

#include <QCoreApplication>
#include <QPushButton>
#include <QSpinBox>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

using namespace sb;

namespace {

// A database whose stored configuration (the demo's) listens on `port`.
bool seedWithPort(const QString &dbPath, quint16 port)
{
    test::FakeClock clock;
    DatabaseSecretStore secrets(dbPath);
    ConfigRepository repository(dbPath, secrets, clock);
    QString error;
    if (!secrets.open(&error) || !repository.open(&error) || (!repository.seedDemoIfEmpty(&error) && !error.isEmpty()))
        return false;
    EngineConfig config = *repository.load(&error);
    config.proxy.listenPort = port;
    return repository.save(config, QStringLiteral("test")).ok();
}

int storedPort(const QString &dbPath)
{
    test::FakeClock clock;
    DatabaseSecretStore secrets(dbPath);
    ConfigRepository repository(dbPath, secrets, clock);
    QString error;
    if (!secrets.open(&error) || !repository.open(&error))
        return -1;
    const EngineConfigPtr config = repository.load(&error);
    return config ? config->proxy.listenPort : -1;
}

EngineHost::Options consoleOptions(const QString &dbPath)
{
    EngineHost::Options options;
    options.dbPath = dbPath;
    options.secrets = sb::SecretStoreFactory::Preference::DatabaseOnly;
    return options;
}

} // namespace

class tst_ConsoleStartup : public QObject {
    Q_OBJECT
private slots:
    void aPortInUseIsAnsweredWithTheNextFreeOneAndRemembered()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("switchboard.db"));
        QTcpServer squatter; // "another program" on the configured port
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        const quint16 busy = squatter.serverPort();
        QVERIFY(seedWithPort(db, busy));

        SplitMixRandom random(5);
        struct Asked {
            QString host;
            quint16 busy = 0;
            std::optional<quint16> suggested;
        };
        std::vector<Asked> asked;
        const auto answerWithSuggestion = [&](const QString &host, quint16 port, std::optional<quint16> suggested) {
            asked.push_back({host, port, suggested});
            return suggested;
        };
        quint16 moved = 0;
        {
            EngineHost host(SystemClock::instance(), random);
            ConsoleStartup startup;
            startup.setPortQuestion(answerWithSuggestion);
            QString error;
            QCOMPARE(startup.start(host, consoleOptions(db), &error), ConsoleStartup::Result::Started);
            QCOMPARE(asked.size(), std::size_t(1));
            QCOMPARE(asked[0].host, QStringLiteral("127.0.0.1"));
            QCOMPARE(asked[0].busy, busy);
            QVERIFY(asked[0].suggested && *asked[0].suggested > busy);
            moved = *asked[0].suggested;
            QVERIFY(host.gateway());
            QCOMPARE(host.gateway()->port(), moved);
            QCOMPARE(host.configStore()->current()->proxy.listenPort, int(moved));
            host.stop(std::chrono::milliseconds(0));
        }
        QCOMPARE(storedPort(db), int(moved)); // kept for the next start

        // The next start listens there at once, nothing asked, the squatter still in place.
        EngineHost again(SystemClock::instance(), random);
        ConsoleStartup startup;
        startup.setPortQuestion(answerWithSuggestion);
        QString error;
        QCOMPARE(startup.start(again, consoleOptions(db), &error), ConsoleStartup::Result::Started);
        QCOMPARE(asked.size(), std::size_t(1));
        QCOMPARE(again.gateway()->port(), moved);
    }

    void declinedTheConsoleOpensWithoutTheProxyAndNothingIsChanged()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("switchboard.db"));
        QTcpServer squatter;
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        QVERIFY(seedWithPort(db, squatter.serverPort()));
        SplitMixRandom random(6);
        EngineHost host(SystemClock::instance(), random);
        ConsoleStartup startup;
        startup.setPortQuestion([](const QString &, quint16, std::optional<quint16>) { return std::nullopt; });
        QString error;
        QCOMPARE(startup.start(host, consoleOptions(db), &error), ConsoleStartup::Result::WithoutProxy);
        QVERIFY2(error.contains(QStringLiteral("in use")), qPrintable(error));
        QVERIFY(!host.gateway());
        QCOMPARE(storedPort(db), int(squatter.serverPort()));
        // Nothing half-started holds the database: a start after the squatter left works.
        squatter.close();
        QVERIFY2(host.start(consoleOptions(db), &error), qPrintable(error));
    }

    void aSecondSwitchboardOnTheSameDatabaseIsToldTheFirstIsRunning()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("switchboard.db"));
        SplitMixRandom random(7);
        EngineHost first(SystemClock::instance(), random);
        EngineHost::Options options = consoleOptions(db);
        options.listen = QStringLiteral("127.0.0.1:0");
        QString error;
        QVERIFY2(first.start(options, &error), qPrintable(error));

        EngineHost second(SystemClock::instance(), random);
        ConsoleStartup startup;
        bool asked = false;
        startup.setPortQuestion([&](const QString &, quint16, std::optional<quint16>) {
            asked = true;
            return std::nullopt;
        });
        QCOMPARE(startup.start(second, options, &error), ConsoleStartup::Result::AlreadyRunning);
        QVERIFY(!asked);
        QVERIFY(!second.gateway());
        QCOMPARE(second.lockOwnerPid(), QCoreApplication::applicationPid());
        QVERIFY2(error.contains(QStringLiteral("already running on %1").arg(db)), qPrintable(error));
        QVERIFY(first.gateway()->port() != 0); // the first one is untouched

        // Once the first has stopped, the database is free.
        first.stop(std::chrono::milliseconds(0));
        QCOMPARE(startup.start(second, options, &error), ConsoleStartup::Result::Started);
    }

    void theDialogOffersTheNextFreePortAndChecksAnyOther()
    {
        QTcpServer squatter;
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        QTcpServer alsoTaken;
        QVERIFY(alsoTaken.listen(QHostAddress::LocalHost, 0));
        const quint16 busy = squatter.serverPort();
        PortInUseDialog dialog(QStringLiteral("127.0.0.1"), busy, static_cast<quint16>(busy + 1));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY2(dialog.explanationText().contains(QStringLiteral("127.0.0.1:%1").arg(busy)), qPrintable(dialog.explanationText()));
        QCOMPARE(dialog.chosenPort(), quint16(busy + 1));

        dialog.portEdit()->setValue(alsoTaken.serverPort());
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY2(dialog.portStateText().contains(QStringLiteral("in use too")), qPrintable(dialog.portStateText()));
        dialog.portEdit()->setValue(busy);
        QVERIFY(!dialog.startButton()->isEnabled());

        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const quint16 free = probe.serverPort();
        probe.close();
        dialog.portEdit()->setValue(free);
        QVERIFY(dialog.startButton()->isEnabled());
        QVERIFY2(dialog.portStateText().contains(QStringLiteral("http://127.0.0.1:%1/v1").arg(free)), qPrintable(dialog.portStateText()));

        dialog.startButton()->click();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QCOMPARE(dialog.chosenPort(), free);

        // The picture: as a user first sees it with the default port taken, the next one offered.
        PortInUseDialog first(QStringLiteral("127.0.0.1"), 8400, 8401);
        first.resize(520, 240);
        first.show();
        QVERIFY(QTest::qWaitForWindowExposed(&first));
        for (int round = 0; round < 4; ++round)
            QCoreApplication::processEvents();
        const QString shot = test::artifactPath(QStringLiteral("startup/port-in-use.png"));
        QVERIFY(first.grab().save(shot));
        qInfo("screenshot %s", qPrintable(shot));
    }
};

QTEST_MAIN(tst_ConsoleStartup)
#include "tst_ConsoleStartup.moc"
