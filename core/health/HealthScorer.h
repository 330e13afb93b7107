#pragma once

#include "common/Clock.h"
#include "health/SlidingWindow.h"
#include "model/EngineConfig.h"

namespace sb {

// The parts of one evaluation, so the console can show why a score is what it is.
struct HealthScore {
    double score = 100.0;          // 0–100
    double slowErrorRate = 0.0;    // E: volume-floored error rate over 5 min
    double fastErrorRate = 0.0;    // F: volume-floored error rate, max of the 30 s and 5 s windows
    double latencyPenalty = 0.0;   // L: 0 at or below the baseline P95, 1 at 3× the baseline or more
    double baselineP95Ms = 0.0;    // the channel's own latency baseline (0 = not learned yet)
};

// Health score of one channel, 0–100 (ARCHITECTURE.md, "Defaults and why"). The formula, exactly:
//
//   E = failures_5min / max(calls_5min, minVolume)                 (minVolume = HealthConfig::minVolume, 10)
//   L = clamp((P95_5min / baseline − 1) / 2, 0, 1) × min(1, latencySamples_5min / minVolume)
//       or, when no call in the 5 min succeeded, min(1, failures_5min / minVolume)
//   base = 100 × (errorWeight × (1 − E) + latencyWeight × (1 − L)) / (errorWeight + latencyWeight)
//                                                                   (weights 0.70 / 0.30)
//   F = max(failures_30s / max(calls_30s, 2), failures_5s / max(calls_5s, 3))
//   score = min(base, 100 × (1 − F))
//
// So over 5 minutes errors weigh 70 % and latency 30 %, as the settings say: 40 % failures with normal
// latency is 72 (a channel that is slow as well loses up to 30 more). The fast cap F is what makes
// errors that are happening now cost their full share: while the last 30 s fail at the same rate the
// score is at most 100 × (1 − F).
//
// Why each piece:
// - The max(calls, floor) denominators are the minimum volume: one failure on an idle channel moves
//   E by at most 1/10 (the score by at most 10 points). The 30 s floor of 2 is what 10 s heartbeats
//   always have in a 30 s window (a probe that has just left it may not have been replaced yet), so
//   an OPEN channel whose probes fail stays at 0 instead of flickering to 33 and resetting the
//   3-minute ejection clock; with that heartbeat evidence a single stray error caps an idle channel
//   at 67, and even with no evidence at all at 50 (still not degraded).
// - Heartbeat probe results are recorded in the same windows and count as calls: they are the evidence
//   for idle and OPEN channels.
// - The fast cap F is what makes a sudden full outage visible in seconds: the 5-minute error rate of a
//   busy channel barely moves in 10 s, but once the 5 s window holds only failures F = 1 and the score
//   is 0 (a 5 s blip does not eject: ejection needs 3 minutes below 30).
// - Latency is only measured on calls that succeed, so a channel that answers nothing gets the whole
//   latency penalty instead of 30 points for "normal latency": its base is then 0, and it is ejected by
//   the 3-minute rule even when its heartbeats are too sparse for the 30 s window's floor (F alone
//   would leave it at 30, not under). The penalty grows with the failures up to minVolume, so one
//   stray error on an idle channel costs 3 points there, as it costs 7 in the error term.
// - The baseline is the channel's own P95, learned as an EWMA of the 5-minute P95 while that window is
//   healthy (≥ minVolume samples, error rate < 5 %): it follows improvements within about a minute
//   and degradations only over about 30 minutes, so a slow incident shows up as deviation instead of
//   becoming the new normal at once.
//
// Not thread-safe (holds the baseline); ChannelHealth calls it under its mutex from the control tick.
class HealthScorer {
public:
    static constexpr int FastMinVolume = 2;   // floor for the 30 s window
    static constexpr int BurstMinVolume = 3;  // floor for the 5 s window
    static constexpr double LatencyToleranceFactor = 3.0; // P95 at 3× the baseline costs the full 30 points

    explicit HealthScorer(const HealthConfig &config);

    // slow: 5 min window; fast: 30 s; recent: 5 s. elapsed: time since the previous evaluation
    // (drives the baseline's EWMA; zero leaves the baseline alone unless it is unset).
    HealthScore evaluate(const WindowSnapshot &slow, const WindowSnapshot &fast, const WindowSnapshot &recent,
                         Clock::Duration elapsed);

    double baselineP95Ms() const { return m_baselineP95Ms; }
    void setBaselineP95Ms(double ms) { m_baselineP95Ms = ms; }
    void setConfig(const HealthConfig &config) { m_config = config; }
    const HealthConfig &config() const { return m_config; }

private:
    void updateBaseline(const WindowSnapshot &slow, Clock::Duration elapsed);

    HealthConfig m_config;
    double m_baselineP95Ms = 0.0;
};

} // namespace sb
