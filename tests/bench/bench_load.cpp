// A small HTTP load generator for the peer comparison (tests/bench/run.sh): the same requests at a
// fixed rate (open loop) or as fast as N connections allow (closed loop), against any URL, so that
// "direct", nginx, Portkey and Switchboard are measured by one client. wrk has no fixed-rate mode, and
// a closed-loop client hides queueing (coordinated omission): in rate mode each latency runs from
// the moment the request was due, not from when the client got round to sending it.
//
//   bench_load --url URL [--header 'Name: value']... [--body JSON] [--stream]
//              (--rate R | --connections C) [--duration S] [--warmup S] [--label TEXT]
//
// Prints one line of key=value figures (times in ms with microsecond resolution). Never asserts.
#include "Percentile.h"
#include "net/UpstreamClient.h"

#include <QCoreApplication>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace sb;
using sb::bench::percentile;
using SteadyClock = std::chrono::steady_clock;

namespace {

struct Options {
    QUrl url;
    HttpHeaders headers;
    QByteArray body;
    bool stream = false;
    double rate = 0;       // requests per second; 0 = closed loop
    int connections = 1;   // closed loop: requests in flight; open loop: the cap on them
    double duration = 10;  // seconds measured
    double warmup = 1;     // seconds sent first and not measured (connections, caches)
    QString label;
};

double msSince(SteadyClock::time_point from, SteadyClock::time_point to)
{
    return std::chrono::duration<double, std::milli>(to - from).count();
}

// Sends and measures; lives on the main thread's event loop with one UpstreamClient.
class Load {
public:
    explicit Load(Options options) : m_options(std::move(options))
    {
        m_request.url = m_options.url;
        m_request.headers = m_options.headers;
        if (!m_request.headers.contains("content-type"))
            m_request.headers.set("Content-Type", "application/json");
        m_request.body = m_options.body;
        m_request.method = m_options.body.isEmpty() ? QByteArrayLiteral("GET") : QByteArrayLiteral("POST");
        m_request.stream = m_options.stream;
        m_transfer.totalTimeout = std::chrono::seconds(60);
        m_transfer.connectTimeout = std::chrono::seconds(5);
        m_transfer.allowHttp2 = false;
    }

    void run()
    {
        m_start = SteadyClock::now();
        m_measureFrom = m_start + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(m_options.warmup));
        m_end = m_measureFrom + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(m_options.duration));
        if (m_options.rate > 0) {
            m_nextDue = m_start;
            m_tick.setTimerType(Qt::PreciseTimer);
            QObject::connect(&m_tick, &QTimer::timeout, [this] { sendDue(); });
            m_tick.start(1);
            sendDue();
        } else {
            for (int i = 0; i < m_options.connections; ++i)
                send(SteadyClock::now());
        }
    }

    void report() const
    {
        std::vector<double> latency = m_latencyMs, ttft = m_ttftMs;
        const double seconds = m_options.duration;
        std::printf("%s ok=%llu errors=%llu rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f",
                    m_options.label.isEmpty() ? "load" : qPrintable(m_options.label),
                    static_cast<unsigned long long>(m_ok), static_cast<unsigned long long>(m_errors),
                    double(m_ok) / seconds, percentile(latency, 0.50),
                    percentile(latency, 0.90), percentile(latency, 0.99),
                    latency.empty() ? 0.0 : *std::max_element(latency.begin(), latency.end()));
        if (m_options.stream)
            std::printf(" ttft_p50_ms=%.3f ttft_p99_ms=%.3f", percentile(ttft, 0.50), percentile(ttft, 0.99));
        if (!m_firstError.isEmpty())
            std::printf(" first_error=\"%s\"", qPrintable(m_firstError.left(120).replace(QLatin1Char('"'), QLatin1Char('\''))));
        std::printf("\n");
        std::fflush(stdout);
    }

private:
    void sendDue()
    {
        const auto now = SteadyClock::now();
        if (now >= m_end) {
            m_tick.stop();
            m_sending = false;
            finishIfDone();
            return;
        }
        const auto spacing = std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(1.0 / m_options.rate));
        while (m_nextDue <= now) {
            // The cap is full: the request waits, and its latency still runs from its due time
            // once it can go, so queueing shows in the figures.
            if (m_inFlight >= m_options.connections)
                break;
            send(m_nextDue);
            m_nextDue += spacing;
        }
    }

    void send(SteadyClock::time_point due)
    {
        ++m_inFlight;
        auto firstByte = std::make_shared<SteadyClock::time_point>();
        auto status = std::make_shared<int>(0);
        TransferCallbacks callbacks;
        callbacks.onHeaders = [status](int code, const HttpHeaders &) { *status = code; };
        callbacks.onData = [firstByte](QByteArrayView) {
            if (*firstByte == SteadyClock::time_point())
                *firstByte = SteadyClock::now();
        };
        callbacks.onComplete = [this, due, firstByte, status](TransferError error, const QString &message) {
            const auto done = SteadyClock::now();
            --m_inFlight;
            if (due >= m_measureFrom && due < m_end) {
                if (error == TransferError::None && *status == 200) {
                    ++m_ok;
                    m_latencyMs.push_back(msSince(due, done));
                    if (*firstByte != SteadyClock::time_point())
                        m_ttftMs.push_back(msSince(due, *firstByte));
                } else {
                    ++m_errors;
                    if (m_firstError.isEmpty())
                        m_firstError = error == TransferError::None ? QStringLiteral("HTTP %1").arg(*status) : message;
                }
            }
            if (m_options.rate <= 0 && SteadyClock::now() < m_end)
                send(SteadyClock::now());
            finishIfDone();
        };
        m_client.start(m_request, m_transfer, std::move(callbacks));
    }

    void finishIfDone()
    {
        if (m_inFlight == 0 && SteadyClock::now() >= m_end && (!m_sending || m_options.rate <= 0))
            QCoreApplication::quit();
    }

    Options m_options;
    UpstreamRequest m_request;
    TransferOptions m_transfer;
    UpstreamClient m_client;
    QTimer m_tick;
    SteadyClock::time_point m_start, m_measureFrom, m_end, m_nextDue;
    bool m_sending = true;
    int m_inFlight = 0;
    quint64 m_ok = 0, m_errors = 0;
    std::vector<double> m_latencyMs, m_ttftMs;
    QString m_firstError;
};

[[noreturn]] void usage()
{
    std::fprintf(stderr, "usage: bench_load --url URL [--header 'Name: value']... [--body JSON] [--stream]\n"
                         "                  (--rate R | --connections C) [--duration S] [--warmup S] [--label TEXT]\n");
    std::exit(2);
}

Options parse(const QStringList &args)
{
    Options options;
    for (int i = 1; i < args.size(); ++i) {
        const QString &arg = args[i];
        auto value = [&]() -> QString {
            if (i + 1 >= args.size())
                usage();
            return args[++i];
        };
        if (arg == QLatin1String("--url"))
            options.url = QUrl(value());
        else if (arg == QLatin1String("--header")) {
            const QString header = value();
            const auto colon = header.indexOf(QLatin1Char(':'));
            if (colon <= 0)
                usage();
            options.headers.add(header.left(colon).trimmed().toLatin1(), header.mid(colon + 1).trimmed().toUtf8());
        } else if (arg == QLatin1String("--body"))
            options.body = value().toUtf8();
        else if (arg == QLatin1String("--stream"))
            options.stream = true;
        else if (arg == QLatin1String("--rate"))
            options.rate = value().toDouble();
        else if (arg == QLatin1String("--connections"))
            options.connections = value().toInt();
        else if (arg == QLatin1String("--duration"))
            options.duration = value().toDouble();
        else if (arg == QLatin1String("--warmup"))
            options.warmup = value().toDouble();
        else if (arg == QLatin1String("--label"))
            options.label = value();
        else
            usage();
    }
    if (!options.url.isValid() || options.duration <= 0 || options.connections <= 0)
        usage();
    if (options.rate > 0 && options.connections == 1)
        options.connections = 1024; // open loop: the cap only guards against a stalled server
    return options;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    Load load(parse(app.arguments()));
    QTimer::singleShot(0, [&] { load.run(); });
    app.exec();
    load.report();
    return 0;
}
