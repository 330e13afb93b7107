#include "health/CircuitBreaker.h"

#include "health/SlidingWindow.h"

#include <algorithm>
#include <cmath>

namespace sb {

const char *toString(BreakerState state)
{
    switch (state) {
    case BreakerState::Closed: return "closed";
    case BreakerState::Open: return "open";
    case BreakerState::HalfOpen: return "half_open";
    }
    return "unknown";
}

CircuitBreaker::CircuitBreaker(const Clock &clock, const BreakerConfig &config)
    : m_clock(clock)
{
    setConfig(config);
}

void CircuitBreaker::setConfig(const BreakerConfig &config)
{
    m_config = config;
    m_rate.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, config.rateWindow.count())), RateBucket{});
}

void CircuitBreaker::transition(BreakerState to, QString reason, std::vector<BreakerTransition> *transitions)
{
    const BreakerState from = m_state;
    m_state = to;
    if (transitions)
        transitions->push_back(BreakerTransition{from, to, std::move(reason), m_clock.now()});
}

void CircuitBreaker::trip(QString reason, std::vector<BreakerTransition> *transitions)
{
    ++m_tripsSinceClose;
    const double growth = std::pow(std::max(1.0, m_config.openGrowthFactor), m_tripsSinceClose - 1);
    const double seconds = std::min(double(m_config.openDuration.count()) * growth,
                                    double(std::max(m_config.openDuration, m_config.maxOpenDuration).count()));
    m_currentOpenDuration = std::chrono::duration_cast<Clock::Duration>(std::chrono::duration<double>(seconds));
    m_openUntil = m_clock.now() + m_currentOpenDuration;
    m_consecutiveFailures = 0;
    m_consecutiveSuccesses = 0;
    m_trialsInFlight = 0;
    resetRateWindow();
    transition(BreakerState::Open,
               reason + QStringLiteral("; open for %1 s").arg(toSeconds(m_currentOpenDuration), 0, 'f', 0), transitions);
}

void CircuitBreaker::close(QString reason, std::vector<BreakerTransition> *transitions)
{
    ++m_stats.closes;
    m_tripsSinceClose = 0;
    m_consecutiveFailures = 0;
    m_trialsInFlight = 0;
    resetRateWindow();
    transition(BreakerState::Closed, std::move(reason), transitions);
}

bool CircuitBreaker::adoptOpen(Clock::TimePoint until, QString reason, std::vector<BreakerTransition> *transitions)
{
    if (until <= m_clock.now())
        return false;
    if (m_state == BreakerState::Open) {
        m_openUntil = std::max(m_openUntil, until);
        return false;
    }
    m_openUntil = until;
    m_currentOpenDuration = until - m_clock.now();
    m_consecutiveFailures = 0;
    m_consecutiveSuccesses = 0;
    m_trialsInFlight = 0;
    resetRateWindow();
    transition(BreakerState::Open, std::move(reason), transitions);
    return true;
}

bool CircuitBreaker::adoptClosed(QString reason, std::vector<BreakerTransition> *transitions)
{
    if (m_state == BreakerState::Closed)
        return false;
    close(std::move(reason), transitions);
    return true;
}

void CircuitBreaker::poll(std::vector<BreakerTransition> *transitions)
{
    if (m_state == BreakerState::Open && m_clock.now() >= m_openUntil) {
        m_consecutiveSuccesses = 0;
        m_trialsInFlight = 0;
        ++m_stats.halfOpens;
        m_lastTrialAdmittedAt = Clock::TimePoint{};
        const QString how = m_config.halfOpenMode == HalfOpenMode::TrialCalls
            ? QStringLiteral("admitting at most %1 trial calls").arg(m_config.halfOpenMaxTrials)
            : QStringLiteral("admitting %1 % of traffic").arg(m_config.halfOpenTrafficShare * 100.0, 0, 'g', 3);
        transition(BreakerState::HalfOpen,
                   QStringLiteral("open duration of %1 s elapsed; %2").arg(toSeconds(m_currentOpenDuration), 0, 'f', 0).arg(how),
                   transitions);
    }
}

CircuitBreaker::Admission CircuitBreaker::tryAdmit(Random &random, std::vector<BreakerTransition> *transitions)
{
    poll(transitions);
    switch (m_state) {
    case BreakerState::Closed:
        return Admission::Admitted;
    case BreakerState::Open:
        ++m_stats.rejected;
        return Admission::Rejected;
    case BreakerState::HalfOpen:
        break;
    }
    bool admit = false;
    if (m_config.halfOpenMode == HalfOpenMode::TrialCalls)
        admit = m_trialsInFlight < std::max(1, m_config.halfOpenMaxTrials);
    else
        admit = random.chance(m_config.halfOpenTrafficShare) || trialOverdue();
    if (!admit) {
        ++m_stats.rejected;
        return Admission::Rejected;
    }
    ++m_trialsInFlight;
    ++m_stats.trialsAdmitted;
    m_lastTrialAdmittedAt = m_clock.now();
    return Admission::Trial;
}

// At low traffic a share alone leaves recovery to luck: 5 % of 4 requests/s needed anywhere from 2 s to
// 17 s for its three trials in the hanging-primary drill. One trial at a time at least every
// kMaxTrialGap bounds that to about three trial calls, and still risks a single request on a bad channel.
bool CircuitBreaker::trialOverdue() const
{
    return m_trialsInFlight == 0 && m_clock.now() - m_lastTrialAdmittedAt >= kMaxTrialGap;
}

bool CircuitBreaker::trialAvailable() const
{
    if (m_config.halfOpenMode == HalfOpenMode::TrialCalls)
        return m_trialsInFlight < std::max(1, m_config.halfOpenMaxTrials);
    return trialOverdue();
}

void CircuitBreaker::releaseTrial()
{
    if (m_trialsInFlight > 0)
        --m_trialsInFlight;
}

void CircuitBreaker::resetRateWindow()
{
    std::fill(m_rate.begin(), m_rate.end(), RateBucket{});
}

void CircuitBreaker::countInRateWindow(bool failure)
{
    const auto second = secondOf(m_clock.now());
    const auto size = static_cast<std::int64_t>(m_rate.size());
    RateBucket &b = m_rate[static_cast<std::size_t>(((second % size) + size) % size)];
    if (b.second != second)
        b = RateBucket{second, 0, 0};
    ++b.calls;
    if (failure)
        ++b.failures;
}

void CircuitBreaker::rateWindowTotals(int *calls, int *failures) const
{
    const auto current = secondOf(m_clock.now());
    const auto size = static_cast<std::int64_t>(m_rate.size());
    *calls = 0;
    *failures = 0;
    for (const auto &b : m_rate)
        if (b.second > current - size && b.second <= current) {
            *calls += b.calls;
            *failures += b.failures;
        }
}

void CircuitBreaker::onResult(BreakerResult result, bool wasTrial, std::vector<BreakerTransition> *transitions)
{
    if (wasTrial)
        releaseTrial();
    if (result == BreakerResult::Neutral)
        return;
    const bool failure = result == BreakerResult::Failure;

    switch (m_state) {
    case BreakerState::Open:
        // A call admitted before the trip finished late: it is old news either way.
        return;
    case BreakerState::HalfOpen:
        if (failure) {
            ++m_stats.reopens;
            ++m_stats.trips;
            trip(QStringLiteral("a trial call failed while half-open"), transitions);
            return;
        }
        if (++m_consecutiveSuccesses >= std::max(1, m_config.successesToClose))
            close(QStringLiteral("%1 consecutive successful trial calls").arg(m_consecutiveSuccesses), transitions);
        return;
    case BreakerState::Closed:
        break;
    }

    countInRateWindow(failure);
    if (!failure) {
        m_consecutiveFailures = 0;
        return;
    }
    ++m_consecutiveFailures;
    if (m_config.consecutiveFailures > 0 && m_consecutiveFailures >= m_config.consecutiveFailures) {
        ++m_stats.trips;
        ++m_stats.consecutiveTrips;
        trip(QStringLiteral("%1 consecutive failures").arg(m_consecutiveFailures), transitions);
        return;
    }
    int calls = 0, failures = 0;
    rateWindowTotals(&calls, &failures);
    if (calls >= std::max(1, m_config.minCallsInWindow) && double(failures) / calls > m_config.failureRateThreshold) {
        ++m_stats.trips;
        ++m_stats.rateTrips;
        trip(QStringLiteral("failure rate %1 % over %2 s (%3 of %4 calls) above %5 %")
                 .arg(100.0 * failures / calls, 0, 'f', 0)
                 .arg(m_config.rateWindow.count())
                 .arg(failures)
                 .arg(calls)
                 .arg(m_config.failureRateThreshold * 100.0, 0, 'g', 3),
             transitions);
    }
}

} // namespace sb
