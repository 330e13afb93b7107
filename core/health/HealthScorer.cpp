#include "health/HealthScorer.h"

#include <algorithm>

namespace sb {

namespace {
double flooredRate(std::uint64_t failures, std::uint64_t calls, int floor)
{
    const double denominator = std::max<double>(double(calls), double(std::max(1, floor)));
    return std::clamp(double(failures) / denominator, 0.0, 1.0);
}

constexpr double kFollowDownSeconds = 60.0;  // improvements are adopted within about a minute
constexpr double kFollowUpSeconds = 1800.0;  // degradations only over about half an hour
constexpr double kBaselineMaxErrorRate = 0.05;
} // namespace

HealthScorer::HealthScorer(const HealthConfig &config)
    : m_config(config)
{
}

void HealthScorer::updateBaseline(const WindowSnapshot &slow, Clock::Duration elapsed)
{
    if (slow.latencySamples < static_cast<std::uint64_t>(std::max(1, m_config.minVolume)) || slow.latencyP95Ms <= 0)
        return;
    if (slow.errorRate() >= kBaselineMaxErrorRate)
        return;
    if (m_baselineP95Ms <= 0) {
        m_baselineP95Ms = slow.latencyP95Ms;
        return;
    }
    const double tau = slow.latencyP95Ms < m_baselineP95Ms ? kFollowDownSeconds : kFollowUpSeconds;
    const double alpha = std::clamp(toSeconds(elapsed) / tau, 0.0, 1.0);
    m_baselineP95Ms += alpha * (slow.latencyP95Ms - m_baselineP95Ms);
}

HealthScore HealthScorer::evaluate(const WindowSnapshot &slow, const WindowSnapshot &fast, const WindowSnapshot &recent,
                                   Clock::Duration elapsed)
{
    HealthScore h;
    const int minVolume = std::max(1, m_config.minVolume);
    h.slowErrorRate = flooredRate(slow.failures, slow.calls, minVolume);
    h.fastErrorRate = std::max(flooredRate(fast.failures, fast.calls, FastMinVolume),
                               flooredRate(recent.failures, recent.calls, BurstMinVolume));

    // Deviation is measured against the baseline as it stood before this window's data is folded in.
    if (slow.failures > 0 && slow.failures >= slow.calls) {
        // Not one call answered: no latency to measure, and "normal latency" would be a lie worth 30
        // points. The worst, with the same confidence floor as the error rate.
        h.latencyPenalty = std::min(1.0, double(slow.failures) / minVolume);
    } else if (m_baselineP95Ms > 0 && slow.latencySamples > 0) {
        const double deviation = (slow.latencyP95Ms / m_baselineP95Ms - 1.0) / (LatencyToleranceFactor - 1.0);
        const double confidence = std::min(1.0, double(slow.latencySamples) / minVolume);
        h.latencyPenalty = std::clamp(deviation, 0.0, 1.0) * confidence;
    }
    updateBaseline(slow, elapsed);
    h.baselineP95Ms = m_baselineP95Ms;

    const double we = std::max(0.0, m_config.errorWeight), wl = std::max(0.0, m_config.latencyWeight);
    const double weights = we + wl > 0 ? we + wl : 1.0;
    const double base = 100.0 * (we * (1.0 - h.slowErrorRate) + wl * (1.0 - h.latencyPenalty)) / weights;
    h.score = std::clamp(std::min(base, 100.0 * (1.0 - h.fastErrorRate)), 0.0, 100.0);
    return h;
}

} // namespace sb
