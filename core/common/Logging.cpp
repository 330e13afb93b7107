#include "common/Logging.h"

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <QDir>
#include <mutex>

namespace sb {

namespace {
std::mutex g_ringMutex;
std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> g_ring;
} // namespace

void setupLogging(const LoggingOptions &options)
{
    std::vector<spdlog::sink_ptr> sinks;
    if (options.toStderr)
        sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    if (!options.directory.isEmpty() && QDir().mkpath(options.directory)) {
        const auto path = QDir(options.directory).filePath(QStringLiteral("switchboard.log")).toStdString();
        try {
            sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
                path, options.fileMaxBytes, options.fileCount));
        } catch (const spdlog::spdlog_ex &error) {
            // An unwritable log directory must not stop the proxy; say so on the other sinks.
            fprintf(stderr, "switchboard: cannot open log file %s: %s\n", path.c_str(), error.what());
        }
    }
    auto ring = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(options.ringLines);
    sinks.push_back(ring);
    {
        std::lock_guard lock(g_ringMutex);
        g_ring = ring;
    }

    auto logger = std::make_shared<spdlog::logger>("switchboard", sinks.begin(), sinks.end());
    logger->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%-5l%$ [%t] %v");
    logger->set_level(spdlog::level::from_str(options.level.toStdString()));
    logger->flush_on(spdlog::level::warn);
    spdlog::set_default_logger(logger);
}

QStringList recentLogLines(std::size_t max)
{
    std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> ring;
    {
        std::lock_guard lock(g_ringMutex);
        ring = g_ring;
    }
    QStringList lines;
    if (!ring)
        return lines;
    for (const auto &line : ring->last_formatted(max))
        lines << QString::fromStdString(line).trimmed();
    return lines;
}

} // namespace sb
