#include "CommandLine.h"

#include "common/BuildInfo.h"
#include "remote/RemoteAddress.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>

bool parseCommandLine(const QStringList &arguments, AppOptions *options, int *exitCode)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Switchboard: a local OpenAI-compatible proxy that fails over between model providers,\n"
        "with an operations console."));
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption = parser.addVersionOption();
    const QCommandLineOption headless(QStringLiteral("headless"),
                                      QStringLiteral("Run the proxy without a window; logs go to stderr."));
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("SQLite database to use (default: the user's data directory)."),
                                QStringLiteral("path"));
    const QCommandLineOption config(QStringLiteral("config"),
                                    QStringLiteral("Load providers, keys, channels and routes from a JSON file."),
                                    QStringLiteral("file"));
    const QCommandLineOption listen(QStringLiteral("listen"),
                                    QStringLiteral("Address of the local proxy port (default 127.0.0.1:8400)."),
                                    QStringLiteral("host:port"));
    const QCommandLineOption logLevel(QStringLiteral("log-level"),
                                      QStringLiteral("trace, debug, info, warn or error (default info)."),
                                      QStringLiteral("level"), QStringLiteral("info"));
    const QCommandLineOption screenshots(QStringLiteral("screenshots"),
                                         QStringLiteral("Save a PNG of every console page into a directory, then quit."),
                                         QStringLiteral("dir"));
    const QCommandLineOption attach(QStringLiteral("attach"),
                                    QStringLiteral("Console: watch a running instance through its admin API (token from\n"
                                                   "SWITCHBOARD_TOKEN, or asked for)."),
                                    QStringLiteral("host:port"));
    parser.addOptions({headless, db, config, listen, logLevel, screenshots, attach});

    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "switchboard: %s\nTry 'switchboard --help'.\n", qPrintable(parser.errorText()));
        *exitCode = 2;
        return false;
    }
    if (parser.isSet(helpOption)) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        *exitCode = 0;
        return false;
    }
    if (parser.isSet(versionOption)) {
        std::printf("switchboard %s\n", SB_VERSION);
        *exitCode = 0;
        return false;
    }
    if (!parser.positionalArguments().isEmpty()) {
        std::fprintf(stderr, "switchboard: unexpected argument '%s'\nTry 'switchboard --help'.\n",
                     qPrintable(parser.positionalArguments().first()));
        *exitCode = 2;
        return false;
    }
    static const QStringList levels{QStringLiteral("trace"), QStringLiteral("debug"), QStringLiteral("info"),
                                    QStringLiteral("warn"), QStringLiteral("error")};
    if (!levels.contains(parser.value(logLevel))) {
        std::fprintf(stderr, "switchboard: --log-level must be one of %s\n", qPrintable(levels.join(QStringLiteral(", "))));
        *exitCode = 2;
        return false;
    }
    if (parser.isSet(attach)) {
        if (parser.isSet(headless)) {
            std::fputs("switchboard: --attach opens a console on another instance; it has no meaning with --headless\n", stderr);
            *exitCode = 2;
            return false;
        }
        QString error;
        if (!sb::RemoteAddress::parse(parser.value(attach), &error)) {
            std::fprintf(stderr, "switchboard: --attach: %s\n", qPrintable(error));
            *exitCode = 2;
            return false;
        }
    }
    options->headless = parser.isSet(headless);
    options->attach = parser.value(attach);
    options->dbPath = parser.value(db);
    options->configPath = parser.value(config);
    options->listen = parser.value(listen);
    options->logLevel = parser.value(logLevel);
    options->screenshotDir = parser.value(screenshots);
    return true;
}
