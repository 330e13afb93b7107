#include "net/UpstreamClient.h"

#include "net/CurlGlobal.h"
#include "net/Http1Engine.h"
#include "net/OriginProtocols.h"

#include <curl/curl.h>
#include <spdlog/spdlog.h>

#include <QSocketNotifier>

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <limits>

namespace sb {

namespace {

// Idle upstream connections one worker's client keeps for reuse, over all providers.
constexpr long kMaxCachedConnections = 512;
// Times an HTTP/2 request whose stream the server closed before its body went out is sent again:
// one early close in a few hundred under load, so a second in a row is rare and a third rarer still.
constexpr int kMaxResends = 2;

} // namespace

// The notifiers of one socket libcurl asked us to watch. They are children of the client, so a
// client destroyed while a deleteLater() is pending still frees them.
struct UpstreamClient::SocketWatch {
    QSocketNotifier *read = nullptr;
    QSocketNotifier *write = nullptr;
    int wanted = 0;          // CURL_POLL_IN / CURL_POLL_OUT bits libcurl last asked for
    bool connection = false; // a connection socket: we hear when libcurl closes it

    void release()
    {
        // deleteLater, not delete: we may be inside this very notifier's activated() signal.
        for (QSocketNotifier *notifier : {read, write}) {
            if (notifier) {
                notifier->setEnabled(false);
                notifier->deleteLater();
            }
        }
    }
};

// libcurl opens and closes its connection sockets through these, so the client knows which
// sockets are connections and frees a socket's watch before the descriptor is closed.
struct UpstreamSocketHooks {
    static curl_socket_t open(void *self, curlsocktype, curl_sockaddr *address)
    {
        const curl_socket_t socket = ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
        if (socket != CURL_SOCKET_BAD)
            static_cast<UpstreamClient *>(self)->m_connectionSockets.insert(socket);
        return socket;
    }

    static int close(void *self, curl_socket_t socket)
    {
        auto *client = static_cast<UpstreamClient *>(self);
        client->m_connectionSockets.erase(socket);
        // The watch goes before the descriptor: a notifier left on a closed (and soon reused)
        // number would watch someone else's socket.
        const auto it = client->m_sockets.find(socket);
        if (it != client->m_sockets.end()) {
            it->second->release();
            client->m_sockets.erase(it);
        }
        return ::close(socket);
    }
};

UpstreamClient::UpstreamClient(const Clock &clock, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_curlTimer(clock.createTimer([this] { socketAction(CURL_SOCKET_TIMEOUT, 0); }))
    , m_deliveryTimer(clock.createTimer([this] {
        deliverPending();
        if (m_multi)
            collectFinished();
    }))
    // A steady tick rather than a timer restarted around every transfer (two timer registrations
    // per request): connections close between one and two lifetimes after the last transfer.
    , m_idleSweep(clock.createTimer([this] { onIdleSweepTick(); }, TimerKind::Repeating))
{
    m_idleSweep->start(kDefaultIdleLifetime);

    m_http1 = new Http1Engine(clock, this);
    m_http1->setAfterEvents([this] { onHttp1EngineEvents(); });
    // An operator's way back to libcurl for every request, should the engine ever misbehave with
    // some local server, without a rebuild.
    m_http1EngineEnabled = qEnvironmentVariable("SB_UPSTREAM_ENGINE") != QLatin1String("curl");

    if (CurlGlobal::ensureInitialized())
        createMulti();
}

bool UpstreamClient::createMulti()
{
    m_multi = curl_multi_init();
    if (!m_multi) {
        spdlog::error("libcurl could not create a multi handle; upstream requests will fail");
        return false;
    }
    curl_multi_setopt(m_multi, CURLMOPT_SOCKETFUNCTION, &UpstreamClient::socketCallback);
    curl_multi_setopt(m_multi, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(m_multi, CURLMOPT_TIMERFUNCTION, &UpstreamClient::timerCallback);
    curl_multi_setopt(m_multi, CURLMOPT_TIMERDATA, this);
    curl_multi_setopt(m_multi, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_MULTIPLEX));
    // libcurl's default keeps at most four idle connections per transfer running right now, so
    // when a burst ebbs it closes the connections the next burst opens again (with TLS, a
    // handshake each): 12 % of requests opened a connection at 50 steady clients. A fixed bound
    // keeps what peak concurrency opened; the idle sweep closes them once traffic stops.
    curl_multi_setopt(m_multi, CURLMOPT_MAXCONNECTS, kMaxCachedConnections);
    return true;
}

void UpstreamClient::setIdleConnectionLifetime(std::chrono::milliseconds lifetime)
{
    m_idleSweep->start(lifetime);
}

void UpstreamClient::onIdleSweepTick()
{
    if (!m_transfers.empty() || m_activeSinceTick) {
        m_activeSinceTick = !m_transfers.empty();
        return;
    }
    if (m_usedSinceSweep)
        closeIdleConnections();
    m_usedSinceSweep = false;
}

void UpstreamClient::setHostResolver(HostResolver &resolver)
{
    m_http1->setHostResolver(resolver);
}

std::size_t UpstreamClient::idleHttp1Connections() const
{
    return m_http1->idleConnections();
}

void UpstreamClient::closeIdleConnections()
{
    if (!m_transfers.empty())
        return;
    m_http1->closeIdleConnections();
    ++m_stats.idleSweeps;
    if (!m_multi)
        return;
    m_curlTimer->stop();
    curl_multi_cleanup(m_multi); // closes the cached connections, telling socketCallback
    m_multi = nullptr;
    for (auto &[socket, watch] : m_sockets)
        watch->release();
    m_sockets.clear();
    createMulti();
}

UpstreamClient::~UpstreamClient()
{
    m_curlTimer->stop();
    for (auto &[id, transfer] : m_transfers) {
        transfer->retired = true;
        if (transfer->http1Engine)
            m_http1->abort(id);
        else if (m_multi && transfer->easy())
            curl_multi_remove_handle(m_multi, transfer->easy());
        ++m_stats.cancelled;
    }
    m_transfers.clear(); // frees the easy handles
    m_stats.active = 0;
    if (m_multi)
        curl_multi_cleanup(m_multi); // closes cached connections, telling socketCallback
    for (auto &[socket, watch] : m_sockets)
        watch->release();
    m_sockets.clear();
}

quint64 UpstreamClient::start(const UpstreamRequest &request, const TransferOptions &options,
                              TransferCallbacks callbacks)
{
    const quint64 id = m_nextId++;
    auto transfer = std::make_shared<UpstreamTransfer>(id, request, options, std::move(callbacks), m_easyHandles);
    m_transfers.emplace(id, transfer);
    ++m_stats.started;
    ++m_stats.active;
    m_activeSinceTick = true;
    m_usedSinceSweep = true;

    UpstreamTransfer *raw = transfer.get();
    const auto markDirty = [this, raw] {
        if (!raw->dirty) {
            raw->dirty = true;
            m_dirty.push_back(raw->id());
        }
    };
    if (m_http1EngineEnabled) {
        auto target = Http1Engine::targetFor(request, options);
        if (target && target->tls && !speaksHttp1(request, options))
            target.reset(); // h2 multiplexes over libcurl, and an unknown origin says which it speaks there
        if (target) {
            transfer->http1Engine = true;
            transfer->setActivityHandler(markDirty);
            if (spdlog::should_log(spdlog::level::debug))
                spdlog::debug("upstream #{} start {}", id, transfer->describeForLog().toStdString());
            m_http1->start(*transfer, std::move(target));
            return id;
        }
    }

    // An origin that answered in HTTP/1.1 cannot multiplex: a transfer that waited (PIPEWAIT) for
    // a connection still in its handshake would be let go only when that one is up, so a burst to
    // a cold multi handle opened its connections one handshake after another.
    if (const QByteArray origin = originKey(request, options); !origin.isEmpty()) {
        if (originMultiplexes(origin) == false) {
            transfer->pipeWait = false;
            ++m_stats.http1OriginTransfers;
        }
    }

    QString error;
    bool ok = false;
    if (!m_multi) {
        error = QStringLiteral("libcurl is not available; see the log at startup");
    } else if (transfer->setUp(&error)) {
        transfer->setActivityHandler(markDirty);
        curl_easy_setopt(transfer->easy(), CURLOPT_OPENSOCKETFUNCTION, &UpstreamSocketHooks::open);
        curl_easy_setopt(transfer->easy(), CURLOPT_OPENSOCKETDATA, this);
        curl_easy_setopt(transfer->easy(), CURLOPT_CLOSESOCKETFUNCTION, &UpstreamSocketHooks::close);
        curl_easy_setopt(transfer->easy(), CURLOPT_CLOSESOCKETDATA, this);
        if (spdlog::should_log(spdlog::level::debug))
            spdlog::debug("upstream #{} start {}", id, transfer->describeForLog().toStdString());
        const CURLMcode code = curl_multi_add_handle(m_multi, transfer->easy());
        ok = code == CURLM_OK;
        if (!ok)
            error = QStringLiteral("libcurl refused the transfer: %1").arg(QString::fromUtf8(curl_multi_strerror(code)));
    }
    if (!ok) {
        // Callers get the id before any callback, so failures are reported from the event loop.
        QMetaObject::invokeMethod(
            this,
            [this, id, error] {
                const auto it = m_transfers.find(id);
                if (it != m_transfers.end())
                    finish(it->second, TransferError::Other, error);
            },
            Qt::QueuedConnection);
    }
    return id;
}

void UpstreamClient::cancel(quint64 transferId)
{
    const auto it = m_transfers.find(transferId);
    if (it == m_transfers.end())
        return;
    const TransferPtr transfer = it->second; // freed here unless a delivery up the stack holds it
    retire(*transfer);
    ++m_stats.cancelled;
    spdlog::debug("upstream #{} cancelled", transferId);
}

void UpstreamClient::pause(quint64 transferId)
{
    const auto it = m_transfers.find(transferId);
    if (it == m_transfers.end() || it->second->paused || (!it->second->easy() && !it->second->http1Engine))
        return;
    UpstreamTransfer &transfer = *it->second;
    transfer.paused = true;
    if (transfer.idleTimer)
        transfer.idleTimer->stop();
    if (transfer.http1Engine)
        m_http1->pause(transferId);
    else
        curl_easy_pause(transfer.easy(), CURLPAUSE_RECV);
}

void UpstreamClient::resume(quint64 transferId)
{
    const auto it = m_transfers.find(transferId);
    if (it == m_transfers.end() || !it->second->paused)
        return;
    UpstreamTransfer &transfer = *it->second;
    transfer.paused = false;
    // libcurl may hand over what it held back right here, from inside curl_easy_pause; it stays
    // pending and is delivered from the event loop (libcurl schedules an immediate timeout), so a
    // caller resuming from inside onData never gets a nested onData.
    if (transfer.http1Engine)
        m_http1->resume(transferId);
    else
        curl_easy_pause(transfer.easy(), CURLPAUSE_CONT);
    if (transfer.status() > 0)
        armIdleTimer(transfer);
    if (transfer.hasPendingData() && !transfer.dirty) {
        transfer.dirty = true;
        m_dirty.push_back(transfer.id());
    }
    if (!m_dirty.empty())
        scheduleDelivery();
}

void UpstreamClient::scheduleDelivery()
{
    // Not m_curlTimer: firing libcurl's timer early would lose the timeout it asked for. A 0 ms
    // timer, not a queued call: it fires in the turn that set it, and costs no eventfd wake-up
    // under Qt's glib loop either.
    if (!m_deliveryTimer->isActive())
        m_deliveryTimer->start(Clock::Duration::zero());
}

int UpstreamClient::socketCallback(CURL *, int socket, int what, void *self, void *)
{
    static_cast<UpstreamClient *>(self)->watchSocket(socket, what);
    return 0;
}

int UpstreamClient::timerCallback(CURLM *, long timeoutMs, void *self)
{
    // libcurl forbids calling curl_multi_socket_action from here; a 0 ms timeout runs it from the
    // event loop right after.
    Timer &timer = *static_cast<UpstreamClient *>(self)->m_curlTimer;
    if (timeoutMs < 0)
        timer.stop();
    else
        timer.start(std::chrono::milliseconds(timeoutMs));
    return 0;
}

void UpstreamClient::watchSocket(int socket, int what)
{
    // A connection's read notifier is switched off lazily. libcurl drops a kept-alive connection's
    // socket (CURL_POLL_REMOVE) after every transfer and asks for it again with the next one, and
    // every switch on or off is a system call (epoll_ctl on the workers' EpollEventDispatcher;
    // under Qt's glib loop an eventfd wake-up and an extra turn). So REMOVE only records that
    // libcurl wants nothing; should the idle connection become readable (the server closed it),
    // onSocketActivated switches the notifier off then. UpstreamSocketHooks::close frees the watch
    // before the descriptor is closed.
    // Write readiness is nearly constant, so an unwanted write notifier goes off at once, as do
    // both notifiers of sockets libcurl closes without telling us (its resolver's socket pair).
    auto it = m_sockets.find(socket);
    if (what == CURL_POLL_REMOVE) {
        if (it == m_sockets.end())
            return;
        SocketWatch &watch = *it->second;
        watch.wanted = 0;
        if (watch.write)
            watch.write->setEnabled(false);
        if (!watch.connection) {
            watch.release();
            m_sockets.erase(it);
        }
        return;
    }
    if (it == m_sockets.end()) {
        it = m_sockets.emplace(socket, std::make_unique<SocketWatch>()).first;
        it->second->connection = m_connectionSockets.count(socket) != 0;
    }
    SocketWatch &watch = *it->second;
    if ((what & CURL_POLL_OUT) && !(watch.wanted & CURL_POLL_OUT))
        m_newlyWritable.push_back(socket);
    watch.wanted = what;
    const auto want = [this, socket](QSocketNotifier *&notifier, QSocketNotifier::Type type, int event) {
        if (!notifier) {
            notifier = new QSocketNotifier(socket, type, this);
            connect(notifier, &QSocketNotifier::activated, this, [this, socket, event] { onSocketActivated(socket, event); });
        }
        notifier->setEnabled(true); // no-op when it still is
    };
    if (what & CURL_POLL_IN)
        want(watch.read, QSocketNotifier::Read, CURL_CSELECT_IN);
    if (what & CURL_POLL_OUT)
        want(watch.write, QSocketNotifier::Write, CURL_CSELECT_OUT);
    else if (watch.write)
        watch.write->setEnabled(false);
}

void UpstreamClient::onSocketActivated(int socket, int event)
{
    const auto it = m_sockets.find(socket);
    if (it == m_sockets.end())
        return;
    SocketWatch &watch = *it->second;
    if (event == CURL_CSELECT_IN && !(watch.wanted & CURL_POLL_IN)) {
        watch.read->setEnabled(false); // the lazy switch-off (see watchSocket)
        return;
    }
    socketAction(socket, event);
}

void UpstreamClient::socketAction(int socket, int events)
{
    if (!m_multi)
        return;
    int running = 0;
    curl_multi_socket_action(m_multi, socket, events, &running);
    sendWhatWaitsForWritable();
    // libcurl is off the stack from here on: callers' callbacks may start and cancel freely.
    deliverPending();
    collectFinished();
}

void UpstreamClient::sendWhatWaitsForWritable()
{
    // libcurl writes an HTTP/2 request's HEADERS frame at once but its body only when told the
    // socket is writable, which the loop reports a turn later, after every other ready socket of
    // that turn: milliseconds under load. A server that answers without reading the body (nginx's
    // `return`, any early error) then closes the stream first, and libcurl fails a request whose
    // body never went out (a 200 to 400 ms retry backoff at the p99 of the HTTP/2 bench row). So
    // a socket libcurl starts wanting to write is offered the write right away, as a writable
    // loopback or LAN socket would be reported; one that is not writable keeps its notifier. Two
    // rounds at most: a write may make libcurl ask for another socket's.
    for (int round = 0; round < 2 && !m_newlyWritable.empty(); ++round) {
        const std::vector<int> sockets = std::exchange(m_newlyWritable, {});
        for (const int socket : sockets) {
            const auto it = m_sockets.find(socket);
            if (it == m_sockets.end() || !(it->second->wanted & CURL_POLL_OUT))
                continue;
            int running = 0;
            curl_multi_socket_action(m_multi, socket, CURL_CSELECT_OUT, &running);
        }
    }
    m_newlyWritable.clear();
}

void UpstreamClient::deliverPending()
{
    while (!m_dirty.empty()) {
        const std::vector<quint64> ids = std::exchange(m_dirty, {});
        for (const quint64 id : ids) {
            const auto it = m_transfers.find(id);
            if (it == m_transfers.end())
                continue; // cancelled by an earlier callback
            it->second->dirty = false;
            deliver(it->second);
        }
    }
}

void UpstreamClient::deliver(TransferPtr transfer)
{
    // `transfer` is held by value: a callback that cancels it must not free the callback it runs in.
    int status = 0;
    HttpHeaders headers;
    if (transfer->takeHeaders(&status, &headers)) {
        armIdleTimer(*transfer);
        if (transfer->callbacks().onHeaders)
            transfer->callbacks().onHeaders(status, headers);
        if (transfer->retired)
            return;
    }
    if (transfer->paused)
        return; // stays pending; resume() marks it for delivery
    const QByteArray data = transfer->takeData();
    if (!data.isEmpty()) {
        m_stats.bytesReceived += static_cast<quint64>(data.size());
        armIdleTimer(*transfer);
        if (transfer->callbacks().onData)
            transfer->callbacks().onData(QByteArrayView(data));
    }
}

void UpstreamClient::collectFinished()
{
    int queued = 0;
    // One message at a time: a callback may cancel another finished transfer, and
    // curl_multi_remove_handle then drops its message from the queue.
    while (CURLMsg *message = curl_multi_info_read(m_multi, &queued)) {
        if (message->msg != CURLMSG_DONE)
            continue;
        const CURLcode result = message->data.result;
        UpstreamTransfer *raw = nullptr;
        curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &raw);
        if (!raw)
            continue;
        const auto it = m_transfers.find(raw->id());
        if (it == m_transfers.end())
            continue;
        const TransferPtr transfer = it->second;
        transfer->dirty = false;
        transfer->paused = false; // the transfer is over: what it holds goes out before onComplete
        deliver(transfer);        // whatever arrived with the end of the transfer
        if (transfer->retired)
            continue;
        // An HTTP/2 server may answer before it has read the request's body and then close the
        // stream (RFC 9113 §8.1); libcurl 7.88 reports a stream error when its body write finds
        // the stream closed. A whole answer is kept as the answer it is; one it dropped unread is
        // asked for again: the server never had the whole body, so it cannot have acted on it.
        CURLcode outcome = result;
        if (result == CURLE_HTTP2_STREAM && transfer->hasWholeAnswer()) {
            outcome = CURLE_OK;
            ++m_stats.http2EarlyAnswersKept;
        } else if (result == CURLE_HTTP2_STREAM && transfer->resends < kMaxResends && transfer->endedBeforeItsBodyWent()) {
            ++transfer->resends;
            ++m_stats.http2Resends;
            curl_multi_remove_handle(m_multi, transfer->easy());
            if (curl_multi_add_handle(m_multi, transfer->easy()) == CURLM_OK)
                continue;
        }
        long connects = 0;
        curl_easy_getinfo(transfer->easy(), CURLINFO_NUM_CONNECTS, &connects);
        m_stats.connectionsOpened += static_cast<quint64>(std::max(0L, connects));
        if (connects == 0 && outcome == CURLE_OK)
            ++m_stats.connectionsReused;
        long httpVersion = 0;
        curl_easy_getinfo(transfer->easy(), CURLINFO_HTTP_VERSION, &httpVersion);
        if (httpVersion == CURL_HTTP_VERSION_2_0)
            ++m_stats.http2Transfers;
        if (outcome == CURLE_OK && httpVersion != 0) {
            if (const QByteArray origin = originKey(transfer->request(), transfer->options()); !origin.isEmpty()) {
                const bool multiplexes = httpVersion == CURL_HTTP_VERSION_2_0;
                rememberOrigin(origin, multiplexes);
                OriginProtocols::shared().learnt(origin, multiplexes);
            }
        }
        const auto [error, text] = transfer->classify(outcome);
        finish(transfer, error, text);
    }
}

bool UpstreamClient::speaksHttp1(const UpstreamRequest &request, const TransferOptions &options)
{
    const QByteArray origin = originKey(request, options);
    if (origin.isEmpty())
        return true; // h2 not allowed: HTTP/1.1 whatever the server offers
    return originMultiplexes(origin) == false;
}

std::optional<bool> UpstreamClient::originMultiplexes(const QByteArray &origin)
{
    if (const auto known = m_originMultiplexes.find(origin); known != m_originMultiplexes.end())
        return known->second;
    const std::optional<bool> learnt = OriginProtocols::shared().multiplexes(origin);
    if (learnt)
        rememberOrigin(origin, *learnt);
    return learnt;
}

void UpstreamClient::rememberOrigin(const QByteArray &origin, bool multiplexes)
{
    if (m_originMultiplexes.size() >= OriginProtocols::kMaxOrigins && !m_originMultiplexes.count(origin))
        m_originMultiplexes.clear();
    m_originMultiplexes[origin] = multiplexes;
}

QByteArray UpstreamClient::originKey(const UpstreamRequest &request, const TransferOptions &options)
{
    if (!options.allowHttp2 || request.url.scheme() != QLatin1String("https"))
        return {};
    QByteArray key = request.url.host().toUtf8();
    key += ':';
    key += QByteArray::number(request.url.port(443));
    if (!options.proxyUrl.isEmpty()) {
        key += ' ';
        key += options.proxyUrl.toUtf8();
    }
    // Trusted another way, it may be another server behind the same address (a test's own CA).
    key += ' ';
    key += options.verifyTls ? options.caBundlePath.toUtf8() : QByteArrayLiteral("unverified");
    return key;
}

void UpstreamClient::onHttp1EngineEvents()
{
    // The engine is off the stack of anything it still uses: callbacks may start and cancel freely.
    deliverPending();
    for (;;) {
        const std::vector<Http1Engine::Ended> ended = m_http1->takeEnded();
        if (ended.empty())
            return;
        for (const Http1Engine::Ended &end : ended) {
            const auto it = m_transfers.find(end.transferId);
            if (it == m_transfers.end())
                continue; // cancelled by an earlier callback
            const TransferPtr transfer = it->second;
            transfer->dirty = false;
            transfer->paused = false; // the transfer is over: what it holds goes out before onComplete
            deliver(transfer);
            if (transfer->retired)
                continue;
            m_stats.connectionsOpened += static_cast<quint64>(end.connectionsOpened);
            m_stats.tlsHandshakes += static_cast<quint64>(end.tlsHandshakes);
            m_stats.tlsResumptions += static_cast<quint64>(end.tlsResumptions);
            if (end.connectionsOpened == 0 && end.error == TransferError::None)
                ++m_stats.connectionsReused;
            ++m_stats.http1EngineTransfers;
            finish(transfer, end.error, end.message);
        }
    }
}

void UpstreamClient::finish(TransferPtr transfer, TransferError error, const QString &message)
{
    retire(*transfer);
    if (error == TransferError::None) {
        ++m_stats.completed;
        spdlog::debug("upstream #{} done: HTTP {}, {} bytes", transfer->id(), transfer->status(),
                      transfer->bytesReceived());
    } else {
        ++m_stats.failed;
        spdlog::debug("upstream #{} failed ({}): {}", transfer->id(), transferErrorName(error).toStdString(),
                      message.toStdString());
    }
    if (transfer->callbacks().onComplete)
        transfer->callbacks().onComplete(error, message);
}

void UpstreamClient::retire(UpstreamTransfer &transfer)
{
    if (transfer.retired)
        return;
    transfer.retired = true;
    if (transfer.idleTimer)
        transfer.idleTimer->stop();
    // Removing a transfer mid-response closes its HTTP/1.1 connection (it cannot be reused) and
    // resets an HTTP/2 stream; the upstream sees the abort at once.
    if (transfer.http1Engine)
        m_http1->abort(transfer.id());
    else if (m_multi && transfer.easy())
        curl_multi_remove_handle(m_multi, transfer.easy());
    m_transfers.erase(transfer.id());
    --m_stats.active;
    if (m_transfers.empty())
        m_activeSinceTick = true; // the quiet spell starts now
}

void UpstreamClient::armIdleTimer(UpstreamTransfer &transfer)
{
    const auto timeout = transfer.options().idleTimeout;
    if (timeout.count() <= 0 || transfer.retired || transfer.paused)
        return;
    if (!transfer.idleTimer) {
        transfer.idleTimer = std::make_unique<DeadlineTimer>(m_clock, [this, id = transfer.id()] {
            const auto it = m_transfers.find(id);
            if (it == m_transfers.end())
                return;
            const auto idle = it->second->options().idleTimeout.count();
            finish(it->second, TransferError::Timeout,
                   QStringLiteral("The upstream sent nothing for %1 ms in the middle of the response").arg(idle));
        });
    }
    // Moved later by every chunk, which costs a DeadlineTimer nothing.
    transfer.idleTimer->start(timeout);
}

} // namespace sb
