#pragma once

#include "common/Clock.h"
#include "common/Random.h"
#include "fleet/RedisReply.h"

#include <QByteArray>
#include <QObject>

#include <atomic>
#include <cstdint>
#include <memory>

namespace sb {

class RedisConnection;

// This instance's share of one fleet-wide rate limit (a provider's requests or tokens per minute).
// The limit itself is a token bucket in Redis, taken from by one Lua script (loaded once, called by
// its SHA), so every instance draws on the same bucket atomically. Each draw takes up to `chunk`
// tokens, which this instance then spends locally: tryTake() is an atomic decrement, with no
// round trip, and asks for the next chunk when half of one is left. The trade-off: the fleet never
// admits more than the bucket grants (the limit plus its burst, exactly), and may admit less by
// what instances hold unspent — at most instances × chunk tokens at a time, which is why a chunk
// is a small share of the limit (FleetAllowance::chunkFor). One draw is in flight at a time; when
// the bucket is short, the next one waits until half a chunk can have come back.
class FleetAllowance : public QObject {
public:
    struct Limit {
        QByteArray key;       // the bucket's Redis key
        double perMinute = 0; // the fleet's limit
        int burst = 1;        // the bucket's capacity
        int chunk = 1;        // tokens taken per draw (at most the burst)
    };
    struct Stats {
        std::uint64_t draws = 0;   // scripts run
        std::uint64_t granted = 0; // tokens Redis granted this instance
        std::uint64_t taken = 0;   // tokens spent by tryTake()
        std::uint64_t refused = 0; // tryTake() with nothing held
        std::uint64_t scriptLoads = 0;
    };

    // A chunk that keeps the fleet within `accuracy` (0.05 = 5 %) of a minute's limit, with what
    // `instances` hold unspent counted against it.
    static int chunkFor(double perMinute, int instances, double accuracy = 0.05);

    // `random` spreads the retries of instances that all found the bucket short, so that none of
    // them always comes just after another and never gets a grant.
    FleetAllowance(const Clock &clock, Random &random, RedisConnection &redis, Limit limit, QObject *parent = nullptr);
    ~FleetAllowance() override;

    // Any thread. True when the granted tokens held cover `amount`, or hold at least a whole chunk
    // (an amount larger than a chunk overdraws, repaid from the next grants, as a local bucket's
    // oversized request is); false asks for more (without waiting).
    bool tryTake(int amount = 1);
    // Any thread: tokens taken for a request that did not go after all.
    void giveBack(int amount);
    // Owner thread: draw now if below the low-water mark (on start, and when Redis is back).
    void topUp();

    int held() const { return m_held.load(std::memory_order_relaxed); }
    // Any thread: false while a draw has waited longer than kAnswerWithin for Redis (a DEBUG SLEEP,
    // a partition): the caller then decides on its own rather than refuse while Redis is stuck.
    bool answering() const;
    static constexpr std::chrono::milliseconds kAnswerWithin{1000};
    // Any thread: a draw has been answered, with a grant or without one (the fleet at its limit).
    bool heard() const { return m_heard.load(std::memory_order_acquire); }
    const QByteArray &key() const { return m_limit.key; }
    Stats stats() const; // any thread

private:
    void draw();
    void onDrawn(const RedisReply &reply);
    void loadScriptThenDraw();
    void requestTopUp();

    const Clock &m_clock;
    Random &m_random;
    RedisConnection &m_redis;
    const Limit m_limit;
    QByteArray m_sha; // owner thread
    bool m_drawing = false;
    std::unique_ptr<Timer> m_retry;
    std::atomic<int> m_held{0};
    std::atomic<bool> m_topUpQueued{false};
    std::atomic<bool> m_heard{false};
    std::atomic<std::int64_t> m_drawSentNanos{0}; // when the draw in flight went out; 0: none
    std::atomic<std::uint64_t> m_taken{0}, m_refused{0}, m_draws{0}, m_granted{0}, m_scriptLoads{0};
};

} // namespace sb
