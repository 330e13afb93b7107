#pragma once

#include "common/Clock.h"

#include <QString>

#include <cstdint>
#include <functional>
#include <mutex>

namespace sb {

// One state change the console and the history want to see. Plain values, no Qt signals: the sink
// is called on the thread that caused the change (a worker or the control thread), outside any
// engine lock; the telemetry EventBus subscribes with a sink that queues it onward.
struct HealthEvent {
    enum class Type : std::uint8_t {
        Breaker,  // circuit breaker transition (from/to: "closed", "open", "half_open")
        Pool,     // pool membership change (from/to: "active", "degraded", "ejected", "drained")
        Failover, // a request moved from channel `fromChannelId` to `channelId`
        Panic,    // every channel of a route was out; the least-bad one was used anyway
        Budget,   // a route's spend reached its alert limit or hard stop (channelName = the route; to: "over_soft_limit", "hard_stop")
        Key,      // an API key started cooling down after a 429 (to: "cooling_down") or was disabled (to: "disabled");
                  // providerId / keyId set, channelId 0, channelName = the provider; the reason names the key masked
        Bucket,   // a provider's own rate limit (its token buckets) refused a request; providerId set, channelId 0
        Fleet,    // this instance lost its fleet's Redis (to: "lost"; it serves on its own state) or has it again (to: "connected")
    };
    Type type = Type::Breaker;
    int channelId = 0;
    QString channelName;
    QString from;
    QString to;
    QString reason;
    Clock::TimePoint at{};
    std::int64_t wallMillis = 0;
    int fromChannelId = 0; // Failover only
    QString route;         // Failover and Panic: the logical model the request asked for
    QString cause;         // Failover: what the failed attempt came to ("PROVIDER_DOWN, HTTP 503"); Key "disabled": the provider's refusal
    int providerId = 0;    // Key and Bucket
    int keyId = 0;         // Key
    QString keyMasked;     // Key: the key's masked form (maskSecret), so a refusal is kept for the secret that got it
    // Breaker, Pool, Key: set when the change was adopted from another instance of the fleet (its
    // id), so it is shown as the fleet's and not published back to it.
    QString fleetOrigin;
};

using EventSink = std::function<void(const HealthEvent &)>;

const char *toString(HealthEvent::Type type); // "breaker", "pool", "failover", "panic", "budget"

} // namespace sb

namespace sb {

// Shared by every ChannelHealth of a PoolManager and the Router, so the sink can be set (or
// replaced) while workers are emitting. Thread-safe; sinks are called one at a time, so a sink must
// hand the event on (queue it) rather than do anything that emits another event synchronously.
class EventDispatcher {
public:
    void setSink(EventSink sink);
    void emitEvent(const HealthEvent &event) const;

private:
    mutable std::mutex m_mutex;
    EventSink m_sink;
};

} // namespace sb
