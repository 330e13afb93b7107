#pragma once

#include <QString>
#include <QStringList>

#include <memory>

namespace spdlog {
class logger;
}

namespace sb {


struct LoggingOptions {
    bool toStderr = true;
    QString directory;          // empty: no file sink
    std::size_t fileMaxBytes = 5 * 1024 * 1024;
    std::size_t fileCount = 3;  // rotating: switchboard.log, .1.log, .2.log
    std::size_t ringLines = 2000; // kept in memory for the console's log view
    QString level = QStringLiteral("info");
};

// Installs the process-wide spdlog logger "switchboard" with the sinks the options ask for.
// Calling it again replaces the sinks (tests do that).
void setupLogging(const LoggingOptions &options);

// The most recent log lines (oldest first), for the console's log view.
QStringList recentLogLines(std::size_t max = 500);

} // namespace sb
