#include "fleet/FleetAllowance.h"

#include "fleet/RedisConnection.h"

#include <algorithm>
#include <cmath>

namespace sb {

namespace {

// KEYS[1] the bucket; ARGV capacity, tokens per millisecond, tokens wanted. Redis's own clock,
// so instances whose clocks differ still share one bucket. Returns {granted, ms until the next token}.
const QByteArray kTakeScript = R"lua(
local capacity = tonumber(ARGV[1])
local perMs = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * perMs)
local granted = math.min(want, math.floor(tokens))
tokens = tokens - granted
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / perMs) + 60000)
local wait = 0
if granted < want then
  wait = math.ceil((1 - (tokens - math.floor(tokens))) / perMs)
end
return {granted, wait}
)lua";

// A draw can never get more than the bucket holds; a chunk larger than that would make every draw
// look short and wait, while the bucket overflowed.
FleetAllowance::Limit withChunkWithinBurst(FleetAllowance::Limit limit)
{
    limit.burst = std::max(1, limit.burst);
    limit.chunk = std::clamp(limit.chunk, 1, limit.burst);
    return limit;
}

} // namespace

int FleetAllowance::chunkFor(double perMinute, int instances, double accuracy)
{
    // Unspent chunks lower what the fleet admits by up to instances × chunk; keep that within
    // the accuracy of a minute's worth.
    const double share = perMinute * accuracy / double(std::max(1, instances));
    return std::clamp(int(std::floor(share)), 1, 1000);
}

FleetAllowance::FleetAllowance(const Clock &clock, Random &random, RedisConnection &redis, Limit limit, QObject *parent)
    : QObject(parent), m_clock(clock), m_random(random), m_redis(redis), m_limit(withChunkWithinBurst(std::move(limit)))
{
    m_retry = m_clock.createTimer([this] { draw(); });
}

FleetAllowance::~FleetAllowance() = default;

bool FleetAllowance::tryTake(int amount)
{
    amount = std::max(1, amount);
    int held = m_held.load(std::memory_order_relaxed);
    while (held >= std::min(amount, m_limit.chunk)) {
        if (m_held.compare_exchange_weak(held, held - amount, std::memory_order_relaxed)) {
            m_taken.fetch_add(std::uint64_t(amount), std::memory_order_relaxed);
            if (held - amount <= m_limit.chunk / 2)
                requestTopUp();
            return true;
        }
    }
    m_refused.fetch_add(1, std::memory_order_relaxed);
    requestTopUp();
    return false;
}

void FleetAllowance::giveBack(int amount)
{
    amount = std::max(1, amount);
    m_held.fetch_add(amount, std::memory_order_relaxed);
    m_taken.fetch_sub(std::uint64_t(amount), std::memory_order_relaxed);
}

void FleetAllowance::requestTopUp()
{
    if (m_topUpQueued.exchange(true, std::memory_order_acq_rel))
        return;
    QMetaObject::invokeMethod(this, [this] {
        m_topUpQueued.store(false, std::memory_order_release);
        topUp();
    }, Qt::QueuedConnection);
}

void FleetAllowance::topUp()
{
    if (m_drawing || m_retry->isActive() || held() > m_limit.chunk / 2)
        return;
    draw();
}

void FleetAllowance::draw()
{
    if (m_drawing || !m_redis.isReady())
        return;
    if (m_sha.isEmpty()) {
        loadScriptThenDraw();
        return;
    }
    const double perMs = m_limit.perMinute / 60000.0;
    m_drawing = m_redis.command({"EVALSHA", m_sha, "1", m_limit.key, QByteArray::number(m_limit.burst),
                                 QByteArray::number(perMs, 'g', 17), QByteArray::number(m_limit.chunk)},
                                [this](const RedisReply &reply) { onDrawn(reply); });
    if (m_drawing) {
        m_draws.fetch_add(1, std::memory_order_relaxed);
        m_drawSentNanos.store(m_clock.now().time_since_epoch().count(), std::memory_order_relaxed);
    }
}

bool FleetAllowance::answering() const
{
    const std::int64_t sent = m_drawSentNanos.load(std::memory_order_relaxed);
    return sent == 0 || m_clock.now().time_since_epoch() - Clock::Duration(sent) < kAnswerWithin;
}

void FleetAllowance::loadScriptThenDraw()
{
    m_drawing = m_redis.command({"SCRIPT", "LOAD", kTakeScript}, [this](const RedisReply &reply) {
        m_drawing = false;
        if (reply.type != RedisReply::Type::String)
            return; // Redis went away; the owner calls topUp() when it is back
        m_scriptLoads.fetch_add(1, std::memory_order_relaxed);
        m_sha = reply.text;
        draw();
    });
}

void FleetAllowance::onDrawn(const RedisReply &reply)
{
    m_drawing = false;
    m_drawSentNanos.store(0, std::memory_order_relaxed);
    if (reply.isError()) {
        // A restarted Redis has forgotten the script: load it again and draw once more.
        if (reply.text.startsWith("NOSCRIPT")) {
            m_sha.clear();
            draw();
        }
        return;
    }
    if (reply.type != RedisReply::Type::Array || reply.elements.size() != 2)
        return;
    m_heard.store(true, std::memory_order_release);
    const int granted = int(reply.elements[0].integer);
    const long long waitMs = reply.elements[1].integer;
    m_granted.fetch_add(std::uint64_t(std::max(0, granted)), std::memory_order_relaxed);
    const int held = m_held.fetch_add(granted, std::memory_order_relaxed) + granted;
    if (granted < m_limit.chunk && waitMs > 0) {
        // The bucket is short: the fleet runs at its limit. Ask again once half a chunk can have
        // come back rather than for every token, so a saturated fleet does not run the script
        // per token on every instance; what the wait leaves in the bucket is drawn next time.
        const double perMs = m_limit.perMinute / 60000.0;
        const auto halfChunk = static_cast<long long>(std::ceil(double(std::max(1, m_limit.chunk / 2)) / perMs));
        const double spread = m_random.uniform(1.0, 1.5);
        m_retry->start(std::chrono::milliseconds(static_cast<long long>(double(std::max(waitMs, halfChunk)) * spread)));
    }
    else if (held <= m_limit.chunk / 2)
        draw();
}

FleetAllowance::Stats FleetAllowance::stats() const
{
    Stats s;
    s.draws = m_draws.load(std::memory_order_relaxed);
    s.granted = m_granted.load(std::memory_order_relaxed);
    s.scriptLoads = m_scriptLoads.load(std::memory_order_relaxed);
    s.taken = m_taken.load(std::memory_order_relaxed);
    s.refused = m_refused.load(std::memory_order_relaxed);
    return s;
}

} // namespace sb
