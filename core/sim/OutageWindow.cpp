#include "sim/OutageWindow.h"

namespace sb::sim {

namespace {

QJsonObject percentilesJson(const Percentiles &p)
{
    return QJsonObject{{"p50", p.p50}, {"p95", p.p95}, {"p99", p.p99}};
}

double ratio(double of, double to)
{
    return of > 0.0 && to > 0.0 ? of / to : 0.0;
}

} // namespace

std::optional<OutageWindow> OutageWindow::compute(const std::vector<RequestRecord> &records, const ReportSpec &spec, double duration)
{
    if (!spec.outageFrom || spec.primaryChannels.isEmpty())
        return std::nullopt;
    OutageWindow w;
    w.from = *spec.outageFrom;
    w.to = spec.outageTo.value_or(duration);
    std::vector<double> ttft, fallbackTtft, latency, fallbackLatency;
    for (const RequestRecord &rec : records) {
        if (rec.dropped || rec.at < w.from || rec.at >= w.to)
            continue;
        ++w.requests;
        if (!rec.ok)
            continue; // a failure has no TTFT; the success count says what it cost
        ++w.succeeded;
        // The fallback's own: answered by a healthy channel with nothing before it.
        const bool own = !spec.primaryChannels.contains(rec.channel) && rec.attempts <= 1 && !rec.failover;
        if (rec.stream) {
            ttft.push_back(rec.ttftMs);
            if (own)
                fallbackTtft.push_back(rec.ttftMs);
        } else {
            latency.push_back(rec.latencyMs);
            if (own)
                fallbackLatency.push_back(rec.latencyMs);
        }
    }
    w.streams = static_cast<int>(ttft.size());
    w.fallbackStreams = static_cast<int>(fallbackTtft.size());
    w.wholes = static_cast<int>(latency.size());
    w.fallbackWholes = static_cast<int>(fallbackLatency.size());
    w.streamTtftMs = Percentiles::of(std::move(ttft));
    w.fallbackStreamTtftMs = Percentiles::of(std::move(fallbackTtft));
    w.wholeLatencyMs = Percentiles::of(std::move(latency));
    w.fallbackWholeLatencyMs = Percentiles::of(std::move(fallbackLatency));
    return w;
}

double OutageWindow::ttftP95Ratio() const
{
    return ratio(streamTtftMs.p95, fallbackStreamTtftMs.p95);
}

double OutageWindow::latencyP95Ratio() const
{
    return ratio(wholeLatencyMs.p95, fallbackWholeLatencyMs.p95);
}

QJsonObject OutageWindow::toJson() const
{
    return QJsonObject{{"from_s", from},
                       {"to_s", to},
                       {"requests", requests},
                       {"succeeded", succeeded},
                       {"streams", streams},
                       {"fallback_streams", fallbackStreams},
                       {"non_streams", wholes},
                       {"fallback_non_streams", fallbackWholes},
                       {"stream_ttft_ms", percentilesJson(streamTtftMs)},
                       {"fallback_stream_ttft_ms", percentilesJson(fallbackStreamTtftMs)},
                       {"non_stream_latency_ms", percentilesJson(wholeLatencyMs)},
                       {"fallback_non_stream_latency_ms", percentilesJson(fallbackWholeLatencyMs)},
                       {"ttft_p95_ratio", ttftP95Ratio()},
                       {"latency_p95_ratio", latencyP95Ratio()}};
}

QString OutageWindow::toText() const
{
    QString out = QStringLiteral("  in the outage   %1 of %2 requests succeeded (sent %3 s to %4 s)\n")
                      .arg(succeeded)
                      .arg(requests)
                      .arg(from)
                      .arg(to);
    if (streams > 0)
        out += QStringLiteral("    stream TTFT   p95 %1 ms over %2 streams; the fallback's own %3 ms over %4: %5×\n")
                   .arg(streamTtftMs.p95, 0, 'f', 0)
                   .arg(streams)
                   .arg(fallbackStreamTtftMs.p95, 0, 'f', 0)
                   .arg(fallbackStreams)
                   .arg(ttftP95Ratio(), 0, 'f', 2);
    if (wholes > 0)
        out += QStringLiteral("    non-stream    latency p95 %1 ms over %2 requests; the fallback's own %3 ms over %4: %5×\n")
                   .arg(wholeLatencyMs.p95, 0, 'f', 0)
                   .arg(wholes)
                   .arg(fallbackWholeLatencyMs.p95, 0, 'f', 0)
                   .arg(fallbackWholes)
                   .arg(latencyP95Ratio(), 0, 'f', 2);
    return out;
}

} // namespace sb::sim
