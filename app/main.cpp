#include "CommandLine.h"
#include "MainWindow.h"

#include "common/BuildInfo.h"
#include "common/Logging.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

#include <spdlog/spdlog.h>

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

int runHeadless(int argc, char **argv, const AppOptions &options)
{
    QCoreApplication app(argc, argv);
    configureApplication();
    startLogging(options);
    spdlog::error("--headless: the proxy engine is not part of this build yet; run the console instead.");
    return 3;
}

int runConsole(int argc, char **argv, const AppOptions &options)
{
    QApplication app(argc, argv);
    configureApplication();
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/switchboard.svg")));
    startLogging(options);
    spdlog::info("Switchboard {} starting", SB_VERSION);

    MainWindow window;
    if (!options.screenshotDir.isEmpty()) {
        window.resize(1400, 860);
        const bool saved = window.saveScreenshots(options.screenshotDir);
        return saved ? 0 : 1;
    }
    window.show();
    return app.exec();
}

} // namespace

int main(int argc, char **argv)
{
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
    return options.headless ? runHeadless(argc, argv, options) : runConsole(argc, argv, options);
}
