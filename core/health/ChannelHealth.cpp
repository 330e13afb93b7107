#include "health/ChannelHealth.h"

#include <QCryptographicHash>

#include <algorithm>

namespace sb {

const char *toString(PoolState state)
{
    switch (state) {
    case PoolState::Active: return "active";
    case PoolState::Degraded: return "degraded";
    case PoolState::Ejected: return "ejected";
    case PoolState::Drained: return "drained";
    case PoolState::Misconfigured: return "misconfigured";
    }
    return "unknown";
}

namespace {
BreakerResult classify(const Outcome &outcome)
{
    if (outcome.isSuccess())
        return BreakerResult::Success;
    return outcome.isChannelFailure() ? BreakerResult::Failure : BreakerResult::Neutral;
}

bool inPool(PoolState s)
{
    return s == PoolState::Active || s == PoolState::Degraded;
}

// The window must cover the longest span anything reads: the score window, at least 5 minutes.
std::chrono::seconds windowCapacity(const HealthConfig &h)
{
    return std::max({h.window, h.fastWindow, std::chrono::seconds(300)});
}

constexpr double kEwmaAlpha = 0.2; // the last ~5 calls dominate: fast enough to steer around a slow spell

QByteArray reachDigest(const EngineConfig &config, const ChannelConfig &channel)
{
    QCryptographicHash hash(QCryptographicHash::Sha256); // the keys go in, only their digest is kept
    auto add = [&hash](const QString &text) {
        hash.addData(text.toUtf8());
        hash.addData(QByteArrayView("\0", 1));
    };
    add(channel.upstreamModel);
    add(channel.egressProxy);
    add(QString::number(channel.providerId));
    if (const ProviderConfig *p = config.provider(channel.providerId)) {
        add(p->dialect);
        add(p->baseUrl);
        add(p->responsesApi ? QStringLiteral("responses") : QString());
        add(p->domain.egressProxy);
        add(p->caBundle); // a TLS failure is fixed here as often as in the URL
        add(p->tlsSkipVerify ? QStringLiteral("unverified") : QString());
        add(p->http2 ? QStringLiteral("h2") : QString());
        add(QString::number(p->connectTimeout.count()));
        for (const ApiKeyConfig &k : p->keys) {
            add(k.secret);
            add(k.enabled ? QStringLiteral("on") : QStringLiteral("off"));
        }
    }
    return hash.result();
}
} // namespace

ChannelHealth::ChannelHealth(const Clock &clock, const EngineConfig &config, const ChannelConfig &channel,
                             std::shared_ptr<EventDispatcher> events)
    : m_id(channel.id)
    , m_clock(clock)
    , m_events(std::move(events))
    , m_window(windowCapacity(config.health))
    , m_name(channel.name)
    , m_health(config.health)
    , m_probe(config.probe)
    , m_breaker(clock, config.breaker)
    , m_scorer(config.health)
{
    m_reachDigest = reachDigest(config, channel);
    m_providerId.store(channel.providerId, std::memory_order_relaxed);
}

QString ChannelHealth::name() const
{
    std::lock_guard lock(m_mutex);
    return m_name;
}

void ChannelHealth::reconfigure(const EngineConfig &config, const ChannelConfig &channel)
{
    std::vector<HealthEvent> events;
    {
        std::lock_guard lock(m_mutex);
    m_name = channel.name;
    m_health = config.health;
    m_probe = config.probe;
    m_breaker.setConfig(config.breaker);
    m_scorer.setConfig(config.health);
        m_providerId.store(channel.providerId, std::memory_order_relaxed);
        QByteArray digest = reachDigest(config, channel);
        if (digest != m_reachDigest && m_poolState == PoolState::Misconfigured)
            clearMisconfiguredLocked(QStringLiteral("the provider's configuration changed; trying it again"), &events);
        m_reachDigest = std::move(digest);
        mirrorLocked();
    }
    publish(events);
}

bool ChannelHealth::routable() const
{
    const PoolState pool = poolState();
    if (pool == PoolState::Misconfigured)
        return m_clock.now().time_since_epoch().count() >= m_retryAtNanos.load(std::memory_order_relaxed);
    if (!inPool(pool))
        return false;
    if (breakerState() != BreakerState::Open)
        return true;
    // OPEN whose time is up: the next admit() moves it to HALF_OPEN.
    return m_clock.now().time_since_epoch().count() >= m_openUntilNanos.load(std::memory_order_relaxed);
}

bool ChannelHealth::couldAdmitNow() const
{
    if (!routable())
        return false;
    // Closed, or OPEN with its time up, whose first admission is a trial with every slot free.
    if (breakerState() != BreakerState::HalfOpen)
        return true;
    std::lock_guard lock(m_mutex);
    return m_breaker.state() != BreakerState::HalfOpen || m_breaker.trialAvailable();
}

CircuitBreaker::Admission ChannelHealth::admit(Random &random)
{
    const PoolState pool = poolState();
    if (pool == PoolState::Misconfigured) {
        // The minute's one request: whoever moves the retry time on first takes it.
        const std::int64_t now = m_clock.now().time_since_epoch().count();
        std::int64_t due = m_retryAtNanos.load(std::memory_order_relaxed);
        const std::int64_t next = now + std::chrono::duration_cast<std::chrono::nanoseconds>(kMisconfiguredRetryEvery).count();
        if (now < due || !m_retryAtNanos.compare_exchange_strong(due, next, std::memory_order_relaxed))
            return CircuitBreaker::Admission::Rejected;
        return CircuitBreaker::Admission::Admitted;
    }
    if (!inPool(pool))
        return CircuitBreaker::Admission::Rejected;
    if (breakerState() == BreakerState::Closed)
        return CircuitBreaker::Admission::Admitted; // the common case takes no lock
    std::vector<BreakerTransition> transitions;
    std::vector<HealthEvent> events;
    CircuitBreaker::Admission admission;
    {
        std::lock_guard lock(m_mutex);
        admission = m_breaker.tryAdmit(random, &transitions);
        emitBreaker(transitions, &events);
        mirrorLocked();
    }
    publish(events);
    return admission;
}

void ChannelHealth::releaseTrial()
{
    std::lock_guard lock(m_mutex);
    m_breaker.releaseTrial();
}

void ChannelHealth::record(const Outcome &outcome, Clock::Duration latency, std::optional<Clock::Duration> ttft,
                           bool wasTrial)
{
    const auto now = m_clock.now();
    const bool success = outcome.isSuccess();
    m_window.record(now, outcome.kind, success ? std::optional(latency) : std::nullopt,
                    success ? ttft : std::nullopt);
    if (success) {
        const double ms = toMillis(latency);
        const double previous = m_ewmaMs.load(std::memory_order_relaxed);
        // A lost update between two racing workers only drops one sample from an average: no CAS needed.
        m_ewmaMs.store(previous <= 0 ? ms : previous + kEwmaAlpha * (ms - previous), std::memory_order_relaxed);
    }
    const BreakerResult result = classify(outcome);
    std::vector<BreakerTransition> transitions;
    std::vector<HealthEvent> events;
    {
        std::lock_guard lock(m_mutex);
        m_breaker.onResult(result, wasTrial, &transitions);
        emitBreaker(transitions, &events);
        if (success && m_poolState == PoolState::Misconfigured)
            clearMisconfiguredLocked(QStringLiteral("a request it was retried with answered"), &events);
        mirrorLocked();
    }
    publish(events);
}

std::optional<Clock::Duration> ChannelHealth::slowWaitThreshold() const
{
    const std::int64_t nanos = m_slowWaitNanos.load(std::memory_order_relaxed);
    if (nanos <= 0)
        return std::nullopt;
    return Clock::Duration(nanos);
}

void ChannelHealth::recordSlowWait(bool wasTrial)
{
    // A call that failed, as far as the channel is concerned: no latency sample (it has none yet).
    m_window.record(m_clock.now(), OutcomeKind::Timeout);
    std::vector<BreakerTransition> transitions;
    std::vector<HealthEvent> events;
    {
        std::lock_guard lock(m_mutex);
        ++m_stats.slowWaits;
        m_breaker.onResult(BreakerResult::Failure, wasTrial, &transitions);
        emitBreaker(transitions, &events);
        mirrorLocked();
    }
    publish(events);
}

void ChannelHealth::learnSlowWaitLocked(const WindowSnapshot &slow)
{
    if (m_health.slowWaitFactor <= 0) {
        m_slowWaitNanos.store(0, std::memory_order_relaxed);
        return;
    }
    // Too few successes to say what usual is: the last threshold learnt stands. A hung channel has
    // no successes at all, and must not lose its threshold for that; a new one has none to learn from.
    if (slow.ttftSamples < static_cast<std::uint64_t>(std::max(1, m_health.minVolume)))
        return;
    const double floorMs = double(m_health.slowWaitFloor.count());
    const double ms = std::max(floorMs, m_health.slowWaitFactor * slow.ttftP99Ms);
    m_slowWaitNanos.store(static_cast<std::int64_t>(ms * 1e6), std::memory_order_relaxed);
}

HealthScore ChannelHealth::evaluate()
{
    const auto now = m_clock.now();
    std::vector<HealthEvent> events;
    HealthScore score;
    {
        std::lock_guard lock(m_mutex);
        const auto slow = m_window.snapshot(now, evidenceSpan(now, m_health.window));
        const auto fast = m_window.counts(now, evidenceSpan(now, m_health.fastWindow));
        const auto recent = m_window.counts(now, evidenceSpan(now, std::chrono::seconds(5)));
        const Clock::Duration elapsed = m_lastEvaluation ? now - *m_lastEvaluation : Clock::Duration::zero();
        m_lastEvaluation = now;
        score = m_scorer.evaluate(slow, fast, recent, elapsed);
        m_lastScore = score;
        learnSlowWaitLocked(slow);

        std::vector<BreakerTransition> transitions;
        m_breaker.poll(&transitions);
        emitBreaker(transitions, &events);

        if (inPool(m_poolState)) {
            if (score.score < m_health.ejectBelow) {
                if (!m_belowEjectSince)
                    m_belowEjectSince = now;
            } else {
                m_belowEjectSince.reset();
            }
            if (m_belowEjectSince && now - *m_belowEjectSince >= m_health.ejectAfter) {
                setPoolLocked(PoolState::Ejected,
                              QStringLiteral("score below %1 for %2 s (now %3)")
                                  .arg(m_health.ejectBelow)
                                  .arg(m_health.ejectAfter.count())
                                  .arg(score.score, 0, 'f', 0),
                              &events);
            } else if (score.score < m_health.degradeBelow) {
                if (m_poolState != PoolState::Degraded)
                    setPoolLocked(PoolState::Degraded,
                                  QStringLiteral("score %1 below %2: routing weight reduced")
                                      .arg(score.score, 0, 'f', 0)
                                      .arg(m_health.degradeBelow),
                                  &events);
            } else if (m_poolState == PoolState::Degraded) {
                setPoolLocked(PoolState::Active, QStringLiteral("score recovered to %1").arg(score.score, 0, 'f', 0),
                              &events);
            }
        }
        mirrorLocked();
    }
    publish(events);
    return score;
}

void ChannelHealth::recordProbe(bool ok, Clock::Duration latency)
{
    Q_UNUSED(latency) // a heartbeat's latency (a model list) says nothing about completion latency
    m_window.record(m_clock.now(), ok ? OutcomeKind::Success : OutcomeKind::ProviderDown, std::nullopt, std::nullopt,
                    true);
    std::vector<HealthEvent> events;
    {
        std::lock_guard lock(m_mutex);
        ++m_stats.probes;
        if (!ok) {
            ++m_stats.probeFailures;
            m_probeSuccessesInRow = 0;
        } else if (m_poolState == PoolState::Misconfigured && m_misconfiguration != Misconfiguration::KeysRefused) {
            // One success is enough: what was wrong was not a matter of degree. Refused keys stay
            // disabled in the key ring whatever a probe (which may need no key) says: new keys it is.
            clearMisconfiguredLocked(QStringLiteral("a heartbeat succeeded"), &events);
        } else if (++m_probeSuccessesInRow >= std::max(1, m_probe.successesToReadmit)
                   && m_poolState == PoolState::Ejected) {
            ++m_stats.readmissions;
            setPoolLocked(PoolState::Active,
                          QStringLiteral("%1 consecutive heartbeat successes").arg(m_probeSuccessesInRow), &events);
        }
        mirrorLocked();
    }
    publish(events);
}

bool ChannelHealth::wantsProbe(bool probeIdle) const
{
    const PoolState pool = poolState();
    if (pool == PoolState::Drained)
        return false;
    if (pool == PoolState::Ejected || pool == PoolState::Misconfigured || breakerState() == BreakerState::Open)
        return true;
    if (!probeIdle)
        return false;
    const auto last = m_window.lastRecordAt();
    std::chrono::seconds interval;
    {
        std::lock_guard lock(m_mutex);
        interval = m_probe.interval;
    }
    return !last || m_clock.now() - *last >= interval;
}

bool ChannelHealth::drain(const QString &reason)
{
    std::vector<HealthEvent> events;
    {
        std::lock_guard lock(m_mutex);
        if (m_poolState == PoolState::Drained)
            return false;
        ++m_stats.drains;
        setPoolLocked(PoolState::Drained, reason.isEmpty() ? QStringLiteral("drained by hand") : reason, &events);
        mirrorLocked();
    }
    publish(events);
    return true;
}

bool ChannelHealth::readmit(const QString &reason)
{
    std::vector<HealthEvent> events;
    {
        std::lock_guard lock(m_mutex);
        if (inPool(m_poolState))
            return false;
        ++m_stats.manualReadmissions;
        setPoolLocked(PoolState::Active, reason.isEmpty() ? QStringLiteral("re-admitted by hand") : reason, &events);
        mirrorLocked();
    }
    publish(events);
    return true;
}

bool ChannelHealth::adoptBreaker(BreakerState to, Clock::TimePoint until, const QString &origin, const QString &reason)
{
    std::vector<HealthEvent> events;
    {
        std::lock_guard lock(m_mutex);
        std::vector<BreakerTransition> transitions;
        const QString why = QStringLiteral("%1 (seen by %2)").arg(reason, origin);
        bool changed = false;
        if (to == BreakerState::Open)
            changed = m_breaker.adoptOpen(until, why, &transitions);
        else if (to == BreakerState::Closed)
            changed = m_breaker.adoptClosed(why, &transitions);
        if (!changed)
            return false;
        if (to == BreakerState::Closed)
            m_evidenceSince = m_clock.now();
        emitBreaker(transitions, &events);
        mirrorLocked();
    }
    for (HealthEvent &e : events)
        e.fleetOrigin = origin;
    publish(events);
    return true;
}

bool ChannelHealth::adoptPool(PoolState to, const QString &origin, const QString &reason)
{
    if (to != PoolState::Active && to != PoolState::Ejected && to != PoolState::Drained)
        return false;
    std::vector<HealthEvent> events;
    {
        std::lock_guard lock(m_mutex);
        if (m_poolState == PoolState::Misconfigured || m_poolState == to || (to == PoolState::Active && inPool(m_poolState)))
            return false;
        if (to == PoolState::Ejected && m_poolState == PoolState::Drained)
            return false; // an operator's drain outranks an instance's evidence
        if (to == PoolState::Drained)
            ++m_stats.drains;
        setPoolLocked(to, QStringLiteral("%1 (seen by %2)").arg(reason, origin), &events);
        mirrorLocked();
    }
    for (HealthEvent &e : events)
        e.fleetOrigin = origin;
    publish(events);
    return true;
}

bool ChannelHealth::markMisconfigured(Misconfiguration cause, const QString &reason)
{
    if (cause == Misconfiguration::None)
        return false;
    const auto next = m_clock.now() + kMisconfiguredRetryEvery;
    std::vector<HealthEvent> events;
    bool marked = false;
    {
        std::lock_guard lock(m_mutex);
        if (m_poolState == PoolState::Drained)
            return false;
        m_retryAtNanos.store(next.time_since_epoch().count(), std::memory_order_relaxed);
        if (m_poolState != PoolState::Misconfigured) {
            ++m_stats.misconfigurations;
            m_misconfiguration = cause;
            setPoolLocked(PoolState::Misconfigured, reason, &events);
            marked = true;
        } else if (cause != m_misconfiguration || reason != m_poolReason) {
            m_misconfiguration = cause; // the retry found it wrong in another way: say the newest
            m_poolReason = reason;
        }
        mirrorLocked();
    }
    publish(events);
    return marked;
}

bool ChannelHealth::clearMisconfigured(const QString &reason)
{
    std::vector<HealthEvent> events;
    {
        std::lock_guard lock(m_mutex);
        if (m_poolState != PoolState::Misconfigured)
            return false;
        clearMisconfiguredLocked(reason, &events);
        mirrorLocked();
    }
    publish(events);
    return true;
}

Misconfiguration ChannelHealth::misconfiguration() const
{
    std::lock_guard lock(m_mutex);
    return m_poolState == PoolState::Misconfigured ? m_misconfiguration : Misconfiguration::None;
}

void ChannelHealth::clearMisconfiguredLocked(const QString &reason, std::vector<HealthEvent> *events)
{
    if (m_poolState != PoolState::Misconfigured)
        return;
    ++m_stats.misconfigurationsCleared;
    m_misconfiguration = Misconfiguration::None;
    setPoolLocked(PoolState::Active, reason, events);
}

void ChannelHealth::setPoolLocked(PoolState to, const QString &reason, std::vector<HealthEvent> *events)
{
    const PoolState from = m_poolState;
    if (from == to)
        return;
    m_poolState = to;
    m_poolReason = reason;
    if (to == PoolState::Degraded)
        ++m_stats.degradations;
    if (to == PoolState::Ejected)
        ++m_stats.ejections;
    if (!inPool(from) && inPool(to)) {
        // A fresh start in the pool: the 3 minutes below the threshold count from now, and the
        // score from the evidence that earned the re-admission on.
        m_belowEjectSince.reset();
        m_probeSuccessesInRow = 0;
        m_evidenceSince = m_clock.now();
    }
    HealthEvent e = makeEvent(HealthEvent::Type::Pool);
    e.from = QString::fromLatin1(toString(from));
    e.to = QString::fromLatin1(toString(to));
    e.reason = reason;
    events->push_back(std::move(e));
}

void ChannelHealth::mirrorLocked()
{
    m_score.store(m_lastScore.score, std::memory_order_relaxed);
    m_poolMirror.store(static_cast<std::uint8_t>(m_poolState), std::memory_order_relaxed);
    m_openUntilNanos.store(m_breaker.openUntil().time_since_epoch().count(), std::memory_order_relaxed);
    m_breakerMirror.store(static_cast<std::uint8_t>(m_breaker.state()), std::memory_order_release);
}

HealthEvent ChannelHealth::makeEvent(HealthEvent::Type type) const
{
    HealthEvent e;
    e.type = type;
    e.channelId = m_id;
    e.channelName = m_name;
    e.at = m_clock.now();
    e.wallMillis = m_clock.wallMillis();
    return e;
}

std::chrono::seconds ChannelHealth::evidenceSpan(Clock::TimePoint now, std::chrono::seconds span) const
{
    if (!m_evidenceSince)
        return span;
    // Whole seconds since the recovery, counting the current one (a window's span includes it).
    const auto since = std::chrono::duration_cast<std::chrono::seconds>(now - *m_evidenceSince) + std::chrono::seconds(1);
    return std::clamp(since, std::chrono::seconds(1), span);
}

void ChannelHealth::emitBreaker(const std::vector<BreakerTransition> &transitions, std::vector<HealthEvent> *events)
{
    for (const auto &t : transitions) {
        if (t.from == BreakerState::HalfOpen && t.to == BreakerState::Closed)
            m_evidenceSince = t.at;
        HealthEvent e = makeEvent(HealthEvent::Type::Breaker);
        e.from = QString::fromLatin1(toString(t.from));
        e.to = QString::fromLatin1(toString(t.to));
        e.reason = t.reason;
        e.at = t.at;
        events->push_back(std::move(e));
    }
}

void ChannelHealth::publish(const std::vector<HealthEvent> &events) const
{
    if (!m_events)
        return;
    for (const auto &e : events)
        m_events->emitEvent(e);
}

ChannelSnapshot ChannelHealth::snapshot() const
{
    const auto now = m_clock.now();
    ChannelSnapshot s;
    s.channelId = m_id;
    s.providerId = providerId();
    s.latencyEwmaMs = latencyEwmaMs();
    s.inFlight = inFlight();
    std::lock_guard lock(m_mutex);
    const auto slow = m_window.snapshot(now, m_health.window);
    const auto fast = m_window.counts(now, m_health.fastWindow);
    s.name = m_name;
    s.score = m_lastScore.score;
    s.baselineP95Ms = m_lastScore.baselineP95Ms;
    s.errorRate30s = fast.errorRate();
    s.errorRate5m = slow.errorRate();
    s.calls30s = fast.calls;
    s.calls5m = slow.calls;
    s.p50Ms = slow.latencyP50Ms;
    s.p95Ms = slow.latencyP95Ms;
    s.p99Ms = slow.latencyP99Ms;
    s.ttftP95Ms = slow.ttftP95Ms;
    s.breaker = m_breaker.state();
    s.pool = m_poolState;
    s.poolReason = m_poolReason;
    if (m_poolState == PoolState::Misconfigured) {
        s.misconfiguration = QString::fromLatin1(toString(m_misconfiguration));
        const auto retryAt = Clock::TimePoint(Clock::Duration(m_retryAtNanos.load(std::memory_order_relaxed)));
        s.misconfiguredRetryInS = std::max(0.0, toSeconds(retryAt - now));
    }
    s.routable = m_poolState == PoolState::Misconfigured
        ? now.time_since_epoch().count() >= m_retryAtNanos.load(std::memory_order_relaxed)
        : inPool(m_poolState) && (m_breaker.state() != BreakerState::Open || now >= m_breaker.openUntil());
    s.breakerStats = m_breaker.stats();
    return s;
}

WindowSnapshot ChannelHealth::window(std::chrono::seconds span) const
{
    return m_window.snapshot(m_clock.now(), span);
}

HealthScore ChannelHealth::lastScore() const
{
    std::lock_guard lock(m_mutex);
    return m_lastScore;
}

ChannelHealth::Stats ChannelHealth::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

} // namespace sb
