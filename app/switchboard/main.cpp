#include "CommandLine.h"
#include "ConfigCommands.h"
#include "DemoProviders.h"
#include "MainWindow.h"
#include "SignalWatcher.h"
#include "ThemeManager.h"
#include "TrayNotifier.h"

#include "common/BuildInfo.h"
#include "common/Logging.h"
#include "engine/EngineHost.h"
#include "remote/RemoteAddress.h"
#include "settings/SettingsPage.h"
#include "startup/ConsoleStartup.h"

#include <QApplication>
#include <QCoreApplication>
#include <QMessageBox>
#include <QStandardPaths>

#include <spdlog/spdlog.h>

#include <csignal>
#include <memory>

namespace {

void configureApplication()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Switchboard"));
    QCoreApplication::setApplicationName(QStringLiteral("switchboard"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SB_VERSION));
}

void startLogging(const AppOptions &options)
{
    sb::LoggingOptions logging;
    logging.toStderr = true;
    logging.level = options.logLevel;
    logging.directory = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    sb::setupLogging(logging);
}

sb::EngineHost::Options hostOptions(const AppOptions &options)
{
    sb::EngineHost::Options host;
    host.dbPath = options.dbPath;
    host.configPath = options.configPath;
    host.listen = options.listen;
    host.redisUrl = options.redis;
    host.tlsCertFile = options.tlsCertFile;
    host.tlsKeyFile = options.tlsKeyFile;
    // A database that has keys keeps them where they are, in either mode; a new one a service starts
    // puts them in the file, since a service has no keyring login to unlock one.
    host.secrets = options.headless ? sb::SecretStoreFactory::Preference::FileForNewDatabase : sb::SecretStoreFactory::Preference::Auto;
    return host;
}

// The demo configuration points at the built-in simulator; run it so the demo answers.
std::unique_ptr<DemoProviders> startDemoIfNeeded(const sb::EngineHost &host)
{
    if (!host.gateway() || !host.gateway()->config()->demo)
        return nullptr;
    auto demo = std::make_unique<DemoProviders>();
    QString error;
    if (!demo->start(&error)) {
        spdlog::warn("{}", error.toStdString());
        return nullptr;
    }
    spdlog::info("demo configuration: the built-in simulator answers on 127.0.0.1:18401 and :18402");
    return demo;
}

int runHeadless(int argc, char **argv, const AppOptions &options)
{
    QCoreApplication app(argc, argv);
    configureApplication();
    startLogging(options);
    spdlog::info("Switchboard {} starting headless", SB_VERSION);
    // Before anything starts: a SIGTERM or SIGHUP that arrives while the engine starts waits in the
    // watcher's pipe for the event loop, instead of killing the process half-started.
    SignalWatcher termination;

    sb::EngineHost host(sb::SystemClock::instance(), sb::SystemRandom::instance());
    QString error;
    if (!host.start(hostOptions(options), &error)) {
        spdlog::error("{}", error.toStdString());
        return 1;
    }
    if (!host.secretStorageWarning().isEmpty())
        spdlog::warn("{}", host.secretStorageWarning().toStdString());
    auto demo = startDemoIfNeeded(host);

    QObject::connect(&termination, &SignalWatcher::terminationRequested, &app, [&](int number) {
        spdlog::info("signal {}: draining in-flight requests, then exiting", number);
        const auto drain = host.gateway()->config()->proxy.drainTimeout;
        host.stop(std::chrono::duration_cast<std::chrono::milliseconds>(drain));
        if (demo)
            demo->stop();
        app.quit();
    });
    // systemctl reload: the configuration read again from where this run took it (the --config
    // file or the database), applied live like a save: requests in flight finish on the snapshot
    // they started with. A configuration that cannot work is refused and the running one stays.
    QObject::connect(&termination, &SignalWatcher::reloadRequested, &app, [&] {
        spdlog::info("SIGHUP: reloading the configuration");
        QString message;
        if (!host.reloadConfiguration(&message))
            spdlog::error("reload refused: {}", message.toStdString());
    });
    const int code = app.exec();
    spdlog::info("Switchboard stopped");
    return code;
}

int runConsole(int argc, char **argv, const AppOptions &options)
{
    QApplication app(argc, argv);
    configureApplication();
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/switchboard.svg")));
    startLogging(options);
    spdlog::info("Switchboard {} starting", SB_VERSION);

    sb::ThemeManager themes;
    themes.restore();
    MainWindow window;
    if (!options.screenshotDir.isEmpty()) {
        window.resize(1400, 860);
        return window.saveScreenshots(options.screenshotDir) ? 0 : 1;
    }
    sb::TrayNotifier tray(sb::SystemClock::instance());
    tray.showTrayIcon();
    QObject::connect(&tray, &sb::TrayNotifier::showConsoleRequested, &window, [&window] {
        window.showNormal();
        window.raise();
        window.activateWindow();
    });
    window.settingsPage()->setThemeManager(&themes);
    window.setTrayNotifier(&tray); // the embedded engine's alerts and an attached instance's

    sb::EngineHost host(sb::SystemClock::instance(), sb::SystemRandom::instance());
    QString error;
    std::unique_ptr<DemoProviders> demo;
    sb::ConsoleStartup startup(&window);
    switch (startup.start(host, hostOptions(options), &error)) {
    case sb::ConsoleStartup::Result::Started:
        demo = startDemoIfNeeded(host);
        window.attachHost(&host);
        window.settingsPage()->setListenAppliesLive(options.listen.isEmpty()); // --listen pins the address
        break;
    case sb::ConsoleStartup::Result::AlreadyRunning:
        // Two consoles on one database would fight over its port and its history; the first one is
        // the one to use.
        spdlog::warn("{}", error.toStdString());
        QMessageBox::information(nullptr, QStringLiteral("Switchboard is already running"), error);
        return 0;
    case sb::ConsoleStartup::Result::WithoutProxy:
        spdlog::warn("the console opens without its proxy: {}", error.toStdString());
        break;
    case sb::ConsoleStartup::Result::Failed:
        // The console still opens, so the user can read why and fix the configuration.
        spdlog::error("{}", error.toStdString());
        QMessageBox::warning(&window, QStringLiteral("Switchboard"),
                             QStringLiteral("The proxy could not start:\n\n%1").arg(error));
        break;
    }
    window.show();
    if (!options.attach.isEmpty()) {
        // Checked by parseCommandLine; the token never travels on the command line (ps shows argv).
        sb::RemoteGateway::Target target = *sb::RemoteAddress::parse(options.attach);
        target.token = qEnvironmentVariable("SWITCHBOARD_TOKEN").trimmed();
        target.trustFile = options.attachCaFile;
        // Without a token the user may type one (or need none, on loopback); a token bound for
        // another machine over plain HTTP waits for the dialog's explicit choice.
        if (target.token.isEmpty() || (!target.tls && !target.isLoopback()))
            window.openAttachDialog(target);
        else
            window.attachTo(target);
    }
    const int code = app.exec();
    window.detachHost();
    host.stop(std::chrono::seconds(5));
    if (demo)
        demo->stop();
    return code;
}

} // namespace

int main(int argc, char **argv)
{
    // A write to a connection whose peer has gone must fail with EPIPE, not end the process: the
    // engine's own sockets and TLS send with MSG_NOSIGNAL, but hiredis (the fleet's Redis link)
    // writes with write(2), and a library's SIGPIPE would take every client down with one peer.
    std::signal(SIGPIPE, SIG_IGN);

    // The resources live in a static library, so the linker needs to be told to keep them.
    Q_INIT_RESOURCE(resources);

    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);

    AppOptions options;
    int exitCode = 0;
    {
        // QCommandLineParser needs an application object for --help/--version text.
        QCoreApplication parsingApp(argc, argv);
        configureApplication();
        if (!parseCommandLine(arguments, &options, &exitCode))
            return exitCode;
    }
    if (!options.exportPath.isEmpty() || !options.importPath.isEmpty()) {
        QCoreApplication app(argc, argv); // the keyring's client needs one
        configureApplication();
        AppOptions quiet = options;
        quiet.logLevel = QStringLiteral("warn"); // the command's own lines are what a script reads
        startLogging(quiet);
        return runConfigCommand(options);
    }
    return options.headless ? runHeadless(argc, argv, options) : runConsole(argc, argv, options);
}
