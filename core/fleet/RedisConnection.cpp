#include "fleet/RedisConnection.h"

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include <QSocketNotifier>

#include <utility>
#include <vector>

namespace sb {

struct RedisConnection::Pending {
    ReplyHandler handler;
};

RedisConnection::RedisConnection(const Clock &clock, QObject *parent) : QObject(parent), m_clock(clock) {}

RedisConnection::~RedisConnection()
{
    close();
}

void RedisConnection::open(const RedisAddress &address, const QHostAddress &ip, Clock::Duration timeout)
{
    close();
    m_address = address;
    const QByteArray host = ip.toString().toLatin1();
    m_context = redisAsyncConnect(host.constData(), address.port);
    if (!m_context || m_context->err) {
        const QString reason = m_context ? QString::fromLocal8Bit(m_context->errstr) : QStringLiteral("out of memory");
        if (m_context)
            redisAsyncFree(m_context);
        m_context = nullptr;
        // Reported from the loop, as every other outcome of open() is.
        QMetaObject::invokeMethod(this, [this, reason] { emit lost(reason); }, Qt::QueuedConnection);
        return;
    }
    m_context->data = this;
    m_context->ev.data = this;
    m_context->ev.addRead = &RedisConnection::addRead;
    m_context->ev.delRead = &RedisConnection::delRead;
    m_context->ev.addWrite = &RedisConnection::addWrite;
    m_context->ev.delWrite = &RedisConnection::delWrite;
    m_context->ev.cleanup = &RedisConnection::cleanup;
    redisAsyncSetConnectCallback(m_context, &RedisConnection::onConnected);
    redisAsyncSetDisconnectCallback(m_context, &RedisConnection::onDisconnected);
    m_timeout = m_clock.createTimer([this] {
        if (!m_ready)
            fail(QStringLiteral("no answer from %1 in time").arg(m_address.display()));
    });
    m_timeout->start(timeout);
}

void RedisConnection::close()
{
    if (m_timeout)
        m_timeout->stop();
    m_ready = false;
    m_onMessage = {};
    m_onSubscribed = {};
    m_pending = 0;
    if (!m_context)
        return;
    redisAsyncContext *context = std::exchange(m_context, nullptr);
    context->data = nullptr;
    // Frees the context now, or when the hiredis callback we are inside of returns; with its data
    // cleared, the replies still owed are dropped without calling their handlers.
    redisAsyncFree(context);
    dropNotifiers();
}

bool RedisConnection::command(const QList<QByteArray> &args, ReplyHandler handler)
{
    if (!m_ready || m_pending >= kMaxPending || m_onMessage) {
        ++m_stats.refused;
        return false;
    }
    auto *pending = new Pending{std::move(handler)};
    if (!send(args, &RedisConnection::onReply, pending)) {
        delete pending;
        ++m_stats.refused;
        return false;
    }
    ++m_pending;
    return true;
}

bool RedisConnection::subscribe(const QList<QByteArray> &channels, MessageHandler handler, std::function<void()> subscribed)
{
    if (!m_ready || channels.isEmpty()) {
        ++m_stats.refused;
        return false;
    }
    m_onMessage = std::move(handler);
    m_onSubscribed = std::move(subscribed);
    m_unconfirmedChannels = int(channels.size());
    QList<QByteArray> args{QByteArrayLiteral("SUBSCRIBE")};
    args += channels;
    return send(args, &RedisConnection::onMessage, nullptr);
}

bool RedisConnection::send(const QList<QByteArray> &args, void (*callback)(redisAsyncContext *, void *, void *), void *privdata)
{
    if (!m_context)
        return false;
    std::vector<const char *> argv;
    std::vector<size_t> lengths;
    argv.reserve(args.size());
    lengths.reserve(args.size());
    for (const QByteArray &arg : args) {
        argv.push_back(arg.constData());
        lengths.push_back(size_t(arg.size()));
    }
    if (redisAsyncCommandArgv(m_context, callback, privdata, int(argv.size()), argv.data(), lengths.data()) != REDIS_OK)
        return false;
    ++m_stats.sent;
    return true;
}

void RedisConnection::handshake()
{
    auto selectThenReady = [this] {
        auto becomeReady = [this] {
            m_timeout->stop();
            m_ready = true;
            emit ready();
        };
        if (m_address.database == 0) {
            becomeReady();
            return;
        }
        auto *pending = new Pending{[this, becomeReady](const RedisReply &reply) {
            if (reply.isError())
                fail(QStringLiteral("Redis refused database %1: %2").arg(m_address.database).arg(QString::fromUtf8(reply.text)));
            else
                becomeReady();
        }};
        ++m_pending;
        if (!send({QByteArrayLiteral("SELECT"), QByteArray::number(m_address.database)}, &RedisConnection::onReply, pending)) {
            --m_pending;
            delete pending;
            fail(QStringLiteral("could not send SELECT"));
        }
    };
    if (m_address.password.isEmpty()) {
        selectThenReady();
        return;
    }
    QList<QByteArray> auth{QByteArrayLiteral("AUTH")};
    if (!m_address.user.isEmpty())
        auth << m_address.user.toUtf8();
    auth << m_address.password.toUtf8();
    auto *pending = new Pending{[this, selectThenReady](const RedisReply &reply) {
        // Redis's refusal never repeats the password; it is safe to pass on.
        if (reply.isError())
            fail(QStringLiteral("Redis refused the password: %1").arg(QString::fromUtf8(reply.text)));
        else
            selectThenReady();
    }};
    ++m_pending;
    if (!send(auth, &RedisConnection::onReply, pending)) {
        --m_pending;
        delete pending;
        fail(QStringLiteral("could not send AUTH"));
    }
}

void RedisConnection::fail(const QString &reason)
{
    const bool wasOpen = m_context != nullptr;
    close();
    if (wasOpen)
        emit lost(reason);
}

void RedisConnection::onConnected(const redisAsyncContext *context, int status)
{
    auto *self = static_cast<RedisConnection *>(context->data);
    if (!self)
        return;
    if (status != REDIS_OK) {
        // hiredis frees the context after this callback.
        const QString reason = QString::fromLocal8Bit(context->errstr);
        self->m_context = nullptr;
        self->dropNotifiers();
        self->m_timeout->stop();
        emit self->lost(reason);
        return;
    }
    self->handshake();
}

void RedisConnection::onDisconnected(const redisAsyncContext *context, int status)
{
    auto *self = static_cast<RedisConnection *>(context->data);
    if (!self)
        return; // our own close()
    const QString reason = status == REDIS_OK ? QStringLiteral("Redis closed the connection") : QString::fromLocal8Bit(context->errstr);
    self->m_context = nullptr;
    self->m_ready = false;
    self->m_onMessage = {};
    self->m_onSubscribed = {};
    self->dropNotifiers();
    if (self->m_timeout)
        self->m_timeout->stop();
    emit self->lost(reason);
}

void RedisConnection::onReply(redisAsyncContext *context, void *reply, void *privdata)
{
    std::unique_ptr<Pending> pending(static_cast<Pending *>(privdata));
    auto *self = static_cast<RedisConnection *>(context->data);
    if (!self)
        return; // torn down by close(): nobody waits for this any more
    --self->m_pending;
    ++self->m_stats.answered;
    if (pending->handler)
        pending->handler(RedisReply::fromHiredis(static_cast<const redisReply *>(reply)));
}

void RedisConnection::onMessage(redisAsyncContext *context, void *reply, void *)
{
    auto *self = static_cast<RedisConnection *>(context->data);
    const auto *r = static_cast<const redisReply *>(reply);
    if (!self || !r || r->type != REDIS_REPLY_ARRAY || r->elements != 3)
        return;
    const redisReply *kind = r->element[0];
    if (kind->type != REDIS_REPLY_STRING)
        return;
    const QByteArray what(kind->str, int(kind->len));
    if (what == "subscribe") {
        if (--self->m_unconfirmedChannels == 0 && self->m_onSubscribed)
            std::exchange(self->m_onSubscribed, {})();
        return;
    }
    if (what != "message")
        return;
    ++self->m_stats.messages;
    if (self->m_onMessage)
        self->m_onMessage(QByteArray(r->element[1]->str, int(r->element[1]->len)),
                          QByteArray(r->element[2]->str, int(r->element[2]->len)));
}

void RedisConnection::watch(QSocketNotifier::Type type, bool on)
{
    QSocketNotifier *&notifier = type == QSocketNotifier::Read ? m_read : m_write;
    if (!on) {
        if (notifier)
            notifier->setEnabled(false);
        return;
    }
    if (!notifier) {
        notifier = new QSocketNotifier(qintptr(m_context->c.fd), type, this);
        connect(notifier, &QSocketNotifier::activated, this, [this, type] {
            if (!m_context)
                return;
            if (type == QSocketNotifier::Read)
                redisAsyncHandleRead(m_context);
            else
                redisAsyncHandleWrite(m_context);
        });
    }
    notifier->setEnabled(true);
}

void RedisConnection::addRead(void *data)
{
    static_cast<RedisConnection *>(data)->watch(QSocketNotifier::Read, true);
}

void RedisConnection::delRead(void *data)
{
    static_cast<RedisConnection *>(data)->watch(QSocketNotifier::Read, false);
}

void RedisConnection::addWrite(void *data)
{
    static_cast<RedisConnection *>(data)->watch(QSocketNotifier::Write, true);
}

void RedisConnection::delWrite(void *data)
{
    static_cast<RedisConnection *>(data)->watch(QSocketNotifier::Write, false);
}

void RedisConnection::cleanup(void *data)
{
    static_cast<RedisConnection *>(data)->dropNotifiers();
}

void RedisConnection::dropNotifiers()
{
    // Possibly called from inside a notifier's own activation: disable now, delete later.
    for (QSocketNotifier **notifier : {&m_read, &m_write}) {
        if (!*notifier)
            continue;
        (*notifier)->setEnabled(false);
        (*notifier)->disconnect();
        (*notifier)->deleteLater();
        *notifier = nullptr;
    }
}

} // namespace sb
