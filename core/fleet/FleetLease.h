#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

#include <chrono>
#include <functional>

namespace sb {

class RedisConnection;

// A short lease one instance of the fleet holds at a time: the right to send a recovering
// channel's half-open trials, so N instances do not each send their own to a provider that is
// just coming back. A lease is a key set only if absent, with an expiry, so an instance that dies
// holding it frees it on its own; release deletes it only while it is still this instance's (one
// small script, so a lease that expired and went to another instance is not taken from it).
class FleetLease : public QObject {
public:
    enum class Result { Held, HeldElsewhere, Unknown };

    FleetLease(RedisConnection &redis, QByteArray prefix, QString instance, QObject *parent = nullptr);

    // Held when this instance has it now (newly, or already its own: the expiry is renewed);
    // HeldElsewhere when another instance has it; Unknown when Redis could not be asked (the
    // caller then goes on alone, as an instance without a fleet would).
    void acquire(const QString &name, std::chrono::milliseconds duration, std::function<void(Result)> done);
    void release(const QString &name);

private:
    QByteArray key(const QString &name) const { return m_prefix + "lease:" + name.toUtf8(); }

    RedisConnection &m_redis;
    const QByteArray m_prefix;
    const QByteArray m_instance;
};

} // namespace sb
