#pragma once

#include "sim/DrillReport.h"

#include <QJsonObject>
#include <QString>

#include <optional>
#include <vector>

namespace sb::sim {

// What the client paid during an outage, beside what the healthy channel costs on its own in the
// same minutes: of the requests sent inside the outage window, the streams' TTFT and the whole
// answers' latency, for all of them and for those a non-primary channel answered at its first
// attempt (the fallback's own). The ratio between the two is what the outage cost; a drill's
// targets are written against it (e.g. the hanging-primary drill: TTFT p95 at most 1.5× the
// fallback's own, latency p95 at most 2×).
struct OutageWindow {
    double from = 0.0, to = 0.0; // scenario seconds
    int requests = 0, succeeded = 0;
    int streams = 0, fallbackStreams = 0;
    int wholes = 0, fallbackWholes = 0;
    Percentiles streamTtftMs, fallbackStreamTtftMs;
    Percentiles wholeLatencyMs, fallbackWholeLatencyMs;

    static std::optional<OutageWindow> compute(const std::vector<RequestRecord> &records, const ReportSpec &spec, double duration);
    // p95 over the window ÷ the fallback's own p95; 0 when either has no samples.
    double ttftP95Ratio() const;
    double latencyP95Ratio() const;
    QJsonObject toJson() const;
    QString toText() const;
};

} // namespace sb::sim
