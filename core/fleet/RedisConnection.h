#pragma once

#include "common/Clock.h"
#include "fleet/RedisAddress.h"
#include "fleet/RedisReply.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QSocketNotifier>

#include <cstdint>
#include <functional>
#include <memory>

struct redisAsyncContext;

namespace sb {

// One connection to Redis through hiredis's asynchronous API, on the Qt event loop of the thread
// that owns it: nothing here blocks (hiredis's own Qt adapter predates Qt 6's QSocketNotifier
// signature, so the read and write notifiers are wired here). Commands are sent at once and
// answered in order; at most kMaxPending wait for their replies, so a Redis that stops answering
// (a DEBUG SLEEP, a partition) costs memory bounded by that, and further commands are refused
// rather than queued. A connection that has subscribed takes no other commands (Redis's rule).
class RedisConnection : public QObject {
    Q_OBJECT
public:
    using ReplyHandler = std::function<void(const RedisReply &)>;
    using MessageHandler = std::function<void(const QByteArray &channel, const QByteArray &message)>;

    static constexpr int kMaxPending = 1024;

    struct Stats {
        std::uint64_t sent = 0;
        std::uint64_t answered = 0;
        std::uint64_t refused = 0; // not connected, or kMaxPending already waiting
        std::uint64_t messages = 0; // pub/sub messages received
    };

    explicit RedisConnection(const Clock &clock, QObject *parent = nullptr);
    ~RedisConnection() override;
    RedisConnection(const RedisConnection &) = delete;
    RedisConnection &operator=(const RedisConnection &) = delete;

    // Connects to `ip` (a literal address: a name is resolved by the caller, since hiredis would
    // resolve it with a blocking getaddrinfo), then sends AUTH and SELECT as `address` asks.
    // ready() once all of that answered; lost() when it fails or takes longer than `timeout`.
    void open(const RedisAddress &address, const QHostAddress &ip, Clock::Duration timeout);
    // Drops the connection without a lost() signal; the handlers of commands still waiting are
    // never called (their owner may be going away). A connection Redis drops instead answers each
    // of them with an error reply, then signals lost().
    void close();
    bool isReady() const { return m_ready; }

    // False, and the handler never called, when not ready or too many replies are outstanding.
    bool command(const QList<QByteArray> &args, ReplyHandler handler = {});
    // Every message published to these channels from now on goes to `handler`. `subscribed` is
    // called once Redis has confirmed each channel: only from then on is no message missed, which
    // is what a reader of shared state waits for before it reads what was published earlier.
    bool subscribe(const QList<QByteArray> &channels, MessageHandler handler, std::function<void()> subscribed = {});

    int pending() const { return m_pending; }
    Stats stats() const { return m_stats; }

signals:
    void ready();
    void lost(const QString &reason);

private:
    struct Pending;
    static void onConnected(const redisAsyncContext *context, int status);
    static void onDisconnected(const redisAsyncContext *context, int status);
    static void onReply(redisAsyncContext *context, void *reply, void *privdata);
    static void onMessage(redisAsyncContext *context, void *reply, void *privdata);
    static void addRead(void *self);
    static void delRead(void *self);
    static void addWrite(void *self);
    static void delWrite(void *self);
    static void cleanup(void *self);

    bool send(const QList<QByteArray> &args, void (*callback)(redisAsyncContext *, void *, void *), void *privdata);
    // hiredis's event hooks: read or write readiness of the socket watched, or not.
    void watch(QSocketNotifier::Type type, bool on);
    void handshake();
    void fail(const QString &reason);
    void dropNotifiers();

    const Clock &m_clock;
    redisAsyncContext *m_context = nullptr;
    QSocketNotifier *m_read = nullptr;
    QSocketNotifier *m_write = nullptr;
    std::unique_ptr<Timer> m_timeout;
    RedisAddress m_address;
    MessageHandler m_onMessage;
    std::function<void()> m_onSubscribed;
    int m_unconfirmedChannels = 0;
    bool m_ready = false;
    int m_pending = 0;
    Stats m_stats;
};

} // namespace sb
