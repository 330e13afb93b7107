#include "fleet/FleetLease.h"

#include "fleet/RedisConnection.h"

namespace sb {

namespace {

// KEYS[1] the lease, ARGV[1] this instance, ARGV[2] milliseconds. 1 when it is ours now, 0 when
// another instance holds it.
const QByteArray kAcquire = R"lua(
local holder = redis.call('GET', KEYS[1])
if holder == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
)lua";

const QByteArray kRelease = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
)lua";

} // namespace

FleetLease::FleetLease(RedisConnection &redis, QByteArray prefix, QString instance, QObject *parent)
    : QObject(parent), m_redis(redis), m_prefix(std::move(prefix)), m_instance(instance.toUtf8())
{
}

void FleetLease::acquire(const QString &name, std::chrono::milliseconds duration, std::function<void(Result)> done)
{
    // EVAL rather than EVALSHA: a lease is taken a few times per recovery, not per request, and
    // Redis caches the compiled script by its text anyway.
    const bool sent = m_redis.command({"EVAL", kAcquire, "1", key(name), m_instance, QByteArray::number(qint64(duration.count()))},
                                      [done](const RedisReply &reply) {
                                          if (reply.type != RedisReply::Type::Integer)
                                              done(Result::Unknown);
                                          else
                                              done(reply.integer == 1 ? Result::Held : Result::HeldElsewhere);
                                      });
    if (!sent)
        done(Result::Unknown);
}

void FleetLease::release(const QString &name)
{
    m_redis.command({"EVAL", kRelease, "1", key(name), m_instance});
}

} // namespace sb
