#pragma once

#include "control/FleetStatus.h"
#include "fleet/FleetRoster.h"
#include "fleet/RedisAddress.h"
#include "health/HealthEvent.h"
#include "model/EngineConfig.h"

#include <QJsonObject>
#include <QObject>

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace sb {

class EngineContext;
struct FleetChange;
class FleetLease;
class FleetShares;
class RedisConnection;
class Timer;

// This instance's place in a fleet (FleetConfig): it publishes the health changes it sees, adopts
// the others', draws its share of every provider limit, adds its spend to the fleet's and
// announces itself, all through the fleet's Redis. It lives on the control thread; the request
// path only ever reads local state, which this keeps in step (ARCHITECTURE.md, "A fleet").
//
// Redis is not needed to serve: when it goes away the shares hand back to the local limits within
// a second (FleetShares), a warning event says so, and both connections come back with backoff
// (250 ms doubling to 5 s); then the state this instance holds is published again and the fleet's
// is read in, so both sides converge.
class FleetLink : public QObject {
public:
    using Status = FleetStatus;

    // `warn` gets this link's own events (HealthEvent::Type::Fleet) on the control thread.
    FleetLink(EngineContext &context, const FleetConfig &config, QString instanceId, EventSink warn, QObject *parent = nullptr);
    ~FleetLink() override;

    // Control thread: connects, and keeps connecting until stop().
    void start();
    void stop();
    // Any thread: a health event of this instance's engine; what the fleet shares is published.
    // At most kMaxQueued wait for the control thread; beyond that the oldest are dropped (and
    // counted): the request path never waits on the fleet.
    void noteLocal(const HealthEvent &event);
    static constexpr std::size_t kMaxQueued = 1024;
    // Any thread: a budget alert is raised by one instance of the fleet. True when this link took
    // the event and calls `deliver` (on the control thread) only if this instance won the claim,
    // or could not ask; false when the event is not a budget alert.
    bool holdBudgetAlert(const HealthEvent &event, std::function<void(const HealthEvent &)> deliver);
    // Control thread: the engine runs on a new configuration (limits, keys, channel names).
    void configChanged();
    // Control thread: /admin/fleet's body, once Redis has listed the instances.
    void describe(std::function<void(QJsonObject)> done);
    Status status() const; // any thread

    static QString defaultInstanceId(quint16 port);
    // The configuration as instances of one fleet should share it: no secrets, nothing that is
    // each instance's own (its address, its fleet settings). The first 12 hex digits of a SHA-256.
    static QString configHash(const EngineConfig &config);

private:
    void connectBoth();
    void openConnection(RedisConnection *connection);
    void onReady();
    void join(); // subscribed and both connections ready: share state from now on
    void onLost(RedisConnection *connection, const QString &reason);
    void scheduleReconnect(RedisConnection *connection);
    void drainQueue();
    void publish(const FleetChange &change);
    void onMessage(const QByteArray &message);
    void adopt(const FleetChange &change);
    void readFleetState(QByteArray cursor);
    void republishLocalState();
    void coordinateTrial(const HealthEvent &event);
    void announce();
    FleetInstance self();
    void warnEvent(const QString &to, const QString &reason);
    QByteArray stateKeyPrefix() const { return m_prefix + "state:"; }

    EngineContext &m_context;
    QString m_addressError; // fleet.redis_url is not a Redis URL (before m_address, which fills it)
    RedisAddress m_address;
    const QString m_fleet;
    const QByteArray m_prefix;
    const QString m_instance;
    const EventSink m_warn;
    const std::int64_t m_startedWallMs;
    QString m_configHash;

    std::unique_ptr<RedisConnection> m_commands;   // every command
    std::unique_ptr<RedisConnection> m_subscriber; // the changes channel (a subscribed connection takes no commands)
    std::unique_ptr<FleetRoster> m_roster;
    std::unique_ptr<FleetLease> m_lease;
    std::unique_ptr<FleetShares> m_shares;
    std::unique_ptr<Timer> m_announceTimer;
    std::unique_ptr<Timer> m_reconnectCommands;
    std::unique_ptr<Timer> m_reconnectSubscriber;
    int m_commandsFailures = 0;
    int m_subscriberFailures = 0;
    bool m_running = false;
    bool m_connected = false; // both connections ready, subscribed
    bool m_subscribing = false; // SUBSCRIBE sent, not yet confirmed
    bool m_everConnected = false;

    mutable std::mutex m_mutex; // guards the queue and m_status
    std::deque<HealthEvent> m_queue;
    bool m_drainQueued = false;
    Status m_status;
};

} // namespace sb
