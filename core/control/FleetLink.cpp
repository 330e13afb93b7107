#include "control/FleetLink.h"

#include "common/BuildInfo.h"
#include "control/FleetChanges.h"
#include "control/FleetShares.h"
#include "fleet/FleetChange.h"
#include "fleet/FleetLease.h"
#include "fleet/RedisConnection.h"
#include "model/ConfigJson.h"
#include "proxy/EngineContext.h"
#include "routing/RouteBudget.h"

#include <QCryptographicHash>
#include <QHostAddress>
#include <QHostInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QSysInfo>

#include <algorithm>

namespace sb {

namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(2);
constexpr auto kFirstBackoff = std::chrono::milliseconds(250);
constexpr auto kMaxBackoff = std::chrono::seconds(5);
// A recovering channel's trials belong to one instance for this long (renewed by nobody: the
// holder's verdict, closed or open again, reaches the others well before).
constexpr auto kTrialLease = std::chrono::seconds(10);
// Instances that defer to the lease holder look again after this.
constexpr auto kTrialDeferral = std::chrono::seconds(2);
// How long a state key outlives the change it holds, for instances that join later: an open
// circuit until it would turn half-open; ejection, drain and a disabled key for a day (their end is
// another change, which overwrites the key); a recovery for a minute (it only needs to outlive the
// "open" it replaces).
constexpr std::int64_t kLongStateMs = 24LL * 3600 * 1000;
constexpr std::int64_t kShortStateMs = 60LL * 1000;
// Each instance draws chunks sized for at least this many instances, so a fleet that grows to it
// stays within its limit's accuracy without resizing anything.
constexpr int kExpectedInstances = 4;

QByteArray keyPrefix(const QString &fleet)
{
    return "sb:" + fleet.toUtf8() + ':';
}

std::chrono::milliseconds backoff(int failures)
{
    auto wait = kFirstBackoff * (1 << std::min(failures, 5));
    return std::min<std::chrono::milliseconds>(wait, kMaxBackoff);
}

} // namespace

FleetLink::FleetLink(EngineContext &context, const FleetConfig &config, QString instanceId, EventSink warn, QObject *parent)
    : QObject(parent)
    , m_context(context)
    , m_address(RedisAddress::parse(config.redisUrl.trimmed(), &m_addressError))
    , m_fleet(config.name.trimmed().isEmpty() ? QStringLiteral("switchboard") : config.name.trimmed())
    , m_prefix(keyPrefix(m_fleet))
    , m_instance(std::move(instanceId))
    , m_warn(std::move(warn))
    , m_startedWallMs(context.clock().wallMillis())
{
    m_commands = std::make_unique<RedisConnection>(context.clock());
    m_subscriber = std::make_unique<RedisConnection>(context.clock());
    m_roster = std::make_unique<FleetRoster>(*m_commands, m_prefix);
    m_lease = std::make_unique<FleetLease>(*m_commands, m_prefix, m_instance);
    m_shares = std::make_unique<FleetShares>(context.clock(), context.random(), *m_commands, m_prefix, kExpectedInstances);
    for (RedisConnection *c : {m_commands.get(), m_subscriber.get()}) {
        connect(c, &RedisConnection::ready, this, [this] { onReady(); });
        connect(c, &RedisConnection::lost, this, [this, c](const QString &reason) { onLost(c, reason); });
    }
    m_status.fleet = m_fleet;
    m_status.instance = m_instance;
    m_status.redis = m_address.host.isEmpty() ? QString() : m_address.display();
}

FleetLink::~FleetLink()
{
    stop();
}

QString FleetLink::defaultInstanceId(quint16 port)
{
    return QStringLiteral("%1:%2").arg(QSysInfo::machineHostName()).arg(port);
}

QString FleetLink::configHash(const EngineConfig &config)
{
    QJsonObject json = exportConfigJson(config).json;
    QJsonObject settings = json.value(QStringLiteral("settings")).toObject();
    settings.remove(QStringLiteral("proxy"));
    settings.remove(QStringLiteral("fleet"));
    json.insert(QStringLiteral("settings"), settings);
    const QByteArray bytes = QJsonDocument(json).toJson(QJsonDocument::Compact);
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex().left(12));
}

void FleetLink::start()
{
    if (m_running)
        return;
    m_running = true;
    m_configHash = configHash(*m_context.config());
    m_shares->apply(*m_context.config(), m_context.router(), m_context.costMeter());
    const Clock &clock = m_context.clock();
    m_announceTimer = clock.createTimer([this] { announce(); }, TimerKind::Repeating);
    m_announceTimer->start(std::chrono::seconds(1));
    m_reconnectCommands = clock.createTimer([this] { openConnection(m_commands.get()); });
    m_reconnectSubscriber = clock.createTimer([this] { openConnection(m_subscriber.get()); });
    if (!m_addressError.isEmpty()) {
        const QString error = QStringLiteral("fleet.redis_url: %1").arg(m_addressError);
        {
            std::lock_guard lock(m_mutex);
            m_status.lastError = error;
        }
        warnEvent(QStringLiteral("lost"), QStringLiteral("cannot join the fleet (%1); serving on this instance's own state").arg(error));
        return;
    }
    connectBoth();
}

void FleetLink::stop()
{
    if (!m_running)
        return;
    m_running = false;
    for (auto *timer : {m_announceTimer.get(), m_reconnectCommands.get(), m_reconnectSubscriber.get()})
        if (timer)
            timer->stop();
    m_shares->setConnected(false);
    m_shares->detach(m_context.router(), m_context.costMeter());
    m_commands->close();
    m_subscriber->close();
    m_connected = false;
    m_subscribing = false;
}

void FleetLink::connectBoth()
{
    openConnection(m_commands.get());
    openConnection(m_subscriber.get());
}

void FleetLink::openConnection(RedisConnection *connection)
{
    if (!m_running)
        return;
    const QHostAddress literal(m_address.host == QLatin1String("localhost") ? QStringLiteral("127.0.0.1") : m_address.host);
    if (!literal.isNull()) {
        connection->open(m_address, literal, kConnectTimeout);
        return;
    }
    // A name is looked up by Qt off this thread; hiredis would block the loop on getaddrinfo.
    QPointer<RedisConnection> target(connection);
    QHostInfo::lookupHost(m_address.host, this, [this, target](const QHostInfo &info) {
        if (!target || !m_running)
            return;
        if (info.addresses().isEmpty()) {
            onLost(target, QStringLiteral("cannot resolve %1 (%2)").arg(m_address.host, info.errorString()));
            return;
        }
        target->open(m_address, info.addresses().constFirst(), kConnectTimeout);
    });
}

void FleetLink::onReady()
{
    if (!m_running || m_connected || m_subscribing || !m_commands->isReady() || !m_subscriber->isReady())
        return;
    // The fleet's state is read only once the subscription is confirmed: a change another
    // instance publishes after that arrives as a message, one published before is in its state
    // key, and adopting one twice changes nothing. Read any earlier and a change made in between
    // would reach this instance neither way.
    const bool sent = m_subscriber->subscribe(
        {m_prefix + "changes"}, [this](const QByteArray &, const QByteArray &message) { onMessage(message); },
        [this] {
            m_subscribing = false;
            if (m_running && m_commands->isReady() && m_subscriber->isReady())
                join();
        });
    if (!sent) {
        m_subscriber->close();
        onLost(m_subscriber.get(), QStringLiteral("the subscription to the fleet's changes was refused"));
        return;
    }
    m_subscribing = true;
}

void FleetLink::join()
{
    m_connected = true;
    m_commandsFailures = 0;
    m_subscriberFailures = 0;
    const bool again = m_everConnected;
    m_everConnected = true;
    {
        std::lock_guard lock(m_mutex);
        m_status.connected = true;
        m_status.disconnectedSinceWallMs = 0;
        m_status.lastError.clear();
    }
    readFleetState("0");
    republishLocalState();
    m_shares->setConnected(true);
    announce();
    warnEvent(QStringLiteral("connected"), again ? QStringLiteral("the fleet's Redis at %1 is back; fleet state shared again").arg(m_address.display())
                                                 : QStringLiteral("joined fleet \"%1\" as %2 through %3").arg(m_fleet, m_instance, m_address.display()));
}

void FleetLink::onLost(RedisConnection *connection, const QString &reason)
{
    if (!m_running)
        return;
    const bool wasConnected = m_connected;
    m_connected = false;
    m_subscribing = false;
    m_shares->setConnected(false);
    {
        std::lock_guard lock(m_mutex);
        m_status.connected = false;
        m_status.lastError = reason;
        if (m_status.disconnectedSinceWallMs == 0)
            m_status.disconnectedSinceWallMs = m_context.clock().wallMillis();
    }
    // A subscriber whose command connection is gone stays subscribed to nothing useful, and the
    // other way round: both are opened again, each on its own backoff.
    if (connection == m_commands.get() && m_subscriber->isReady())
        m_subscriber->close(), scheduleReconnect(m_subscriber.get());
    scheduleReconnect(connection);
    if (wasConnected || !m_everConnected)
        warnEvent(QStringLiteral("lost"),
                  QStringLiteral("the fleet's Redis at %1 is unreachable (%2); serving on this instance's own state, reconnecting")
                      .arg(m_address.display(), reason));
}

void FleetLink::scheduleReconnect(RedisConnection *connection)
{
    int &failures = connection == m_commands.get() ? m_commandsFailures : m_subscriberFailures;
    Timer *timer = connection == m_commands.get() ? m_reconnectCommands.get() : m_reconnectSubscriber.get();
    if (!timer || timer->isActive())
        return;
    timer->start(backoff(failures++));
    std::lock_guard lock(m_mutex);
    ++m_status.reconnects;
}

void FleetLink::noteLocal(const HealthEvent &event)
{
    if (!event.fleetOrigin.isEmpty() || (event.type != HealthEvent::Type::Breaker && event.type != HealthEvent::Type::Pool
                                         && event.type != HealthEvent::Type::Key))
        return;
    {
        std::lock_guard lock(m_mutex);
        if (m_queue.size() >= kMaxQueued) {
            m_queue.pop_front();
            ++m_status.dropped;
        }
        m_queue.push_back(event);
        if (m_drainQueued)
            return;
        m_drainQueued = true;
    }
    QMetaObject::invokeMethod(this, [this] { drainQueue(); }, Qt::QueuedConnection);
}

void FleetLink::drainQueue()
{
    std::deque<HealthEvent> events;
    {
        std::lock_guard lock(m_mutex);
        events.swap(m_queue);
        m_drainQueued = false;
    }
    const EngineConfigPtr config = m_context.config();
    for (const HealthEvent &event : events) {
        if (event.type == HealthEvent::Type::Breaker)
            coordinateTrial(event);
        if (!m_connected)
            continue; // what this instance holds is published again when Redis is back
        if (const auto change = fleetChangeFor(event, *config, m_context.router(), m_instance, m_context.clock()))
            publish(*change);
    }
}

void FleetLink::publish(const FleetChange &change)
{
    const QByteArray json = change.toJson();
    std::int64_t ttl = kLongStateMs;
    if (change.to == u"closed" || change.to == u"active")
        ttl = kShortStateMs;
    else if (change.untilWallMillis > 0)
        ttl = std::max<std::int64_t>(1000, change.untilWallMillis - m_context.clock().wallMillis());
    m_commands->command({"SET", change.stateKey(stateKeyPrefix()), json, "PX", QByteArray::number(ttl)});
    if (m_commands->command({"PUBLISH", m_prefix + "changes", json})) {
        std::lock_guard lock(m_mutex);
        ++m_status.published;
    }
}

void FleetLink::onMessage(const QByteArray &message)
{
    QString error;
    const auto change = FleetChange::fromJson(message, &error);
    if (!change || change->instance == m_instance) {
        if (!change) {
            std::lock_guard lock(m_mutex);
            ++m_status.ignored;
        }
        return;
    }
    adopt(*change);
}

void FleetLink::adopt(const FleetChange &change)
{
    const bool changed = adoptFleetChange(change, *m_context.config(), m_context.router(), m_context.clock());
    std::lock_guard lock(m_mutex);
    ++(changed ? m_status.adopted : m_status.ignored);
}

void FleetLink::readFleetState(QByteArray cursor)
{
    const bool sent = m_commands->command(
        {"SCAN", cursor, "MATCH", stateKeyPrefix() + '*', "COUNT", "200"}, [this](const RedisReply &reply) {
            if (reply.type != RedisReply::Type::Array || reply.elements.size() != 2)
                return;
            QList<QByteArray> get{"MGET"};
            for (const RedisReply &key : reply.elements[1].elements)
                get << key.text;
            if (get.size() > 1)
                m_commands->command(get, [this](const RedisReply &values) {
                    for (const RedisReply &value : values.elements) {
                        QString error;
                        if (value.type != RedisReply::Type::String)
                            continue;
                        if (const auto change = FleetChange::fromJson(value.text, &error); change && change->instance != m_instance)
                            adopt(*change);
                    }
                });
            if (reply.elements[0].text != "0")
                readFleetState(reply.elements[0].text);
        });
    Q_UNUSED(sent) // refused only when Redis went away again; the next connect reads it all anew
}

void FleetLink::republishLocalState()
{
    const EngineConfigPtr config = m_context.config();
    Router &router = m_context.router();
    for (const auto &health : router.pool().channels()) {
        HealthEvent event;
        event.channelId = health->id();
        event.channelName = health->name();
        if (health->breakerState() == BreakerState::Open) {
            event.type = HealthEvent::Type::Breaker;
            event.to = QStringLiteral("open");
            event.reason = QStringLiteral("open while the fleet's Redis was away");
        } else if (health->poolState() == PoolState::Ejected || health->poolState() == PoolState::Drained) {
            event.type = HealthEvent::Type::Pool;
            event.to = QString::fromLatin1(toString(health->poolState()));
            event.reason = QStringLiteral("%1 while the fleet's Redis was away").arg(event.to);
        } else {
            continue;
        }
        if (const auto change = fleetChangeFor(event, *config, router, m_instance, m_context.clock()))
            publish(*change);
    }
}

void FleetLink::coordinateTrial(const HealthEvent &event)
{
    if (!event.fleetOrigin.isEmpty())
        return;
    const QString lease = QStringLiteral("trial:%1").arg(event.channelName);
    if (event.from == u"half_open") {
        m_lease->release(lease);
        return;
    }
    if (event.to != u"half_open" || !m_connected)
        return;
    const int channelId = event.channelId;
    m_lease->acquire(lease, kTrialLease, [this, channelId](FleetLease::Result result) {
        if (result != FleetLease::Result::HeldElsewhere)
            return; // ours, or Redis could not say: this instance sends its own trials, as one alone would
        if (const auto health = m_context.router().pool().channel(channelId))
            health->adoptBreaker(BreakerState::Open, m_context.clock().now() + kTrialDeferral, QStringLiteral("the fleet"),
                                 QStringLiteral("another instance is sending the trial calls"));
    });
}

FleetInstance FleetLink::self()
{
    FleetInstance me;
    me.id = m_instance;
    me.version = QStringLiteral(SB_VERSION);
    me.configHash = m_configHash;
    me.startedWallMillis = m_startedWallMs;
    me.lastSeenWallMillis = m_context.clock().wallMillis();
    const auto recent = m_context.clientWindow().counts(m_context.clock().now(), std::chrono::seconds(10));
    me.requestsPerSecond = double(recent.calls) / 10.0;
    for (const auto &health : m_context.router().pool().channels())
        if (health->breakerState() == BreakerState::Open)
            me.openCircuits << health->name();
    return me;
}

void FleetLink::announce()
{
    const FleetShares::Stats limits = m_shares->stats();
    {
        std::lock_guard lock(m_mutex);
        m_status.limitDraws = limits.draws;
        m_status.limitGranted = limits.granted;
        m_status.limitRefused = limits.refused;
    }
    if (!m_connected)
        return;
    m_roster->announce(self());
    m_shares->refreshSpend(*m_context.config(), m_context.clock().wallMillis());
}

void FleetLink::configChanged()
{
    m_configHash = configHash(*m_context.config());
    if (m_running)
        m_shares->apply(*m_context.config(), m_context.router(), m_context.costMeter());
}

bool FleetLink::holdBudgetAlert(const HealthEvent &event, std::function<void(const HealthEvent &)> deliver)
{
    if (event.type != HealthEvent::Type::Budget)
        return false;
    QMetaObject::invokeMethod(this, [this, event, deliver = std::move(deliver)] {
        if (!m_connected) {
            deliver(event); // alone, an alert twice beats none
            return;
        }
        // The route is the event's channel name; the period the one its budget was in when raised.
        const BudgetConfig *budget = findBudget(m_context.config()->budgets, event.channelName);
        if (!budget) {
            deliver(event);
            return;
        }
        const QString period = QString::number(RouteBudget::periodKey(budget->period, event.wallMillis));
        m_shares->claimAlert(event.channelName, period, event.to, m_instance, [event, deliver](bool won) {
            if (won)
                deliver(event);
        });
    }, Qt::QueuedConnection);
    return true;
}

void FleetLink::describe(std::function<void(QJsonObject)> done)
{
    const Status s = status();
    QJsonObject body{{QStringLiteral("fleet"), s.fleet},
                     {QStringLiteral("instance"), s.instance},
                     {QStringLiteral("redis"), s.redis},
                     {QStringLiteral("connected"), s.connected}};
    if (!s.lastError.isEmpty())
        body.insert(QStringLiteral("last_error"), s.lastError);
    if (s.disconnectedSinceWallMs > 0)
        body.insert(QStringLiteral("disconnected_since_ms"), double(s.disconnectedSinceWallMs));
    QJsonArray channels;
    for (const auto &health : m_context.router().pool().channels())
        channels.append(QJsonObject{{QStringLiteral("name"), health->name()},
                                    {QStringLiteral("breaker"), QString::fromLatin1(toString(health->breakerState()))},
                                    {QStringLiteral("pool"), QString::fromLatin1(toString(health->poolState()))}});
    body.insert(QStringLiteral("channels"), channels);
    if (!m_connected) {
        body.insert(QStringLiteral("instances"), QJsonArray{});
        done(body);
        return;
    }
    m_roster->list([body, done](std::vector<FleetInstance> instances) mutable {
        const QStringList divergent = FleetRoster::divergentConfigs(instances);
        QJsonArray list;
        for (const FleetInstance &i : instances) {
            QJsonArray open;
            for (const QString &name : i.openCircuits)
                open.append(name);
            list.append(QJsonObject{{QStringLiteral("id"), i.id},
                                    {QStringLiteral("version"), i.version},
                                    {QStringLiteral("config_hash"), i.configHash},
                                    {QStringLiteral("config_differs"), divergent.contains(i.id)},
                                    {QStringLiteral("started_ms"), double(i.startedWallMillis)},
                                    {QStringLiteral("last_seen_ms"), double(i.lastSeenWallMillis)},
                                    {QStringLiteral("requests_per_second"), i.requestsPerSecond},
                                    {QStringLiteral("open_circuits"), open}});
        }
        body.insert(QStringLiteral("instances"), list);
        body.insert(QStringLiteral("config_differs"), !divergent.isEmpty());
        done(body);
    });
}

FleetLink::Status FleetLink::status() const
{
    std::lock_guard lock(m_mutex);
    return m_status;
}

void FleetLink::warnEvent(const QString &to, const QString &reason)
{
    if (!m_warn)
        return;
    HealthEvent e;
    e.type = HealthEvent::Type::Fleet;
    e.channelName = m_fleet;
    e.from = to == u"lost" ? QStringLiteral("connected") : QStringLiteral("lost");
    e.to = to;
    e.reason = reason;
    e.at = m_context.clock().now();
    e.wallMillis = m_context.clock().wallMillis();
    m_warn(e);
}

} // namespace sb
