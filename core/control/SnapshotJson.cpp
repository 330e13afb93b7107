#include "control/SnapshotJson.h"

#include <QJsonArray>

namespace sb::SnapshotJson {

namespace {

// One table per struct drives both directions, so a field cannot be written and forgotten on read.
template <typename T>
struct Field {
    const char *name;
    double (*get)(const T &);
    void (*set)(T &, double);
};

#define SB_FIELD(Type, member)                                                                                 \
    Field<Type>                                                                                                \
    {                                                                                                          \
        #member, [](const Type &v) { return double(v.member); },                                               \
            [](Type &v, double d) { v.member = static_cast<decltype(Type::member)>(d); }                       \
    }

const std::vector<Field<ChannelSnapshot>> &channelFields()
{
    static const std::vector<Field<ChannelSnapshot>> fields{
        SB_FIELD(ChannelSnapshot, channelId),     SB_FIELD(ChannelSnapshot, providerId),
        SB_FIELD(ChannelSnapshot, score),         SB_FIELD(ChannelSnapshot, errorRate30s),
        SB_FIELD(ChannelSnapshot, errorRate5m),   SB_FIELD(ChannelSnapshot, calls30s),
        SB_FIELD(ChannelSnapshot, calls5m),       SB_FIELD(ChannelSnapshot, p50Ms),
        SB_FIELD(ChannelSnapshot, p95Ms),         SB_FIELD(ChannelSnapshot, p99Ms),
        SB_FIELD(ChannelSnapshot, ttftP95Ms),     SB_FIELD(ChannelSnapshot, baselineP95Ms),
        SB_FIELD(ChannelSnapshot, latencyEwmaMs), SB_FIELD(ChannelSnapshot, inFlight),
        SB_FIELD(ChannelSnapshot, keysHealthy),   SB_FIELD(ChannelSnapshot, keysTotal),
        SB_FIELD(ChannelSnapshot, headroom),
    };
    return fields;
}

const std::vector<Field<CircuitBreaker::Stats>> &breakerFields()
{
    using S = CircuitBreaker::Stats;
    static const std::vector<Field<S>> fields{SB_FIELD(S, trips),     SB_FIELD(S, consecutiveTrips), SB_FIELD(S, rateTrips),
                                              SB_FIELD(S, reopens),   SB_FIELD(S, halfOpens),        SB_FIELD(S, closes),
                                              SB_FIELD(S, rejected),  SB_FIELD(S, trialsAdmitted)};
    return fields;
}

const std::vector<Field<MetricsSnapshot>> &snapshotFields()
{
    using S = MetricsSnapshot;
    static const std::vector<Field<S>> fields{
        SB_FIELD(S, wallMillis),       SB_FIELD(S, requests),     SB_FIELD(S, succeeded),
        SB_FIELD(S, failed),           SB_FIELD(S, midStream),    SB_FIELD(S, cancelled),
        SB_FIELD(S, failovers),        SB_FIELD(S, attempts),     SB_FIELD(S, retryBudgetRefusals),
        SB_FIELD(S, inFlight),         SB_FIELD(S, inputTokens),  SB_FIELD(S, outputTokens),
        SB_FIELD(S, requestsPerSecond), SB_FIELD(S, availability5m), SB_FIELD(S, answered5m),
        SB_FIELD(S, ttftP50Ms),        SB_FIELD(S, ttftP95Ms),    SB_FIELD(S, latencyP50Ms),
        SB_FIELD(S, latencyP95Ms),     SB_FIELD(S, costTodayUsd), SB_FIELD(S, unpricedToday),
    };
    return fields;
}

const std::vector<Field<RouteSpend>> &routeSpendFields()
{
    using S = RouteSpend;
    static const std::vector<Field<S>> fields{SB_FIELD(S, spentUsd), SB_FIELD(S, softLimitUsd), SB_FIELD(S, hardLimitUsd)};
    return fields;
}

const std::vector<Field<Router::Stats>> &routerFields()
{
    using S = Router::Stats;
    static const std::vector<Field<S>> fields{
        SB_FIELD(S, choices),          SB_FIELD(S, failovers),           SB_FIELD(S, domainDisjointFailovers),
        SB_FIELD(S, fallbackTierChoices), SB_FIELD(S, halfOpenTrials),   SB_FIELD(S, panicChoices),
        SB_FIELD(S, bucketRefusals),   SB_FIELD(S, keyExhaustions),      SB_FIELD(S, rateLimitedRefusals),
        SB_FIELD(S, unavailableRefusals), SB_FIELD(S, unknownModel),     SB_FIELD(S, keyCoolDowns),
        SB_FIELD(S, bucketRefusalsTotal),
    };
    return fields;
}

const std::vector<Field<RetryBudget::Stats>> &budgetFields()
{
    using S = RetryBudget::Stats;
    static const std::vector<Field<S>> fields{SB_FIELD(S, granted), SB_FIELD(S, refused), SB_FIELD(S, requestsInFlight),
                                              SB_FIELD(S, retriesInFlight)};
    return fields;
}

const std::vector<Field<HttpServer::Stats>> &serverFields()
{
    using S = HttpServer::Stats;
    static const std::vector<Field<S>> fields{
        SB_FIELD(S, connectionsAccepted), SB_FIELD(S, connectionsOpen), SB_FIELD(S, connectionsRefused),
        SB_FIELD(S, requests),            SB_FIELD(S, responses1xx),    SB_FIELD(S, responses2xx),
        SB_FIELD(S, responses3xx),        SB_FIELD(S, responses4xx),    SB_FIELD(S, responses5xx),
        SB_FIELD(S, parseErrors),         SB_FIELD(S, timeouts),        SB_FIELD(S, idleCloses),
        SB_FIELD(S, slowClientCloses),    SB_FIELD(S, clientAborts),    SB_FIELD(S, bytesIn),
        SB_FIELD(S, bytesOut),            SB_FIELD(S, tlsHandshakeFailures),
    };
    return fields;
}

const std::vector<Field<HeartbeatProber::Stats>> &proberFields()
{
    using S = HeartbeatProber::Stats;
    static const std::vector<Field<S>> fields{SB_FIELD(S, started), SB_FIELD(S, succeeded), SB_FIELD(S, failed),
                                              SB_FIELD(S, timedOut)};
    return fields;
}

#undef SB_FIELD

template <typename T>
QJsonObject write(const T &value, const std::vector<Field<T>> &fields, QJsonObject json = {})
{
    for (const Field<T> &f : fields)
        json.insert(QLatin1String(f.name), f.get(value));
    return json;
}

template <typename T>
void read(T &value, const std::vector<Field<T>> &fields, const QJsonObject &json)
{
    for (const Field<T> &f : fields) {
        const QJsonValue v = json.value(QLatin1String(f.name));
        if (v.isDouble())
            f.set(value, v.toDouble());
    }
}

BreakerState breakerFromString(const QString &s)
{
    if (s == QLatin1String("open"))
        return BreakerState::Open;
    if (s == QLatin1String("half_open"))
        return BreakerState::HalfOpen;
    return BreakerState::Closed;
}

PoolState poolFromString(const QString &s)
{
    if (s == QLatin1String("degraded"))
        return PoolState::Degraded;
    if (s == QLatin1String("ejected"))
        return PoolState::Ejected;
    if (s == QLatin1String("drained"))
        return PoolState::Drained;
    if (s == QLatin1String("misconfigured"))
        return PoolState::Misconfigured;
    return PoolState::Active;
}

std::optional<HealthEvent::Type> eventTypeFromString(const QString &s)
{
    // Every type the enum has, without listing them here: toString() answers "unknown" past the end.
    for (int i = 0; i < 64; ++i) {
        const auto type = static_cast<HealthEvent::Type>(i);
        const char *name = toString(type);
        if (qstrcmp(name, "unknown") == 0)
            break;
        if (s == QLatin1String(name))
            return type;
    }
    return std::nullopt;
}

} // namespace

QJsonObject toJson(const ChannelSnapshot &channel)
{
    QJsonObject json = write(channel, channelFields());
    json.insert(QStringLiteral("name"), channel.name);
    json.insert(QStringLiteral("breaker"), QLatin1String(toString(channel.breaker)));
    json.insert(QStringLiteral("pool"), QLatin1String(toString(channel.pool)));
    json.insert(QStringLiteral("poolReason"), channel.poolReason);
    if (channel.pool == PoolState::Misconfigured) { // what was wrong and when a request may try again
        json.insert(QStringLiteral("misconfiguration"), channel.misconfiguration);
        json.insert(QStringLiteral("misconfiguredRetryInS"), channel.misconfiguredRetryInS);
    }
    json.insert(QStringLiteral("routable"), channel.routable);
    json.insert(QStringLiteral("breakerStats"), write(channel.breakerStats, breakerFields()));
    return json;
}

ChannelSnapshot channelFromJson(const QJsonObject &json)
{
    ChannelSnapshot channel;
    read(channel, channelFields(), json);
    channel.name = json.value(QStringLiteral("name")).toString();
    channel.breaker = breakerFromString(json.value(QStringLiteral("breaker")).toString());
    channel.pool = poolFromString(json.value(QStringLiteral("pool")).toString());
    channel.poolReason = json.value(QStringLiteral("poolReason")).toString();
    channel.misconfiguration = json.value(QStringLiteral("misconfiguration")).toString();
    channel.misconfiguredRetryInS = json.value(QStringLiteral("misconfiguredRetryInS")).toDouble();
    channel.routable = json.value(QStringLiteral("routable")).toBool(true);
    read(channel.breakerStats, breakerFields(), json.value(QStringLiteral("breakerStats")).toObject());
    return channel;
}

QJsonObject toJson(const MetricsSnapshot &snapshot)
{
    QJsonObject json = write(snapshot, snapshotFields());
    QJsonArray channels;
    for (const ChannelSnapshot &channel : snapshot.channels)
        channels.append(toJson(channel));
    json.insert(QStringLiteral("channels"), channels);
    QJsonArray routeSpend;
    for (const RouteSpend &spend : snapshot.routeSpend) {
        QJsonObject route = write(spend, routeSpendFields());
        route.insert(QStringLiteral("route"), spend.route);
        route.insert(QStringLiteral("period"), QLatin1String(toString(spend.period)));
        route.insert(QStringLiteral("hasBudget"), spend.hasBudget);
        routeSpend.append(route);
    }
    json.insert(QStringLiteral("routeSpend"), routeSpend);
    json.insert(QStringLiteral("router"), write(snapshot.router, routerFields()));
    json.insert(QStringLiteral("retryBudget"), write(snapshot.retryBudget, budgetFields()));
    json.insert(QStringLiteral("server"), write(snapshot.server, serverFields()));
    json.insert(QStringLiteral("prober"), write(snapshot.prober, proberFields()));
    return json;
}

MetricsSnapshot snapshotFromJson(const QJsonObject &json)
{
    MetricsSnapshot snapshot;
    read(snapshot, snapshotFields(), json);
    for (const QJsonValue &channel : json.value(QStringLiteral("channels")).toArray())
        snapshot.channels.push_back(channelFromJson(channel.toObject()));
    for (const QJsonValue &value : json.value(QStringLiteral("routeSpend")).toArray()) {
        const QJsonObject route = value.toObject();
        RouteSpend spend;
        read(spend, routeSpendFields(), route);
        spend.route = route.value(QStringLiteral("route")).toString();
        budgetPeriodFromString(route.value(QStringLiteral("period")).toString(), &spend.period);
        spend.hasBudget = route.value(QStringLiteral("hasBudget")).toBool();
        snapshot.routeSpend.push_back(std::move(spend));
    }
    read(snapshot.router, routerFields(), json.value(QStringLiteral("router")).toObject());
    read(snapshot.retryBudget, budgetFields(), json.value(QStringLiteral("retryBudget")).toObject());
    read(snapshot.server, serverFields(), json.value(QStringLiteral("server")).toObject());
    read(snapshot.prober, proberFields(), json.value(QStringLiteral("prober")).toObject());
    return snapshot;
}

QJsonObject toJson(const EventLog::Entry &entry)
{
    const HealthEvent &e = entry.event;
    QJsonObject json{{QStringLiteral("id"), double(entry.sequence)},
                     {QStringLiteral("type"), QLatin1String(toString(e.type))},
                     {QStringLiteral("channelId"), e.channelId},
                     {QStringLiteral("channelName"), e.channelName},
                     {QStringLiteral("from"), e.from},
                     {QStringLiteral("to"), e.to},
                     {QStringLiteral("reason"), e.reason},
                     {QStringLiteral("timeMs"), double(e.wallMillis)}};
    if (e.type == HealthEvent::Type::Failover)
        json.insert(QStringLiteral("fromChannelId"), e.fromChannelId);
    return json;
}

std::optional<EventLog::Entry> eventFromJson(const QJsonObject &json)
{
    const auto type = eventTypeFromString(json.value(QStringLiteral("type")).toString());
    if (!type || !json.value(QStringLiteral("id")).isDouble())
        return std::nullopt;
    EventLog::Entry entry;
    entry.sequence = static_cast<std::uint64_t>(json.value(QStringLiteral("id")).toDouble());
    HealthEvent &e = entry.event;
    e.type = *type;
    e.channelId = json.value(QStringLiteral("channelId")).toInt();
    e.channelName = json.value(QStringLiteral("channelName")).toString();
    e.from = json.value(QStringLiteral("from")).toString();
    e.to = json.value(QStringLiteral("to")).toString();
    e.reason = json.value(QStringLiteral("reason")).toString();
    e.wallMillis = static_cast<std::int64_t>(json.value(QStringLiteral("timeMs")).toDouble());
    e.fromChannelId = json.value(QStringLiteral("fromChannelId")).toInt();
    return entry;
}

} // namespace sb::SnapshotJson
