#pragma once

#include "sim/Scenario.h"

#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace sb::sim {

// What the client saw of one request. Times are scenario times (real times × time scale), so a ×10
// run reports the figures of the full-length drill.
struct RequestRecord {
    double at = 0.0;        // scenario seconds since the start, when it was sent
    QString model;
    bool stream = false;
    bool ok = false;
    bool dropped = false;   // never sent: the concurrency cap was full
    int status = 0;         // HTTP status, 0 when there was none
    QString error;          // empty when ok: "http_503", "timeout", "connect_failed", "stream_error", …
    double ttftMs = -1.0;   // first content byte (stream) or whole body (non-stream); -1 when none came
    double latencyMs = 0.0; // until the response was complete
    int attempts = 1;       // x-switchboard-attempts
    bool failover = false;  // x-switchboard-failover
    QString channel;        // x-switchboard-channel (direct runs: the provider's name)
    QByteArray text;        // a stream's text, as the client got it
    double maxGapMs = -1.0; // a stream's longest wait between two pieces of text (scenario ms)
    int toolCalls = 0;          // a stream's tool calls (deltas that opened one)
    QByteArray toolArguments;   // their arguments, as the client got them
};

struct Percentiles {
    double p50 = 0.0;
    double p95 = 0.0;
    double p99 = 0.0;
    static Percentiles of(std::vector<double> values); // nearest rank; zeros when empty
};

struct DrillReport {
    QString scenario;
    double timeScale = 1.0;
    double duration = 0.0; // scenario seconds
    int requests = 0;      // sent (dropped ones excluded)
    int succeeded = 0;
    int failed = 0;
    int dropped = 0;
    double successRate = 0.0; // succeeded / requests
    Percentiles ttftMs;
    Percentiles latencyMs;
    int failovers = 0;
    int attempts = 0;
    QMap<QString, int> errors; // error kind → count
    QStringList primaryChannels;
    std::optional<double> outageFrom;
    std::optional<double> outageTo;
    // Outage start → the router's last attempt on a primary before traffic settled on the fallback
    // (scenario s): after that moment no request touched a primary (SCENARIO_FORMAT.md, "time to fallback").
    std::optional<double> timeToFallback;
    // Outage start → the first of the settle_requests clean requests that showed it; later than
    // timeToFallback by up to one gap between requests (the load's sampling, not the engine).
    std::optional<double> firstSettledAfter;
    std::optional<double> timeToRecovery; // outage end → the primary carries traffic again (scenario s)
    QStringList channels;                 // columns of perSecond ("(failed)" last when any failed)
    std::vector<std::vector<int>> perSecond; // [scenario second][channel] → requests answered
    // The outage's cost beside the fallback's own TTFT and latency (OutageWindow; null: no outage).
    std::optional<QJsonObject> outageWindowJson;
    QString outageWindowText;
    // Streams broken mid-answer and their rescue (StreamRescueScore; null: no provider broke one).
    std::optional<QJsonObject> streamRescueJson;
    QString streamRescueText;

    static DrillReport compute(const QString &scenario, double timeScale, double duration, std::vector<RequestRecord> records,
                               const ReportSpec &spec);

    QJsonObject toJson() const;
    QString toText() const;
};

} // namespace sb::sim
