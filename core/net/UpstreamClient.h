#pragma once

#include "common/Clock.h"
#include "net/EasyHandlePool.h"
#include "net/UpstreamTransfer.h"
#include "net/UpstreamTransport.h"

#include <QObject>

#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

typedef void CURLM; // as curl/curl.h declares it

namespace sb {

class HostResolver;
class Http1Engine;

// HTTP client for upstream providers: one libcurl multi handle driven by the owning worker
// thread's Qt event loop (CURLMOPT_SOCKETFUNCTION → QSocketNotifier, CURLMOPT_TIMERFUNCTION →
// a timer of the client's Clock), never blocking. The multi handle keeps the connection cache, so consecutive requests to
// one provider reuse connections, and HTTP/2 servers multiplex. Unlike QNetworkAccessManager there
// is no 6-connections-per-host cap.
//
// Most requests go through the Http1Engine instead, the client's own HTTP/1.1 connections on the
// same loop, to an address or a host name: plain HTTP, and HTTPS unless HTTP/2 is allowed (a
// provider's choice) and the origin has not yet answered libcurl in HTTP/1.x. The same callbacks,
// errors and timeouts at a fraction of libcurl's cost per request. Egress proxies and credentials
// in the URL stay with libcurl.
//
// One per worker thread; it lives on that thread and is not thread-safe. Callbacks run on that
// thread from the event loop, never from inside libcurl, so they may call start() and cancel()
// (even on their own transfer). Do not delete the client from inside one of its callbacks.
class UpstreamClient : public QObject, public UpstreamTransport {
    Q_OBJECT
    friend struct UpstreamSocketHooks; // libcurl's open/close socket callbacks (UpstreamClient.cpp)
public:
    struct Stats {
        quint64 started = 0;
        quint64 completed = 0;         // onComplete(None): any HTTP status
        quint64 failed = 0;            // onComplete(error)
        quint64 cancelled = 0;         // cancel() on a live transfer, or the client destroyed under it
        quint64 active = 0;
        quint64 bytesReceived = 0;     // body bytes
        quint64 connectionsOpened = 0; // new connections finished transfers needed (CURLINFO_NUM_CONNECTS)
        quint64 connectionsReused = 0; // finished transfers that needed no new connection
        quint64 http2Transfers = 0;    // finished transfers that spoke HTTP/2
        quint64 idleSweeps = 0;        // times the connection cache was closed after a quiet spell
        quint64 http1EngineTransfers = 0; // finished transfers the Http1Engine carried
        quint64 tlsHandshakes = 0;     // TLS handshakes the Http1Engine's finished transfers needed
        quint64 tlsResumptions = 0;    // of those, the ones that resumed an earlier session
        // HTTPS transfers started without CURLOPT_PIPEWAIT because their origin answered in
        // HTTP/1.1 before (see originKey): they open a connection at once when none is free.
        quint64 http1OriginTransfers = 0;
        // HTTP/2 answers that were complete when the server closed the stream before the request's
        // body had gone out (RFC 9113 §8.1 lets a server answer early); libcurl reports those as a
        // stream error, and they are kept as the answers they are.
        quint64 http2EarlyAnswersKept = 0;
        // HTTP/2 requests sent again (twice at most) because the server closed the stream before
        // their body had gone out and nothing had come back (the answer it gave, if any, libcurl
        // dropped).
        quint64 http2Resends = 0;
    };

    explicit UpstreamClient(const Clock &clock, QObject *parent = nullptr);
    // A client whose timeouts run on the real clock.
    explicit UpstreamClient(QObject *parent = nullptr) : UpstreamClient(SystemClock::instance(), parent) {}
    ~UpstreamClient() override; // aborts what is still running, without callbacks

    // Starts a transfer and returns its id (never 0). Every outcome, even an invalid URL, arrives
    // later through onComplete, never from inside start().
    quint64 start(const UpstreamRequest &request, const TransferOptions &options, TransferCallbacks callbacks) override;
    // Aborts at once: the easy handle is freed, an HTTP/1.1 connection is closed (an h2 stream is
    // reset) and no callback follows. Unknown or finished ids are ignored.
    void cancel(quint64 transferId) override;

    // Backpressure for a slow downstream: stop reading this transfer's response (TCP flow control,
    // or the HTTP/2 stream window, then holds the upstream back) until resume(). No onData arrives
    // while paused, and the idle timeout does not run. The total timeout still does.
    void pause(quint64 transferId) override;
    void resume(quint64 transferId) override;

    Stats stats() const { return m_stats; }

    // Easy handles kept for the next transfers (EasyHandlePool).
    std::size_t idleEasyHandles() const { return m_easyHandles->idleCount(); }
    bool isActive(quint64 transferId) const { return m_transfers.count(transferId) != 0; }

    // On by default (SB_UPSTREAM_ENGINE=curl in the environment turns it off); off sends every
    // request through libcurl (the tests run both ways).
    void setHttp1EngineEnabled(bool enabled) { m_http1EngineEnabled = enabled; }
    // Kept-alive connections of the Http1Engine waiting for the next request.
    std::size_t idleHttp1Connections() const;
    // The Http1Engine's host names are looked up by `resolver` (HostResolver::shared() unless
    // told); it must outlive the client.
    void setHostResolver(HostResolver &resolver);

    // Cached connections are closed once no transfer has run for this long (60 s by default; the
    // sweep ticks at this interval, so it happens within twice the time): libcurl
    // looks at a cached connection only when the next transfer starts, so an idle proxy otherwise holds
    // every upstream socket of its last busy moment (the soak found 50+ kept after traffic stopped).
    void setIdleConnectionLifetime(std::chrono::milliseconds lifetime);

private:
    struct SocketWatch;
    using TransferPtr = std::shared_ptr<UpstreamTransfer>;

    static int socketCallback(CURL *easy, int socket, int what, void *self, void *socketp);
    static int timerCallback(CURLM *multi, long timeoutMs, void *self);
    void watchSocket(int socket, int what);
    void onSocketActivated(int socket, int event);
    void socketAction(int socket, int events);
    void sendWhatWaitsForWritable();
    void scheduleDelivery();
    void deliverPending();
    void deliver(TransferPtr transfer);
    void collectFinished();
    void finish(TransferPtr transfer, TransferError error, const QString &message);
    void retire(UpstreamTransfer &transfer);
    void armIdleTimer(UpstreamTransfer &transfer);
    bool createMulti();
    void onHttp1EngineEvents();
    void onIdleSweepTick();
    // Only from the event loop with no transfer left: a new multi handle, an empty connection cache.
    void closeIdleConnections();

    // Whether an HTTPS transfer goes to the Http1Engine: h2 is not allowed, or its origin's last
    // answer through libcurl came in HTTP/1.x.
    bool speaksHttp1(const UpstreamRequest &request, const TransferOptions &options);
    // What `origin` spoke last (true: h2), as this client knows it or another worker's learnt it;
    // nullopt while no transfer to it has finished through libcurl.
    std::optional<bool> originMultiplexes(const QByteArray &origin);
    void rememberOrigin(const QByteArray &origin, bool multiplexes);
    // "host:port proxy trust" of an HTTPS transfer that may speak h2, or empty (no PIPEWAIT question).
    static QByteArray originKey(const UpstreamRequest &request, const TransferOptions &options);

    CURLM *m_multi = nullptr;
    const Clock &m_clock;
    std::unique_ptr<Timer> m_curlTimer;
    std::unique_ptr<Timer> m_deliveryTimer; // 0 ms: hands over what arrived outside socketAction()
    std::unique_ptr<Timer> m_idleSweep;     // ticks every idle-connection lifetime
    static constexpr std::chrono::seconds kDefaultIdleLifetime{60};
    bool m_activeSinceTick = false;    // a transfer ran since the last tick
    bool m_usedSinceSweep = false;     // connections may be cached
    std::unordered_map<int, std::unique_ptr<SocketWatch>> m_sockets;
    std::unordered_set<int> m_connectionSockets; // libcurl connections, open (UpstreamSocketHooks)
    std::vector<int> m_newlyWritable;            // sockets libcurl began to want written (sendWhatWaitsForWritable)
    Http1Engine *m_http1 = nullptr; // a child, so it follows the client to its thread
    bool m_http1EngineEnabled = true;
    std::shared_ptr<EasyHandlePool> m_easyHandles = std::make_shared<EasyHandlePool>();
    std::unordered_map<quint64, TransferPtr> m_transfers;
    std::vector<quint64> m_dirty;                  // transfers with undelivered headers or data
    // HTTPS origins by what their last finished transfer spoke: true h2, false HTTP/1.x; this
    // client's copy of OriginProtocols, read without a lock. Kept across idle sweeps (a new multi
    // handle knows nothing), bounded as OriginProtocols is.
    std::unordered_map<QByteArray, bool> m_originMultiplexes;
    quint64 m_nextId = 1;
    Stats m_stats;
};

} // namespace sb
