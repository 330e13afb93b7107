#include "CommandLine.h"

#include "common/BuildInfo.h"
#include "remote/RemoteAddress.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QCoreApplication>

#include <cstdio>

bool parseCommandLine(const QStringList &arguments, AppOptions *options, int *exitCode)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Switchboard: a local OpenAI-compatible proxy that fails over between model providers, "
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
    const QCommandLineOption redis(QStringLiteral("redis"),
                                   QStringLiteral("Join a fleet: share breaker, key, limit and budget state with the other "
                                                  "instances through this Redis (redis://[:password@]host[:port][/db])."),
                                   QStringLiteral("url"));
    const QCommandLineOption tlsCert(QStringLiteral("tls-cert"),
                                     QStringLiteral("Serve HTTPS on the proxy port with this PEM certificate chain (with "
                                                    "--tls-key)."),
                                     QStringLiteral("file"));
    const QCommandLineOption tlsKey(QStringLiteral("tls-key"),
                                    QStringLiteral("The unencrypted PEM private key of --tls-cert."), QStringLiteral("file"));
    const QCommandLineOption logLevel(QStringLiteral("log-level"),
                                      QStringLiteral("trace, debug, info, warn or error (default info)."),
                                      QStringLiteral("level"), QStringLiteral("info"));
    const QCommandLineOption screenshots(QStringLiteral("screenshots"),
                                         QStringLiteral("Save a PNG of every console page into a directory, then quit."),
                                         QStringLiteral("dir"));
    const QCommandLineOption attach(QStringLiteral("attach"),
                                    QStringLiteral("Console: watch a running instance through its admin API (token from "
                                                   "SWITCHBOARD_TOKEN, or asked for)."),
                                    QStringLiteral("host:port"));
    const QCommandLineOption attachCa(QStringLiteral("attach-ca"),
                                      QStringLiteral("With --attach https://…: also trust the certificates in this PEM file "
                                                     "(the instance's own, when it is self-signed)."),
                                      QStringLiteral("file"));
    const QCommandLineOption exportOption(QStringLiteral("export"),
                                          QStringLiteral("Write the stored configuration to a JSON file, then exit (API keys "
                                                         "left out unless --with-keys)."),
                                          QStringLiteral("file"));
    const QCommandLineOption withKeys(QStringLiteral("with-keys"),
                                      QStringLiteral("With --export: include the API keys and the local token (file mode 0600)."));
    const QCommandLineOption importOption(QStringLiteral("import"),
                                          QStringLiteral("Check a JSON configuration file, print what it changes and save it "
                                                         "into the database in one transaction, then exit."),
                                          QStringLiteral("file"));
    parser.addOptions({headless, db, config, listen, redis, tlsCert, tlsKey, logLevel, screenshots, attach, attachCa,
                       exportOption, withKeys, importOption});

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
        const auto target = sb::RemoteAddress::parse(parser.value(attach), &error);
        if (!target) {
            std::fprintf(stderr, "switchboard: --attach: %s\n", qPrintable(error));
            *exitCode = 2;
            return false;
        }
        if (parser.isSet(attachCa) && !target->tls) {
            std::fputs("switchboard: --attach-ca trusts a certificate for TLS: give the instance as https://HOST:PORT\n", stderr);
            *exitCode = 2;
            return false;
        }
    } else if (parser.isSet(attachCa)) {
        std::fputs("switchboard: --attach-ca only means something with --attach https://HOST:PORT\n", stderr);
        *exitCode = 2;
        return false;
    }
    if (parser.isSet(exportOption) || parser.isSet(importOption)) {
        QString conflict;
        if (parser.isSet(exportOption) && parser.isSet(importOption))
            conflict = QStringLiteral("--export and --import are two runs; give one of them");
        else if (parser.isSet(config))
            conflict = QStringLiteral("--config runs on a file without the database; --export and --import work on the database (--db)");
        else if (parser.isSet(attach) || parser.isSet(listen) || parser.isSet(screenshots))
            conflict = QStringLiteral("--export and --import run no engine and open no window; leave out --attach, --listen and --screenshots");
        if (!conflict.isEmpty()) {
            std::fprintf(stderr, "switchboard: %s\n", qPrintable(conflict));
            *exitCode = 2;
            return false;
        }
    }
    if (parser.isSet(tlsCert) != parser.isSet(tlsKey)) {
        std::fputs("switchboard: HTTPS needs both --tls-cert FILE and --tls-key FILE\n", stderr);
        *exitCode = 2;
        return false;
    }
    if (parser.isSet(withKeys) && !parser.isSet(exportOption)) {
        std::fputs("switchboard: --with-keys only means something with --export FILE\n", stderr);
        *exitCode = 2;
        return false;
    }
    options->exportPath = parser.value(exportOption);
    options->exportWithKeys = parser.isSet(withKeys);
    options->importPath = parser.value(importOption);
    options->headless = parser.isSet(headless);
    options->attach = parser.value(attach);
    if (parser.isSet(attachCa))
        options->attachCaFile = QFileInfo(parser.value(attachCa)).absoluteFilePath();
    options->dbPath = parser.value(db);
    options->configPath = parser.value(config);
    options->listen = parser.value(listen);
    options->redis = parser.value(redis);
    // Absolute, so a reload later reads the same files whatever the working directory is then.
    if (parser.isSet(tlsCert)) {
        options->tlsCertFile = QFileInfo(parser.value(tlsCert)).absoluteFilePath();
        options->tlsKeyFile = QFileInfo(parser.value(tlsKey)).absoluteFilePath();
    }
    options->logLevel = parser.value(logLevel);
    options->screenshotDir = parser.value(screenshots);
    return true;
}
