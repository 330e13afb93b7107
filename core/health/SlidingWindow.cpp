#include "health/SlidingWindow.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sb {

namespace {
constexpr double kGrowth = 1.2;
const double kLogGrowth = std::log(kGrowth);
} // namespace

int LatencyHistogram::binFor(Clock::Duration latency)
{
    const double ms = toMillis(latency);
    if (!(ms >= 1.0))
        return 0;
    const int bin = 1 + static_cast<int>(std::log(ms) / kLogGrowth);
    return std::min(bin, BinCount - 1);
}

double LatencyHistogram::lowerBoundMillis(int bin)
{
    return bin <= 0 ? 0.0 : std::pow(kGrowth, bin - 1);
}

double LatencyHistogram::upperBoundMillis(int bin)
{
    return bin <= 0 ? 1.0 : std::pow(kGrowth, bin);
}

double LatencyHistogram::quantileMillis(double q) const
{
    if (m_count == 0)
        return 0.0;
    q = std::clamp(q, 0.0, 1.0);
    // The rank of the quantile sample, 1-based; at least the first sample.
    const double rank = std::max(1.0, q * double(m_count));
    std::uint64_t cumulative = 0;
    for (int i = 0; i < BinCount; ++i) {
        const auto inBin = m_bins[static_cast<std::size_t>(i)];
        if (inBin == 0)
            continue;
        if (double(cumulative + inBin) >= rank) {
            const double within = (rank - double(cumulative)) / double(inBin);
            const double lo = lowerBoundMillis(i), hi = upperBoundMillis(i);
            return lo + (hi - lo) * within;
        }
        cumulative += inBin;
    }
    return upperBoundMillis(BinCount - 1);
}

struct SlidingWindow::Bucket {
    std::atomic<std::int64_t> second{INT64_MIN};
    std::atomic<std::uint32_t> calls{0};
    std::atomic<std::uint32_t> failures{0};
    std::atomic<std::uint32_t> probes{0};
    std::array<std::atomic<std::uint32_t>, OutcomeKindCount> byKind{};
    std::atomic<std::uint32_t> latencySamples{0};
    std::atomic<std::uint32_t> ttftSamples{0};
    // Which bins are non-zero, so a snapshot merges only those (a bucket usually holds a few).
    std::atomic<std::uint64_t> latencyUsed{0};
    std::atomic<std::uint64_t> ttftUsed{0};
    std::array<std::atomic<std::uint32_t>, LatencyHistogram::BinCount> latency{};
    std::array<std::atomic<std::uint32_t>, LatencyHistogram::BinCount> ttft{};

    void clear()
    {
        calls.store(0, std::memory_order_relaxed);
        failures.store(0, std::memory_order_relaxed);
        probes.store(0, std::memory_order_relaxed);
        for (auto &k : byKind)
            k.store(0, std::memory_order_relaxed);
        latencySamples.store(0, std::memory_order_relaxed);
        ttftSamples.store(0, std::memory_order_relaxed);
        latencyUsed.store(0, std::memory_order_relaxed);
        ttftUsed.store(0, std::memory_order_relaxed);
        for (auto &b : latency)
            b.store(0, std::memory_order_relaxed);
        for (auto &b : ttft)
            b.store(0, std::memory_order_relaxed);
    }
};

SlidingWindow::SlidingWindow(std::chrono::seconds capacity)
    : m_size(static_cast<int>(std::max<std::int64_t>(1, capacity.count())))
    , m_buckets(std::make_unique<Bucket[]>(static_cast<std::size_t>(m_size)))
{
}

SlidingWindow::~SlidingWindow() = default;

SlidingWindow::Bucket &SlidingWindow::bucketFor(std::int64_t second)
{
    const auto index = static_cast<std::size_t>(((second % m_size) + m_size) % m_size);
    Bucket &b = m_buckets[index];
    if (b.second.load(std::memory_order_acquire) != second) {
        // The bucket still holds a second that left the window: clear it, once, before anyone adds.
        std::lock_guard lock(m_resetMutex);
        if (b.second.load(std::memory_order_relaxed) != second) {
            b.clear();
            b.second.store(second, std::memory_order_release);
        }
    }
    return b;
}

void SlidingWindow::record(Clock::TimePoint at, OutcomeKind kind, std::optional<Clock::Duration> latency,
                           std::optional<Clock::Duration> ttft, bool probe)
{
    Bucket &b = bucketFor(secondOf(at));
    constexpr auto relaxed = std::memory_order_relaxed;
    b.calls.fetch_add(1, relaxed);
    Outcome o;
    o.kind = kind;
    if (o.isChannelFailure())
        b.failures.fetch_add(1, relaxed);
    if (probe)
        b.probes.fetch_add(1, relaxed);
    b.byKind[static_cast<std::size_t>(kind)].fetch_add(1, relaxed);
    if (latency) {
        const int bin = LatencyHistogram::binFor(*latency);
        b.latency[static_cast<std::size_t>(bin)].fetch_add(1, relaxed);
        b.latencyUsed.fetch_or(std::uint64_t(1) << bin, relaxed);
        b.latencySamples.fetch_add(1, relaxed);
    }
    if (ttft) {
        const int bin = LatencyHistogram::binFor(*ttft);
        b.ttft[static_cast<std::size_t>(bin)].fetch_add(1, relaxed);
        b.ttftUsed.fetch_or(std::uint64_t(1) << bin, relaxed);
        b.ttftSamples.fetch_add(1, relaxed);
    }
    if (probe)
        return; // lastRecordAt() tells whether real traffic is flowing; heartbeats are not traffic
    const auto nanos = at.time_since_epoch().count();
    auto last = m_lastRecordNanos.load(relaxed);
    while (nanos > last && !m_lastRecordNanos.compare_exchange_weak(last, nanos, relaxed)) {
    }
}

WindowSnapshot SlidingWindow::snapshot(Clock::TimePoint now, std::chrono::seconds span) const
{
    return collect(now, span, true);
}

WindowSnapshot SlidingWindow::counts(Clock::TimePoint now, std::chrono::seconds span) const
{
    return collect(now, span, false);
}

WindowSnapshot SlidingWindow::collect(Clock::TimePoint now, std::chrono::seconds span, bool histograms) const
{
    WindowSnapshot s;
    const auto n = static_cast<int>(std::clamp<std::int64_t>(span.count(), 1, m_size));
    s.span = std::chrono::seconds(n);
    const std::int64_t current = secondOf(now);
    LatencyHistogram latency, ttft;
    constexpr auto relaxed = std::memory_order_relaxed;
    for (std::int64_t sec = current - n + 1; sec <= current; ++sec) {
        const auto index = static_cast<std::size_t>(((sec % m_size) + m_size) % m_size);
        const Bucket &b = m_buckets[index];
        if (b.second.load(std::memory_order_acquire) != sec)
            continue;
        const auto calls = b.calls.load(relaxed);
        if (calls == 0)
            continue; // most seconds of a quiet channel are empty: skip the rest of the bucket
        s.calls += calls;
        s.failures += b.failures.load(relaxed);
        s.probes += b.probes.load(relaxed);
        for (std::size_t k = 0; k < s.byKind.size(); ++k)
            s.byKind[k] += b.byKind[k].load(relaxed);
        if (!histograms)
            continue;
        for (auto used = b.latencyUsed.load(relaxed); used; used &= used - 1) {
            const int i = std::countr_zero(used);
            if (const auto c = b.latency[static_cast<std::size_t>(i)].load(relaxed))
                latency.add(i, c);
        }
        for (auto used = b.ttftUsed.load(relaxed); used; used &= used - 1) {
            const int i = std::countr_zero(used);
            if (const auto c = b.ttft[static_cast<std::size_t>(i)].load(relaxed))
                ttft.add(i, c);
        }
    }
    if (histograms) {
        s.latencySamples = latency.count();
        s.latencyP50Ms = latency.quantileMillis(0.50);
        s.latencyP95Ms = latency.quantileMillis(0.95);
        s.latencyP99Ms = latency.quantileMillis(0.99);
        s.ttftSamples = ttft.count();
        s.ttftP50Ms = ttft.quantileMillis(0.50);
        s.ttftP95Ms = ttft.quantileMillis(0.95);
        s.ttftP99Ms = ttft.quantileMillis(0.99);
    }
    return s;
}

std::optional<Clock::TimePoint> SlidingWindow::lastRecordAt() const
{
    const auto nanos = m_lastRecordNanos.load(std::memory_order_relaxed);
    if (nanos == INT64_MIN)
        return std::nullopt;
    return Clock::TimePoint(Clock::Duration(nanos));
}

} // namespace sb
