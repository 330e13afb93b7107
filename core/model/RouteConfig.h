#pragma once

#include "model/CacheConfig.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace sb {

// One upstream path for a logical model: a provider plus the model name that provider knows.
struct ChannelConfig {
    int id = 0;
    QString name;          // shown everywhere, e.g. "gpt-4o/A"
    int providerId = 0;
    QString upstreamModel; // e.g. "gpt-4o-2024-08-06"
    double weight = 1.0;   // static share for the `weighted` strategy
    bool enabled = true;
    // Domain labels override the provider's when set (one provider, two regions).
    QString account;
    QString region;
    QString egressProxy;
};

enum class RoutingStrategy {
    Health,     // default: higher health score first (the dual-channel design)
    Weighted,   // static weight × health
    Latency,    // power-of-two choices on an EWMA of latency
    Priority,   // listed order
    RoundRobin,
};

const char *toString(RoutingStrategy strategy);
bool routingStrategyFromString(QStringView text, RoutingStrategy *out);

// A logical model name (what the caller puts in "model") → tiers of channels. Tier 0 is the
// model's own channels (the A/B pair or more); each fallback model by priority adds its own
// tier 0 as a further tier (degradation, the third tier of defence after keys and buckets).
struct RouteConfig {
    int id = 0;
    QString logicalModel; // e.g. "gpt-4o"
    RoutingStrategy strategy = RoutingStrategy::Health;
    std::vector<int> channelIds; // tier 0, in priority order
    QStringList fallbackModels;  // other logical models, by priority
    bool cacheEnabled = false;   // the exact cache
    RouteCacheConfig cache;      // TTL and the semantic cache
    // A client error (NON_RETRYABLE_PARAM_ERROR) from one provider is tried once on a channel of
    // another provider before the client gets it: a 400 for a parameter or limit of the first
    // provider's own is often answered by the next (ARCHITECTURE.md, "Errors and outcomes").
    bool retryClientErrorsElsewhere = true;
    // A stream that breaks after text reached the client is continued on another channel
    // (RetryConfig::continueStreams, which turns it off everywhere; StreamContinuation).
    bool continueStreams = true;
    // A tool call's argument deltas go to the client as they arrive. Off (the default), a call is
    // held until it is complete, so a failure inside it is asked again and the client gets the
    // call whole, once; on, a client sees the arguments sooner, and a stream that breaks inside a
    // call ends with its error (a call cannot be spliced).
    bool streamToolCalls = false;
};

} // namespace sb
