#include "control/MetricsExposition.h"

#include "telemetry/PrometheusExporter.h"

namespace sb {

namespace {

using Labels = PrometheusExporter::Labels;
using Type = PrometheusExporter::Type;

QString providerName(const EngineConfig &config, int channelId)
{
    if (const ChannelConfig *channel = config.channel(channelId))
        if (const ProviderConfig *provider = config.provider(channel->providerId))
            return provider->name;
    return {};
}

const char *statusName(RequestStatus status)
{
    switch (status) {
    case RequestStatus::Ok: return "ok";
    case RequestStatus::Error: return "error";
    case RequestStatus::MidStream: return "mid_stream";
    case RequestStatus::Cancelled: return "cancelled";
    }
    return "unknown";
}

QString outcomeName(OutcomeKind kind)
{
    return QString::fromLatin1(toString(kind)).toLower();
}

Labels channelLabels(const ChannelSnapshot &c, const EngineConfig &config)
{
    return {{QStringLiteral("channel"), c.name},
            {QStringLiteral("channel_id"), QString::number(c.channelId)},
            {QStringLiteral("provider"), providerName(config, c.channelId)}};
}

void channelGauge(PrometheusExporter &out, const MetricsSnapshot &s, const EngineConfig &config, const QString &name,
                  const QString &help, double (*value)(const ChannelSnapshot &))
{
    out.family(name, help, Type::Gauge);
    for (const ChannelSnapshot &c : s.channels)
        out.sample(channelLabels(c, config), value(c));
}

void fleetFamilies(PrometheusExporter &out, const FleetStatus &fleet)
{
    out.family(QStringLiteral("switchboard_fleet_connected"),
               QStringLiteral("1 while this instance shares state with its fleet through Redis; 0 while it serves on its own state."),
               Type::Gauge);
    out.sample({{QStringLiteral("fleet"), fleet.fleet}}, fleet.connected ? 1 : 0);
    const struct {
        const char *name;
        const char *help;
        std::uint64_t value;
    } counters[] = {
        {"switchboard_fleet_changes_published_total", "Health changes this instance published to the fleet.", fleet.published},
        {"switchboard_fleet_changes_adopted_total", "Other instances' health changes that changed something here.", fleet.adopted},
        {"switchboard_fleet_changes_ignored_total", "Other instances' changes that changed nothing here or could not be read.", fleet.ignored},
        {"switchboard_fleet_events_dropped_total", "Local events dropped from the fleet link's full queue.", fleet.dropped},
        {"switchboard_fleet_reconnects_total", "Reconnections to the fleet's Redis.", fleet.reconnects},
        {"switchboard_fleet_limit_draws_total", "Draws on the fleet's shared rate limits.", fleet.limitDraws},
        {"switchboard_fleet_limit_granted_total", "Requests and tokens the fleet's shared rate limits granted this instance.", fleet.limitGranted},
        {"switchboard_fleet_limit_refused_total", "Requests a shared rate limit refused here.", fleet.limitRefused},
    };
    for (const auto &c : counters) {
        out.family(QLatin1String(c.name), QLatin1String(c.help), Type::Counter);
        out.sample({}, double(c.value));
    }
}

} // namespace

QByteArray renderPrometheusMetrics(const MetricsSnapshot &s, const RequestMetrics::Snapshot &requests, const EngineConfig &config,
                                   const std::optional<FleetStatus> &fleet)
{
    PrometheusExporter out;
    if (fleet)
        out.setCommonLabels({{QStringLiteral("instance_id"), fleet->instance}});

    out.family(QStringLiteral("switchboard_requests_total"),
               QStringLiteral("Client requests finished, by route (the model asked for), the channel that answered last, its provider, "
                              "status (ok, error, mid_stream, cancelled) and the last attempt's outcome."),
               Type::Counter);
    for (const auto &[key, count] : requests.requests)
        out.sample({{QStringLiteral("route"), key.route},
                    {QStringLiteral("channel"), key.channelName},
                    {QStringLiteral("channel_id"), QString::number(key.channelId)},
                    {QStringLiteral("provider"), providerName(config, key.channelId)},
                    {QStringLiteral("status"), QLatin1String(statusName(key.status))},
                    {QStringLiteral("outcome"), outcomeName(key.outcome)}},
                   double(count));

    out.family(QStringLiteral("switchboard_attempts_total"),
               QStringLiteral("Upstream attempts, by route, channel, provider and outcome (success, retryable_rate_limit, "
                              "non_retryable_param_error, provider_down, auth_error, timeout, connect_failed)."),
               Type::Counter);
    for (const auto &[key, count] : requests.attempts)
        out.sample({{QStringLiteral("route"), key.route},
                    {QStringLiteral("channel"), key.channelName},
                    {QStringLiteral("channel_id"), QString::number(key.channelId)},
                    {QStringLiteral("provider"), providerName(config, key.channelId)},
                    {QStringLiteral("outcome"), outcomeName(key.outcome)}},
                   double(count));

    out.family(QStringLiteral("switchboard_failovers_total"),
               QStringLiteral("Requests answered by another channel than the first one tried, by route."), Type::Counter);
    for (const auto &[route, totals] : requests.routes)
        out.sample({{QStringLiteral("route"), route}}, double(totals.failovers));

    out.family(QStringLiteral("switchboard_retries_total"), QStringLiteral("Attempts after the first one of a request, by route."),
               Type::Counter);
    for (const auto &[route, totals] : requests.routes)
        out.sample({{QStringLiteral("route"), route}}, double(totals.retries));

    out.family(QStringLiteral("switchboard_retry_budget_refusals_total"),
               QStringLiteral("Retries the retry budget refused (retries are capped at a share of the requests in flight)."),
               Type::Counter);
    out.sample({}, double(s.retryBudgetRefusals));

    out.family(QStringLiteral("switchboard_requests_in_flight"), QStringLiteral("Client requests being answered now."), Type::Gauge);
    out.sample({}, double(s.inFlight));

    out.family(QStringLiteral("switchboard_tokens_total"), QStringLiteral("Tokens reported by providers, by direction (input, output)."),
               Type::Counter);
    out.sample({{QStringLiteral("direction"), QStringLiteral("input")}}, double(s.inputTokens));
    out.sample({{QStringLiteral("direction"), QStringLiteral("output")}}, double(s.outputTokens));

    out.family(QStringLiteral("switchboard_availability_5m"),
               QStringLiteral("Share of client requests answered successfully over the last 5 minutes (1 when idle)."), Type::Gauge);
    out.sample({}, s.availability5m);

    out.family(QStringLiteral("switchboard_channel_circuit_state"),
               QStringLiteral("Circuit breaker state per channel: 1 for the current state (closed, open, half_open), 0 for the others."),
               Type::Gauge);
    for (const ChannelSnapshot &c : s.channels)
        for (BreakerState state : {BreakerState::Closed, BreakerState::Open, BreakerState::HalfOpen}) {
            Labels labels = channelLabels(c, config);
            labels.emplace_back(QStringLiteral("state"), QLatin1String(toString(state)));
            out.sample(labels, c.breaker == state ? 1.0 : 0.0);
        }

    out.family(QStringLiteral("switchboard_channel_pool_state"),
               QStringLiteral("Pool membership per channel: 1 for the current state (active, degraded, ejected, drained, misconfigured), 0 for the others."),
               Type::Gauge);
    for (const ChannelSnapshot &c : s.channels)
        for (PoolState state : {PoolState::Active, PoolState::Degraded, PoolState::Ejected, PoolState::Drained, PoolState::Misconfigured}) {
            Labels labels = channelLabels(c, config);
            labels.emplace_back(QStringLiteral("state"), QLatin1String(toString(state)));
            out.sample(labels, c.pool == state ? 1.0 : 0.0);
        }

    // Only the channels that are misconfigured, with why: an alert on it names the thing to fix.
    out.family(QStringLiteral("switchboard_channel_misconfigured"),
               QStringLiteral("1 per misconfigured channel, by cause (endpoint_not_found, name_not_resolved, tls_failed, keys_refused)."),
               Type::Gauge);
    for (const ChannelSnapshot &c : s.channels)
        if (c.pool == PoolState::Misconfigured) {
            Labels labels = channelLabels(c, config);
            labels.emplace_back(QStringLiteral("cause"), c.misconfiguration);
            out.sample(labels, 1.0);
        }

    channelGauge(out, s, config, QStringLiteral("switchboard_channel_health_score"), QStringLiteral("Health score per channel, 0 to 100."),
                 [](const ChannelSnapshot &c) { return c.score; });
    channelGauge(out, s, config, QStringLiteral("switchboard_channel_in_flight"), QStringLiteral("Attempts in flight per channel."),
                 [](const ChannelSnapshot &c) { return double(c.inFlight); });
    channelGauge(out, s, config, QStringLiteral("switchboard_channel_error_rate_5m"),
                 QStringLiteral("Failed share of the channel's calls over 5 minutes (0 when idle)."),
                 [](const ChannelSnapshot &c) { return c.errorRate5m; });
    channelGauge(out, s, config, QStringLiteral("switchboard_channel_keys_healthy"),
                 QStringLiteral("API keys of the channel's provider that are neither cooling down nor disabled."),
                 [](const ChannelSnapshot &c) { return double(c.keysHealthy); });

    out.family(QStringLiteral("switchboard_channel_ttft_seconds"),
               QStringLiteral("Time to first token of successful streamed attempts, per channel."), Type::Histogram);
    for (const auto &[key, h] : requests.channels)
        out.histogram({{QStringLiteral("channel"), key.channelName},
                       {QStringLiteral("channel_id"), QString::number(key.channelId)},
                       {QStringLiteral("provider"), providerName(config, key.channelId)}},
                      h.ttft);

    out.family(QStringLiteral("switchboard_channel_request_duration_seconds"),
               QStringLiteral("Duration of upstream attempts (to the last byte, or to the failure), per channel."), Type::Histogram);
    for (const auto &[key, h] : requests.channels)
        out.histogram({{QStringLiteral("channel"), key.channelName},
                       {QStringLiteral("channel_id"), QString::number(key.channelId)},
                       {QStringLiteral("provider"), providerName(config, key.channelId)}},
                      h.latency);

    out.family(QStringLiteral("switchboard_heartbeat_probes_total"), QStringLiteral("Scheduled heartbeat probes, by result."),
               Type::Counter);
    out.sample({{QStringLiteral("result"), QStringLiteral("succeeded")}}, double(s.prober.succeeded));
    out.sample({{QStringLiteral("result"), QStringLiteral("failed")}}, double(s.prober.failed));

    if (fleet)
        fleetFamilies(out, *fleet);
    return out.text();
}

} // namespace sb
