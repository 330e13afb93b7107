#pragma once

#include "sim/DrillReport.h"
#include "sim/LoadSchedule.h"
#include "sim/ScenarioClock.h"

#include <QObject>
#include <QUrl>

#include <memory>
#include <vector>

namespace sb {
class UpstreamClient;
}

namespace sb::sim {

// Sends a scenario's load as OpenAI chat.completions requests (to the proxy, or straight to an
// OpenAI-compatible fake provider) and records what the client saw of each: success, TTFT, latency,
// and the proxy's x-switchboard-channel / -attempts / -failover headers. Runs on the thread it lives
// on, through one UpstreamClient (libcurl multi: no per-host connection cap).
class LoadDriver : public QObject {
    Q_OBJECT
public:
    struct Stats {
        quint64 sent = 0;
        quint64 completed = 0;
        quint64 dropped = 0; // the concurrency cap was full
        quint64 inFlight = 0;
    };

    // `endpoint` is the full chat completions URL, e.g. http://127.0.0.1:8400/v1/chat/completions.
    LoadDriver(LoadSpec load, const ScenarioClock &clock, Random &random, QUrl endpoint, QByteArray apiKey = {},
               QObject *parent = nullptr);
    ~LoadDriver() override;
    // A PEM file of certificates to trust for an https endpoint instead of the system's (the
    // engine's own self-signed one); before start().
    void setCaBundle(const QString &path) { m_caBundle = path; }

    // Plans the load from `random` and starts sending; finished() follows the last answer.
    void start();
    bool isFinished() const { return m_finished; }
    const std::vector<RequestRecord> &records() const { return m_records; }
    Stats stats() const { return m_stats; }

signals:
    void finished();

private:
    struct InFlight;
    void scheduleNext();
    void send(const PlannedRequest &planned);
    void complete(std::size_t index);
    void checkFinished();

    LoadSpec m_load;
    const ScenarioClock &m_clock;
    Random &m_random;
    QUrl m_endpoint;
    QByteArray m_apiKey;
    QString m_caBundle;
    std::unique_ptr<UpstreamClient> m_client;
    std::vector<PlannedRequest> m_plan;
    std::size_t m_nextPlanned = 0;
    std::vector<RequestRecord> m_records;
    std::vector<std::unique_ptr<InFlight>> m_inFlight; // by record index; null when done
    std::unique_ptr<Timer> m_timer;
    Stats m_stats;
    bool m_started = false;
    bool m_finished = false;
};

} // namespace sb::sim
