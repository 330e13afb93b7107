#pragma once

#include "health/HeartbeatProber.h"

#include <QObject>

#include <memory>

namespace sb {

class EngineContext;
class UpstreamClient;

// Heartbeats over the network: each probe is the channel's dialect's light request (usually a
// model list), sent with one of the provider's keys and judged by the same ErrorMap as traffic.
// Lives on the control thread, which is also where HeartbeatProber::tick() calls startProbe().
class AdapterProbeTransport : public QObject, public ProbeTransport {
    Q_OBJECT
public:
    explicit AdapterProbeTransport(EngineContext &engine, QObject *parent = nullptr);
    ~AdapterProbeTransport() override;

    void startProbe(int channelId, Clock::Duration timeout, Done done) override;
    bool probeIsBilled(int channelId) const override;

private:
    EngineContext &m_engine;
    std::unique_ptr<UpstreamClient> m_upstream;
};

} // namespace sb
