#include "telemetry/Histogram.h"

#include <algorithm>
#include <cmath>

namespace sb {

const std::vector<double> &Histogram::latencyBounds()
{
    static const std::vector<double> bounds{0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60};
    return bounds;
}

Histogram::Histogram(std::vector<double> upperBounds)
    : m_bounds(std::move(upperBounds)), m_buckets(new std::atomic<std::uint64_t>[m_bounds.size() + 1])
{
    for (std::size_t i = 0; i <= m_bounds.size(); ++i)
        m_buckets[i].store(0, std::memory_order_relaxed);
}

void Histogram::recordSeconds(double seconds)
{
    if (!(seconds >= 0.0)) // negative or NaN: a clock step; nothing sensible to record
        return;
    // Prometheus buckets are "less than or equal": the first bound >= the value.
    const auto it = std::lower_bound(m_bounds.begin(), m_bounds.end(), seconds);
    const auto index = static_cast<std::size_t>(it - m_bounds.begin());
    m_buckets[index].fetch_add(1, std::memory_order_relaxed);
    m_sumMicros.fetch_add(static_cast<std::uint64_t>(std::llround(seconds * 1e6)), std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const
{
    Snapshot s;
    s.upperBounds = m_bounds;
    s.cumulative.reserve(m_bounds.size() + 1);
    std::uint64_t running = 0;
    for (std::size_t i = 0; i <= m_bounds.size(); ++i) {
        running += m_buckets[i].load(std::memory_order_relaxed);
        s.cumulative.push_back(running);
    }
    // The count is the +Inf bucket by definition; a record racing this read must not make them
    // disagree, so the count is taken from the buckets.
    s.count = running;
    s.sumSeconds = double(m_sumMicros.load(std::memory_order_relaxed)) / 1e6;
    return s;
}

} // namespace sb
