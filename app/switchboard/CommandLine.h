#pragma once

#include <QString>
#include <QStringList>

class QCoreApplication;

// What the user asked for on the command line, parsed once in main().
struct AppOptions {
    bool headless = false;
    QString dbPath;      // empty: QStandardPaths::AppDataLocation/switchboard.db
    QString configPath;  // JSON configuration to load instead of the database's
    QString listen;      // HOST:PORT override, empty = from configuration
    QString redis;       // the fleet's Redis URL, overriding fleet.redis_url
    QString tlsCertFile; // HTTPS on the proxy port, overriding proxy.tls_cert_file / tls_key_file
    QString tlsKeyFile;
    QString logLevel = QStringLiteral("info");
    QString screenshotDir; // GUI only: save a PNG of every page there, then quit (docs, tests)
    // GUI only: HOST:PORT of a running instance to watch instead of the embedded engine (already
    // checked). Its token comes from SWITCHBOARD_TOKEN or the Attach dialog, never from argv.
    QString attach;
    QString attachCaFile; // --attach-ca: a PEM file trusted besides the system CAs for that instance
    // Instead of running: write the stored configuration to a file, or save a file's configuration
    // into the database (checked and previewed first), then exit. The secret store is the one the
    // same run would use (--headless: the database file; otherwise the keyring when one answers).
    QString exportPath;
    bool exportWithKeys = false; // --with-keys: the API keys and the local token go into the export
    QString importPath;
};

// Parses argv. On --help / --version / a usage error it prints and returns false with *exitCode
// set; otherwise fills *options and returns true.
bool parseCommandLine(const QStringList &arguments, AppOptions *options, int *exitCode);
