#pragma once

#include "common/Clock.h"
#include "model/Outcome.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

namespace sb {

// Latency histogram with logarithmic bins: bin 0 holds < 1 ms, bin i (1..63) holds
// [1.2^(i-1), 1.2^i) ms, the last bin everything from ~81 s up. Quantiles are read from the
// cumulative counts (never by sorting samples), with a relative error of at most the 20 % bin width.
class LatencyHistogram {
public:
    static constexpr int BinCount = 64;
    static int binFor(Clock::Duration latency);
    static double lowerBoundMillis(int bin);
    static double upperBoundMillis(int bin);

    void add(int bin, std::uint64_t count) { m_bins[static_cast<std::size_t>(bin)] += count; m_count += count; }
    std::uint64_t count() const { return m_count; }
    // q in [0, 1]; 0 when empty. Interpolates linearly inside the bin that holds the quantile.
    double quantileMillis(double q) const;

private:
    std::array<std::uint64_t, BinCount> m_bins{};
    std::uint64_t m_count = 0;
};

// Totals over the last `span` seconds of a SlidingWindow.
struct WindowSnapshot {
    std::chrono::seconds span{0};
    std::uint64_t calls = 0;    // every recorded call, heartbeat probes included
    std::uint64_t failures = 0; // channel failures (Outcome::isChannelFailure)
    std::uint64_t probes = 0;   // of which heartbeat probes
    std::array<std::uint64_t, OutcomeKindCount> byKind{};
    std::uint64_t latencySamples = 0;
    double latencyP50Ms = 0, latencyP95Ms = 0, latencyP99Ms = 0;
    std::uint64_t ttftSamples = 0;
    double ttftP50Ms = 0, ttftP95Ms = 0, ttftP99Ms = 0;

    double errorRate() const { return calls ? double(failures) / double(calls) : 0.0; }
    std::uint64_t count(OutcomeKind kind) const { return byKind[static_cast<std::size_t>(kind)]; }
};

// Per-second buckets in a ring, `capacity` seconds long. record() is O(1) and lock-free except
// once per bucket per second (the bucket's reset); snapshot(span) is O(span) buckets, so one ring of
// 300 s serves the 5 s breaker window, the 30 s fast signal and the 5 min score window alike.
// Thread-safe: any number of recording threads and snapshot readers.
class SlidingWindow {
public:
    explicit SlidingWindow(std::chrono::seconds capacity = std::chrono::seconds(300));
    ~SlidingWindow();
    SlidingWindow(const SlidingWindow &) = delete;
    SlidingWindow &operator=(const SlidingWindow &) = delete;

    // latency/ttft are added to the histograms only when given (successes; probes pass none).
    void record(Clock::TimePoint at, OutcomeKind kind, std::optional<Clock::Duration> latency = std::nullopt,
                std::optional<Clock::Duration> ttft = std::nullopt, bool probe = false);

    // The last `span` seconds up to and including the current one; span is capped at capacity.
    WindowSnapshot snapshot(Clock::TimePoint now, std::chrono::seconds span) const;
    // Calls and failures only (no histograms): cheap enough for the hot path.
    WindowSnapshot counts(Clock::TimePoint now, std::chrono::seconds span) const;

    std::chrono::seconds capacity() const { return std::chrono::seconds(m_size); }
    // Time of the last record that was not a heartbeat probe, or nullopt when there was none.
    std::optional<Clock::TimePoint> lastRecordAt() const;

private:
    struct Bucket;
    Bucket &bucketFor(std::int64_t second);
    WindowSnapshot collect(Clock::TimePoint now, std::chrono::seconds span, bool histograms) const;

    const int m_size;
    std::unique_ptr<Bucket[]> m_buckets;
    std::mutex m_resetMutex; // taken only to reset a bucket that belongs to an old second
    std::atomic<std::int64_t> m_lastRecordNanos{INT64_MIN};
};

inline std::int64_t secondOf(Clock::TimePoint t)
{
    const auto ns = t.time_since_epoch().count();
    return ns >= 0 ? ns / 1'000'000'000 : (ns - 999'999'999) / 1'000'000'000;
}

} // namespace sb
