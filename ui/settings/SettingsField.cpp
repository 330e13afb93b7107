#include "settings/SettingsField.h"

#include <QLocale>

#include <cmath>
#include <type_traits>

namespace sb {

namespace {

template <class T>
double toShown(const T &stored)
{
    if constexpr (std::is_arithmetic_v<T>)
        return static_cast<double>(stored);
    else
        return static_cast<double>(stored.count()); // a std::chrono duration
}

template <class T>
void fromShown(T *stored, double value)
{
    if constexpr (std::is_floating_point_v<T>)
        *stored = value;
    else if constexpr (std::is_integral_v<T>)
        *stored = static_cast<T>(std::llround(value));
    else
        *stored = T(static_cast<typename T::rep>(std::llround(value)));
}

struct Range {
    double minimum;
    double maximum;
    int decimals = 0;
    double scale = 1.0; // shown = stored × scale
};

template <class Access>
SettingsField field(const char *key, SettingsGroup group, QString label, QString unit, QString help, Range range,
                    Access access, QStringList concerns = {})
{
    SettingsField f;
    f.key = QString::fromLatin1(key);
    f.group = group;
    f.label = std::move(label);
    f.unit = std::move(unit);
    f.help = std::move(help);
    f.minimum = range.minimum;
    f.maximum = range.maximum;
    f.decimals = range.decimals;
    const double scale = range.scale;
    f.get = [access, scale](const EngineConfig &c) { return toShown(access(const_cast<EngineConfig &>(c))) * scale; };
    f.set = [access, scale](EngineConfig &c, double shown) { fromShown(&access(c), shown / scale); };
    f.concerns = std::move(concerns);
    return f;
}

#define SB_FIELD(path) [](EngineConfig &c) -> auto & { return c.path; }

const QString kSeconds = QStringLiteral("s");
const QString kMillis = QStringLiteral("ms");
const QString kPercent = QStringLiteral("%");
const QString kCalls = QStringLiteral("calls");
const QStringList kWeights{QStringLiteral("Health score weights")};
const QStringList kBreakerCounts{QStringLiteral("Circuit breaker counts")};
const QStringList kRetry{QStringLiteral("Retry settings")};

std::vector<SettingsField> buildFields()
{
    using G = SettingsGroup;
    std::vector<SettingsField> fields = {
        field("proxy.listen_port", G::Proxy, QStringLiteral("Listen port"), QString(),
              QStringLiteral("The local port your OpenAI SDK points at; 0 picks any free port."), {0, 65535},
              SB_FIELD(proxy.listenPort), {QStringLiteral("listen port")}),
        field("proxy.max_body_bytes", G::Proxy, QStringLiteral("Largest request body"), QStringLiteral("KiB"),
              QStringLiteral("Requests with a larger body are refused with 413."), {1, 1024 * 1024, 0, 1.0 / 1024},
              SB_FIELD(proxy.maxBodyBytes)),
        field("proxy.max_header_bytes", G::Proxy, QStringLiteral("Largest header block"), QStringLiteral("KiB"),
              QStringLiteral("Requests with larger headers are refused with 431."), {1, 16 * 1024, 0, 1.0 / 1024},
              SB_FIELD(proxy.maxHeaderBytes)),
        field("proxy.idle_timeout_s", G::Proxy, QStringLiteral("Idle connection timeout"), kSeconds,
              QStringLiteral("A client connection with nothing to do is closed after this long."), {1, 3600},
              SB_FIELD(proxy.idleTimeout)),
        field("proxy.drain_timeout_s", G::Proxy, QStringLiteral("Drain on shutdown"), kSeconds,
              QStringLiteral("On exit, streams in flight get this long to finish."), {0, 600}, SB_FIELD(proxy.drainTimeout)),

        field("health.window_s", G::HealthScore, QStringLiteral("Error-rate window"), kSeconds,
              QStringLiteral("The health score's error rate covers this much recent time."), {10, 3600}, SB_FIELD(health.window)),
        field("health.fast_window_s", G::HealthScore, QStringLiteral("Fast error window"), kSeconds,
              QStringLiteral("A short window that reacts to a sudden burst of errors."), {1, 600}, SB_FIELD(health.fastWindow)),
        field("health.error_weight", G::HealthScore, QStringLiteral("Error-rate weight"), kPercent,
              QStringLiteral("How much the error rate counts in the score."), {0, 100, 0, 100}, SB_FIELD(health.errorWeight), kWeights),
        field("health.latency_weight", G::HealthScore, QStringLiteral("Latency weight"), kPercent,
              QStringLiteral("How much the P95 latency's deviation from its baseline counts in the score."), {0, 100, 0, 100},
              SB_FIELD(health.latencyWeight), kWeights),
        field("health.min_volume", G::HealthScore, QStringLiteral("Calls for full evidence"), kCalls,
              QStringLiteral("With fewer calls in the window the score is blended toward healthy, so one failure is not an outage."),
              {0, 100000}, SB_FIELD(health.minVolume)),
        field("health.slow_wait_factor", G::HealthScore, QStringLiteral("Slow wait, times the usual"), QStringLiteral("× p99"),
              QStringLiteral("A request still waiting for its first token this many times the channel's recent p99 counts against the channel "
                             "while it waits, and moves to a healthy channel once this one's circuit opens. 0 turns it off."),
              {0, 100, 1}, SB_FIELD(health.slowWaitFactor)),
        field("health.slow_wait_floor_ms", G::HealthScore, QStringLiteral("… but at least"), kSeconds,
              QStringLiteral("The slow wait is never shorter than this, however fast the channel usually answers."),
              {0.1, 600, 1, 0.001}, SB_FIELD(health.slowWaitFloor)),

        field("health.degrade_below", G::PoolEjection, QStringLiteral("Degrade below score"), QString(),
              QStringLiteral("A channel scoring below this gets less traffic."), {0, 100}, SB_FIELD(health.degradeBelow)),
        field("health.degraded_weight_factor", G::PoolEjection, QStringLiteral("Degraded channel's weight"), kPercent,
              QStringLiteral("The share of its usual routing weight a degraded channel keeps."), {0, 100, 0, 100},
              SB_FIELD(health.degradedWeightFactor)),
        field("health.eject_below", G::PoolEjection, QStringLiteral("Eject below score"), QString(),
              QStringLiteral("A channel scoring below this for the time below leaves the pool until probes succeed."),
              {0, 100}, SB_FIELD(health.ejectBelow), {QStringLiteral("ejection threshold")}),
        field("health.eject_after_s", G::PoolEjection, QStringLiteral("… for at least"), kSeconds,
              QStringLiteral("How long the score must stay below the ejection threshold."), {0, 3600}, SB_FIELD(health.ejectAfter)),

        field("breaker.consecutive_failures", G::CircuitBreaker, QStringLiteral("Failures in a row to open"), QStringLiteral("failures"),
              QStringLiteral("This many consecutive failures open the circuit."), {0, 1000}, SB_FIELD(breaker.consecutiveFailures),
              kBreakerCounts),
        field("breaker.failure_rate_threshold", G::CircuitBreaker, QStringLiteral("Failure rate to open"), kPercent,
              QStringLiteral("A failure rate above this over the window opens the circuit."), {0, 100, 0, 100},
              SB_FIELD(breaker.failureRateThreshold), {QStringLiteral("failure rate threshold")}),
        field("breaker.rate_window_s", G::CircuitBreaker, QStringLiteral("Failure-rate window"), kSeconds,
              QStringLiteral("The sliding window the failure rate is measured over."), {1, 600}, SB_FIELD(breaker.rateWindow)),
        field("breaker.min_calls_in_window", G::CircuitBreaker, QStringLiteral("Calls before the rate counts"), kCalls,
              QStringLiteral("Fewer calls than this in the window never open the circuit on the rate alone."), {0, 10000},
              SB_FIELD(breaker.minCallsInWindow)),
        field("breaker.open_duration_s", G::CircuitBreaker, QStringLiteral("Stay open for"), kSeconds,
              QStringLiteral("How long an open circuit refuses traffic before trial calls."), {1, 3600}, SB_FIELD(breaker.openDuration)),
        field("breaker.open_growth_factor", G::CircuitBreaker, QStringLiteral("Growth on repeated trips"), QStringLiteral("×"),
              QStringLiteral("1 keeps the open time fixed; above 1 each repeated trip stays open longer."), {1, 10, 1},
              SB_FIELD(breaker.openGrowthFactor)),
        field("breaker.max_open_duration_s", G::CircuitBreaker, QStringLiteral("Longest open time"), kSeconds,
              QStringLiteral("The open time never grows beyond this."), {1, 86400}, SB_FIELD(breaker.maxOpenDuration)),
        field("breaker.half_open_max_trials", G::CircuitBreaker, QStringLiteral("Half-open trial calls"), kCalls,
              QStringLiteral("Trial calls let through while half-open (trial-calls mode)."), {0, 1000},
              SB_FIELD(breaker.halfOpenMaxTrials), kBreakerCounts),
        field("breaker.half_open_traffic_share", G::CircuitBreaker, QStringLiteral("Half-open traffic share"), kPercent,
              QStringLiteral("Share of traffic sent to a half-open channel (traffic-share mode)."), {0, 100, 1, 100},
              SB_FIELD(breaker.halfOpenTrafficShare), {QStringLiteral("half-open traffic share")}),
        field("breaker.successes_to_close", G::CircuitBreaker, QStringLiteral("Successes to close"), QStringLiteral("successes"),
              QStringLiteral("Consecutive successful trials that close the circuit again."), {0, 1000},
              SB_FIELD(breaker.successesToClose), kBreakerCounts),

        field("probe.interval_s", G::HeartbeatProbe, QStringLiteral("Probe every"), kSeconds,
              QStringLiteral("How often an ejected or open channel is probed."), {1, 3600}, SB_FIELD(probe.interval)),
        field("probe.timeout_s", G::HeartbeatProbe, QStringLiteral("Probe timeout"), kSeconds,
              QStringLiteral("A probe without an answer in this time counts as failed."), {1, 600}, SB_FIELD(probe.timeout)),
        field("probe.successes_to_readmit", G::HeartbeatProbe, QStringLiteral("Successes to re-admit"), QStringLiteral("probes"),
              QStringLiteral("Consecutive successful probes before an ejected channel rejoins the pool."), {1, 100},
              SB_FIELD(probe.successesToReadmit)),

        field("retry.max_attempts", G::RetryBudget, QStringLiteral("Attempts per request"), QStringLiteral("attempts"),
              QStringLiteral("The first try plus retries, across channels and fallback models."), {0, 20},
              SB_FIELD(retry.maxAttempts), kRetry),
        field("retry.base_delay_ms", G::RetryBudget, QStringLiteral("Backoff base"), kMillis,
              QStringLiteral("Retry n waits min(cap, base × 2ⁿ) plus jitter."), {0, 60000}, SB_FIELD(retry.baseDelay)),
        field("retry.max_delay_ms", G::RetryBudget, QStringLiteral("Backoff cap"), kMillis,
              QStringLiteral("No retry waits longer than this (before jitter)."), {0, 600000}, SB_FIELD(retry.maxDelay)),
        field("retry.jitter_ms", G::RetryBudget, QStringLiteral("Jitter"), kMillis,
              QStringLiteral("A random extra wait up to this, so clients do not retry in lockstep."), {0, 60000}, SB_FIELD(retry.jitter)),
        field("retry.budget_ratio", G::RetryBudget, QStringLiteral("Retry budget"), QStringLiteral("% of requests"),
              QStringLiteral("Retries in flight stay below this share of requests in flight, so a flapping provider cannot cause a storm."),
              {0, 100, 0, 100}, SB_FIELD(retry.budgetRatio), kRetry),
        field("retry.budget_minimum", G::RetryBudget, QStringLiteral("Budget minimum"), QStringLiteral("retries"),
              QStringLiteral("Retries always allowed in flight, however little traffic there is."), {0, 1000},
              SB_FIELD(retry.budgetMinimum), kRetry),
        field("retry.overall_deadline_ms", G::RetryBudget, QStringLiteral("Overall deadline"), kSeconds,
              QStringLiteral("A request gives up after this long, whatever retries remain."), {1, 3600, 1, 0.001},
              SB_FIELD(retry.overallDeadline)),
        field("retry.first_content_timeout_ms", G::RetryBudget, QStringLiteral("First-content deadline"), kSeconds,
              QStringLiteral("A stream attempt with no text, reasoning or tool call for this long (pings and the role "
                             "do not count) fails over before the caller sees a byte; the attempt's own budget may be shorter."),
              {1, 3600, 1, 0.001}, SB_FIELD(retry.firstContentTimeout)),
        field("retry.stream_idle_timeout_ms", G::RetryBudget, QStringLiteral("Stall deadline"), kSeconds,
              QStringLiteral("A stream whose content stops for this long (pings do not count) has stalled: it is continued "
                             "on another channel, or ended with an error event."),
              {1, 3600, 1, 0.001}, SB_FIELD(retry.streamIdleTimeout)),
        field("retry.key_cool_down_ms", G::RetryBudget, QStringLiteral("Key cool-down after a 429"), kSeconds,
              QStringLiteral("A rate-limited key (or a provider without keys) rests this long when the provider said "
                             "nothing of when to come back; each further 429 after a rest doubles it, at most 32×."),
              {1, 3600, 1, 0.001}, SB_FIELD(retry.keyCoolDown)),
        field("retry.max_client_wait_ms", G::RetryBudget, QStringLiteral("Max client wait for a rate limit"), kSeconds,
              QStringLiteral("The longest a request waits for a rate-limited route to admit it. Past it the client "
                             "gets a 429 with Retry-After at once (or the request fails over)."),
              {0, 600, 1, 0.001}, SB_FIELD(retry.maxClientWait)),
    };
    fields.front().plain = true; // the listen port
    return fields;
}

#undef SB_FIELD

} // namespace

QString groupTitle(SettingsGroup group)
{
    switch (group) {
    case SettingsGroup::Proxy: return QStringLiteral("Proxy");
    case SettingsGroup::HealthScore: return QStringLiteral("Health score");
    case SettingsGroup::CircuitBreaker: return QStringLiteral("Circuit breaker");
    case SettingsGroup::PoolEjection: return QStringLiteral("Pool ejection");
    case SettingsGroup::HeartbeatProbe: return QStringLiteral("Heartbeat probe");
    case SettingsGroup::RetryBudget: return QStringLiteral("Retry & budget");
    case SettingsGroup::History: return QStringLiteral("History retention");
    case SettingsGroup::Appearance: return QStringLiteral("Appearance");
    }
    return {};
}

double SettingsField::defaultValue() const
{
    static const EngineConfig defaults;
    return get(defaults);
}

QString SettingsField::format(double value) const
{
    QString text = plain ? QString::number(value, 'f', decimals) : QLocale().toString(value, 'f', decimals);
    if (unit.isEmpty())
        return text;
    // "20 %" and "1.5 ×" read as units; "5 calls" as a count.
    return text + QLatin1Char(' ') + unit;
}

const std::vector<SettingsField> &settingsFields()
{
    static const std::vector<SettingsField> fields = buildFields();
    return fields;
}

const SettingsField *findSettingsField(const QString &key)
{
    for (const SettingsField &f : settingsFields())
        if (f.key == key)
            return &f;
    return nullptr;
}

QStringList fieldsConcernedBy(const QString &problem)
{
    QStringList keys;
    for (const SettingsField &f : settingsFields())
        for (const QString &concern : f.concerns)
            if (problem.contains(concern, Qt::CaseInsensitive))
                keys << f.key;
    return keys;
}

} // namespace sb
