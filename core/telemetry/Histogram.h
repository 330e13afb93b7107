#pragma once

#include <QtGlobal>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace sb {

// A Prometheus-style histogram that workers record into without a lock: one atomic per bucket, a
// count and a sum kept in microseconds (integer adds, so no compare-and-swap loop on a double).
// The bucket bounds are fixed at construction; record() is wait-free.
class Histogram {
public:
    struct Snapshot {
        std::vector<double> upperBounds;     // seconds, ascending, without +Inf
        std::vector<std::uint64_t> cumulative; // one per bound, then one for +Inf (== count)
        double sumSeconds = 0.0;
        std::uint64_t count = 0;
    };

    // Bounds for request latency and time to first token, in seconds: 25 ms to 60 s, roughly
    // ×2 apart, so both a local model's 30 ms TTFT and a 40 s reasoning answer land in a bucket.
    static const std::vector<double> &latencyBounds();

    explicit Histogram(std::vector<double> upperBounds = latencyBounds());

    void recordSeconds(double seconds);
    void recordMillis(qint64 millis) { recordSeconds(double(millis) / 1000.0); }
    Snapshot snapshot() const;

private:
    const std::vector<double> m_bounds;
    std::unique_ptr<std::atomic<std::uint64_t>[]> m_buckets; // per bucket, not cumulative; last is +Inf
    std::atomic<std::uint64_t> m_sumMicros{0};
};

} // namespace sb
