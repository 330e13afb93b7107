#pragma once

#include "common/HttpHeaders.h"
#include "net/DeadlineTimer.h"
#include "net/UpstreamRequest.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

typedef void CURL; // as curl/curl.h declares it; keeps libcurl's header out of every includer

struct curl_slist;

namespace sb {

class EasyHandlePool;

// How one upstream attempt may behave. The router fills it from the channel's config and the
// attempt's share of the request deadline.
struct TransferOptions {
    std::chrono::milliseconds connectTimeout{5000}; // TCP + TLS (+ proxy) handshake; libcurl's own default is 300 s
    std::chrono::milliseconds totalTimeout{30000};  // the primary channel's attempt budget (split budgets: fallbacks get less); 0 = none
    // Inter-token idle timeout: armed when the response headers arrive and re-armed by every body
    // chunk; time to the first byte is the totalTimeout's business. 0 = off.
    std::chrono::milliseconds idleTimeout{0};
    QString proxyUrl;           // per-channel egress HTTP proxy; empty = the environment's (http_proxy, no_proxy…)
    // h2 over TLS when the server offers it (ALPN), through libcurl; plain http stays HTTP/1.1.
    // A provider's transfers say what it chose (applyProviderTls; HTTP/1.1 unless asked).
    bool allowHttp2 = true;
    qint64 maxResponseBytes = 0; // larger bodies fail with TooLarge; 0 = no limit
    // PEM file of CAs to trust instead of the system bundle: a local server with its own CA, or a
    // TLS-inspecting corporate egress. Empty = the system bundle. Parsed once per process and
    // shared by every connection (TlsTrust).
    QString caBundlePath;
    // false: the server's certificate and name are not checked at all. Only ever a provider's own,
    // explicit and warned-about choice (ProviderConfig::tlsSkipVerify); never a fallback.
    bool verifyTls = true;
};

struct ProviderConfig;

// The provider's TLS trust (its CA bundle, or its choice not to verify) and whether it is offered
// HTTP/2 into `options`: every transfer to a provider, whatever sends it, goes through here.
void applyProviderTls(TransferOptions &options, const ProviderConfig &provider);

enum class TransferError {
    None,          // the exchange completed; any HTTP status, 5xx included, is the caller's to judge
    ConnectFailed, // nothing was sent: refused, connect timeout
    // Nothing was sent either, for a reason that is the configuration's, not the provider's health:
    // the channel is set aside until fixed (ARCHITECTURE.md, "Errors and outcomes").
    NameNotResolved, // the host (or the egress proxy) has no address
    TlsFailed,       // the TLS handshake failed or the certificate was refused
    Timeout,       // totalTimeout or idleTimeout ran out after the request went out
    Reset,         // the connection broke mid-response (RST, early close, HTTP/2 stream error)
    Cancelled,     // only in Stats; cancel() itself never calls back
    TooLarge,      // the body passed maxResponseBytes
    Other,
};

// "connect_failed", "timeout", …: stable names for logs, events and history rows.
QString transferErrorName(TransferError error);

struct TransferCallbacks {
    // Once, when the final status line and headers are complete (1xx interim responses are skipped).
    std::function<void(int status, const HttpHeaders &headers)> onHeaders;
    // Each piece of the body as it arrives, undecoded (no Content-Encoding processing).
    std::function<void(QByteArrayView chunk)> onData;
    // Exactly once per transfer, never after cancel().
    std::function<void(TransferError error, const QString &message)> onComplete;
};

// One upstream attempt: its libcurl easy handle, the request it sends and the response state
// libcurl's callbacks fill in. libcurl's callbacks only record; UpstreamClient delivers to the
// caller after curl_multi_socket_action has returned, so a caller may cancel or start transfers
// from its callbacks without re-entering libcurl.
class UpstreamTransfer {
public:
    // `pool`, when given, supplies the easy handle and takes it back (see EasyHandlePool).
    UpstreamTransfer(quint64 id, const UpstreamRequest &request, const TransferOptions &options,
                     TransferCallbacks callbacks, std::shared_ptr<EasyHandlePool> pool = nullptr);
    ~UpstreamTransfer(); // the easy handle must already be out of its multi handle
    UpstreamTransfer(const UpstreamTransfer &) = delete;
    UpstreamTransfer &operator=(const UpstreamTransfer &) = delete;

    // Creates and configures the easy handle; false with a reason when the request cannot be sent.
    bool setUp(QString *error);

    quint64 id() const { return m_id; }
    const UpstreamRequest &request() const { return m_request; }
    CURL *easy() const { return m_easy; }
    const TransferOptions &options() const { return m_options; }
    const TransferCallbacks &callbacks() const { return m_callbacks; }
    qint64 bytesReceived() const { return m_received; }
    int status() const { return m_status; }

    // Called from inside libcurl whenever something became deliverable (headers or body bytes).
    void setActivityHandler(std::function<void()> handler) { m_onActivity = std::move(handler); }

    // The response as it arrives, from libcurl's callbacks or the Http1Engine: the final status
    // and headers, then body pieces. recordBody is false, and tooLarge() true, once the body passes
    // maxResponseBytes. Both call the activity handler.
    void recordHead(int status, HttpHeaders &&headers);
    bool recordBody(QByteArrayView piece);
    bool tooLarge() const { return m_tooLarge; }
    // A final head came with a Content-Length (libcurl's reading of it: only an error path asks)
    // and that many body bytes arrived.
    bool hasWholeAnswer() const;
    // Nothing came back and the request's body had not all gone out: the server cannot have
    // acted on the request, so sending it again is safe.
    bool endedBeforeItsBodyWent() const;
    int resends = 0; // times the client sent it again (UpstreamClient::collectFinished)
    QString tooLargeMessage() const;

    // Why these headers cannot go out (a line break in a name or value: an API key pasted with its
    // newline), or empty.
    static QString headerProblem(const HttpHeaders &headers);

    // True exactly once, when the final headers are complete and not yet handed out.
    bool takeHeaders(int *status, HttpHeaders *headers);
    QByteArray takeData();
    bool hasPendingData() const { return !m_pending.isEmpty(); }

    // libcurl's result for this transfer → what the router needs to know, with a sentence for logs.
    std::pair<TransferError, QString> classify(int curlCode) const;

    // "POST https://host/v1/chat/completions [Authorization: Bearer sk-…a1F3, …]": secrets masked.
    QString describeForLog() const;

    // Bookkeeping owned by UpstreamClient.
    bool dirty = false;
    bool retired = false; // removed from the multi handle; nothing may be delivered any more
    std::unique_ptr<DeadlineTimer> idleTimer; // the inter-token idle timeout, made when first armed
    bool paused = false;
    bool http1Engine = false; // carried by the Http1Engine, not libcurl
    // HTTPS with h2 allowed: wait for a connection still being set up in case it multiplexes
    // (CURLOPT_PIPEWAIT). The client turns it off for origins known to speak HTTP/1.1 only.
    bool pipeWait = true;

private:
    static std::size_t headerCallback(char *data, std::size_t size, std::size_t count, void *self);
    static std::size_t writeCallback(char *data, std::size_t size, std::size_t count, void *self);
    static int sslContextCallback(CURL *easy, void *sslContext, void *self);
    void onHeaderLine(QByteArrayView line);

    const quint64 m_id;
    UpstreamRequest m_request;
    const TransferOptions m_options;
    const TransferCallbacks m_callbacks;
    std::function<void()> m_onActivity;

    std::shared_ptr<EasyHandlePool> m_pool;
    CURL *m_easy = nullptr;
    struct curl_slist *m_headerList = nullptr;
    QByteArray m_url;
    QByteArray m_proxy;
    QByteArray m_caBundle;
    QString m_trustError; // why the CA bundle could not be used (TlsTrust), for classify()
    char m_errorBuffer[256] = {}; // CURL_ERROR_SIZE

    int m_status = 0;
    HttpHeaders m_headers;
    bool m_headersComplete = false;
    bool m_headersTaken = false;
    QByteArray m_pending;
    qint64 m_received = 0;
    bool m_tooLarge = false;
};

} // namespace sb
