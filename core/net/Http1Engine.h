#pragma once

#include "common/Clock.h"
#include "net/HostResolver.h"
#include "net/Http1Connection.h"
#include "net/TlsClientContexts.h"
#include "net/UpstreamTransfer.h"

#include <QObject>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sb {

// Where a request goes: the addresses to try in order (or the host name that gives them), what the
// request line and Host header say and, over TLS, whom the certificate must name and what vouches
// for it. Worked out once per URL and trust.
struct Http1Target {
    // "127.0.0.1:8080", "https://api.example.com <bundle> verify": connections to it are
    // interchangeable
    QByteArray endpoint;
    std::vector<SocketAddress> addresses; // an IP literal's; empty when hostName is to be resolved
    QString hostName;                     // a name to resolve when a new connection is opened
    quint16 port = 0;
    QByteArray hostHeader;    // "127.0.0.1:8080", "[::1]:8080"
    QByteArray requestTarget; // "/v1/chat/completions?x=1"
    bool tls = false;
    TlsPeer peer;        // over TLS: the name checked, and whether anything is
    QByteArray caBundle; // over TLS: the PEM file of CAs to trust; empty: the system's
};

// UpstreamClient's own HTTP/1.1 client, plain or over TLS: hosted providers reached by name,
// local model servers (vLLM, Ollama, llama.cpp), a gateway on the same host or behind its
// TLS-terminating proxy, the simulator. Keep-alive connections on the worker's event loop, a
// request written with one sendmsg (one TLS record), the response parsed by llhttp straight into
// the transfer; none of libcurl's per-transfer setup, its timer round trips, connection-liveness
// polls and header re-parsing, which cost about a third of the proxy's CPU per request, and over
// TLS a new connection resumes with the server's last ticket. A host name is resolved by the
// HostResolver when a connection is to be opened (a kept-alive one needs none). Everything else
// (egress proxies, credentials in the URL) stays with libcurl; so does HTTP/2, which a provider
// asks for (ProviderConfig::http2), until an origin's first answer says it speaks HTTP/1.1
// (UpstreamClient decides).
//
// Behaves as the libcurl path does, so callers cannot tell them apart: the same TransferError for
// each failure, connect and total timeouts, maxResponseBytes, pause by not reading, a kept-alive
// connection the server had closed retried once on a fresh one (nothing of the request was
// answered, so it was not processed), idle connections bounded and closed on the client's sweep.
class Http1Engine : public QObject, private Http1Connection::Owner {
    Q_OBJECT
public:
    struct Ended {
        quint64 transferId = 0;
        TransferError error = TransferError::None;
        QString message;
        int connectionsOpened = 0; // 0: it ran on a kept-alive connection
        int tlsHandshakes = 0;     // full or resumed
        int tlsResumptions = 0;    // handshakes that resumed an earlier ticket
    };

    explicit Http1Engine(const Clock &clock, QObject *parent = nullptr);
    ~Http1Engine() override;

    // The target when this engine can carry the request: http or https, no credentials in the URL,
    // no egress proxy (the channel's or the environment's). Else nullptr.
    static std::shared_ptr<const Http1Target> targetFor(const UpstreamRequest &request,
                                                            const TransferOptions &options);

    // Sends the transfer's request. The response is recorded into the transfer as it arrives
    // (recordHead, recordBody, which call its activity handler); its end comes out of takeEnded()
    // after the after-events handler runs, never from inside start(). The transfer must outlive
    // its end or abort().
    void start(UpstreamTransfer &transfer, std::shared_ptr<const Http1Target> target);
    // Forgets the transfer, closing its connection unless the response was complete. Unknown ids
    // are ignored.
    void abort(quint64 transferId);
    // Stops reading the transfer's response (TCP flow control holds the upstream back) until resume().
    void pause(quint64 transferId);
    void resume(quint64 transferId);

    // Called at the end of every event the engine handled, once what it recorded is in place: the
    // client delivers it and the ends takeEnded() returns.
    void setAfterEvents(std::function<void()> handler) { m_afterEvents = std::move(handler); }
    std::vector<Ended> takeEnded() { return std::exchange(m_ended, {}); }

    void closeIdleConnections();
    std::size_t idleConnections() const { return m_idleCount; }

    // Host names are resolved by `resolver` (HostResolver::shared() unless told); it must outlive
    // the engine.
    void setHostResolver(HostResolver &resolver) { m_resolver = &resolver; }

private:
    using Deadlines = std::multimap<Clock::TimePoint, quint64>;
    struct Exchange;
    using ConnectionPtr = std::shared_ptr<Http1Connection>;

    void connectionReadable(Http1Connection &connection) override;
    void connectionWritable(Http1Connection &connection) override;

    // Opens a connection to the next address; ends the exchange when none is left. A target named
    // by host first has its addresses looked up, which may finish later (onResolved).
    void connectNext(Exchange &exchange, const QString &previousError);
    // False when the exchange waits for its addresses or has ended for want of them.
    bool haveAddresses(Exchange &exchange);
    bool takeAnswer(Exchange &exchange, const HostResolver::Answer &answer);
    void onResolved(quint64 transferId, const HostResolver::Answer &answer);
    // The TCP connection is up: the TLS handshake starts, or the request leaves.
    void connected(Exchange &exchange);
    void continueHandshake(Exchange &exchange);
    void sendRequest(Exchange &exchange);
    // A kept-alive connection failed before any answer: once more on a fresh connection.
    void retryOnFreshConnection(Exchange &exchange);
    void complete(Exchange &exchange, bool connectionReusable);
    // Records the end for takeEnded() and forgets the exchange (`exchange` is gone afterwards).
    void end(Exchange &exchange, TransferError error, const QString &message);
    Exchange *exchangeOf(const Http1Connection &connection);

    ConnectionPtr takeIdle(const QByteArray &endpoint);
    void keepIdle(ConnectionPtr connection);
    void dropIdle(Http1Connection &connection);

    // TLS holds received bytes no event announces: read them from the event loop.
    void readBufferedLater(const Http1Connection &connection);
    void onReadBuffered();

    void scheduleDeadline(Exchange &exchange);
    void onDeadline();
    void runAfterEvents();

    std::unordered_map<quint64, std::unique_ptr<Exchange>> m_exchanges;
    std::unordered_map<QByteArray, std::vector<ConnectionPtr>> m_idle;
    std::size_t m_idleCount = 0;
    Deadlines m_deadlines;
    const Clock &m_clock;
    std::unique_ptr<Timer> m_deadlineTimer;
    Clock::TimePoint m_deadlineArmedFor{};
    std::unique_ptr<Timer> m_endLater; // 0 ms: reports ends that start() found, from the event loop
    std::unique_ptr<Timer> m_readBufferedTimer; // 0 ms: see readBufferedLater()
    std::vector<quint64> m_readBuffered;        // transfers whose connection holds input
    TlsClientContexts m_tlsContexts;
    std::vector<Ended> m_ended;
    std::function<void()> m_afterEvents;
    std::unique_ptr<char[]> m_readBuffer;
    HostResolver *m_resolver = nullptr;
    std::shared_ptr<ResolverInbox> m_resolverInbox = std::make_shared<ResolverInbox>(this);
};

} // namespace sb
