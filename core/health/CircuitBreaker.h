#pragma once

#include "common/Clock.h"
#include "common/Random.h"
#include "model/EngineConfig.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace sb {

enum class BreakerState : std::uint8_t { Closed, Open, HalfOpen };
const char *toString(BreakerState state); // "closed", "open", "half_open"

struct BreakerTransition {
    BreakerState from = BreakerState::Closed;
    BreakerState to = BreakerState::Closed;
    QString reason;
    Clock::TimePoint at{};
};

// What a call's outcome means to the breaker: rate limits, auth and parameter errors are Neutral
// (the channel itself is fine), so they neither trip it nor count toward closing it.
enum class BreakerResult : std::uint8_t { Success, Failure, Neutral };

// One channel's circuit breaker (its presets and their reasons: ARCHITECTURE.md, "Defaults and why").
//   CLOSED → OPEN when either trigger fires: `consecutiveFailures` failures in a row, or more than
//            `failureRateThreshold` of the calls in the last `rateWindow` failed, with at least
//            `minCallsInWindow` calls (counted only since the breaker last closed, so failures from
//            before an outage cannot re-trip a freshly closed breaker).
//   OPEN → HALF_OPEN after the open duration: openDuration × openGrowthFactor^(trips since the last
//            close − 1), capped at maxOpenDuration.
//   HALF_OPEN admits trial calls: at most `halfOpenMaxTrials` in flight (TrialCalls), or each call
//            with probability `halfOpenTrafficShare` and at least one at a time every
//            kMaxTrialGap (TrafficShare); `successesToClose` consecutive successes close it, any
//            failure re-opens it.
// Every transition is returned as a BreakerTransition carrying its reason.
// Not thread-safe: ChannelHealth guards it with its per-channel mutex.
class CircuitBreaker {
public:
    enum class Admission : std::uint8_t { Rejected, Admitted, Trial };
    // In TrafficShare mode a call is also admitted as a trial when none is in flight and none was
    // admitted for this long, so a quiet route still recovers in a few trial calls.
    static constexpr Clock::Duration kMaxTrialGap = std::chrono::seconds(1);

    struct Stats {
        std::uint64_t trips = 0;            // CLOSED → OPEN
        std::uint64_t consecutiveTrips = 0; // … of which by the consecutive-failures trigger
        std::uint64_t rateTrips = 0;        // … of which by the failure-rate trigger
        std::uint64_t reopens = 0;          // HALF_OPEN → OPEN
        std::uint64_t halfOpens = 0;        // OPEN → HALF_OPEN
        std::uint64_t closes = 0;           // HALF_OPEN → CLOSED
        std::uint64_t rejected = 0;         // admissions refused while OPEN or HALF_OPEN
        std::uint64_t trialsAdmitted = 0;
    };

    CircuitBreaker(const Clock &clock, const BreakerConfig &config);

    BreakerState state() const { return m_state; }
    // Moves OPEN → HALF_OPEN once the open duration has passed; call before reading state() for routing.
    void poll(std::vector<BreakerTransition> *transitions);
    Admission tryAdmit(Random &random, std::vector<BreakerTransition> *transitions);
    // An admitted trial that was never sent (the request went elsewhere): frees its slot.
    void releaseTrial();
    // Whether tryAdmit() in HALF_OPEN would surely admit a trial now: a free slot (TrialCalls), or an
    // overdue trial (TrafficShare; its random share is not counted on). No side effects.
    bool trialAvailable() const;
    void onResult(BreakerResult result, bool wasTrial, std::vector<BreakerTransition> *transitions);

    // Another instance of the fleet tripped or re-opened this channel's breaker: open here too until
    // `until` (its deadline, on this clock), without a trip of its own, so the open duration's growth
    // stays with the instance that saw the failures. An OPEN breaker keeps the later deadline. False
    // when nothing changed.
    bool adoptOpen(Clock::TimePoint until, QString reason, std::vector<BreakerTransition> *transitions);
    // Another instance's trials proved the channel recovered: closed here too, as after trials of its own.
    bool adoptClosed(QString reason, std::vector<BreakerTransition> *transitions);

    Clock::TimePoint openUntil() const { return m_openUntil; }
    Clock::Duration currentOpenDuration() const { return m_currentOpenDuration; }
    int consecutiveFailures() const { return m_consecutiveFailures; }
    int trialsInFlight() const { return m_trialsInFlight; }
    const BreakerConfig &config() const { return m_config; }
    // A new config (a dialog saved) keeps the state; the new thresholds apply from now on.
    void setConfig(const BreakerConfig &config);
    Stats stats() const { return m_stats; }

private:
    struct RateBucket {
        std::int64_t second = INT64_MIN;
        int calls = 0;
        int failures = 0;
    };
    void transition(BreakerState to, QString reason, std::vector<BreakerTransition> *transitions);
    void trip(QString reason, std::vector<BreakerTransition> *transitions);
    void close(QString reason, std::vector<BreakerTransition> *transitions);
    void countInRateWindow(bool failure);
    void rateWindowTotals(int *calls, int *failures) const;
    void resetRateWindow();
    bool trialOverdue() const;

    const Clock &m_clock;
    BreakerConfig m_config;
    BreakerState m_state = BreakerState::Closed;
    int m_consecutiveFailures = 0;
    int m_consecutiveSuccesses = 0; // in HALF_OPEN
    int m_trialsInFlight = 0;
    int m_tripsSinceClose = 0;
    Clock::TimePoint m_openUntil{};
    Clock::TimePoint m_lastTrialAdmittedAt{};
    Clock::Duration m_currentOpenDuration{};
    std::vector<RateBucket> m_rate;
    Stats m_stats;
};

} // namespace sb
