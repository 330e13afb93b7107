#pragma once

#include "engine/ChatRequest.h"
#include "net/DeadlineTimer.h"
#include "net/UpstreamTransfer.h"
#include "providers/ProviderAdapter.h"
#include "routing/RetryState.h"
#include "routing/Router.h"
#include "stream/SseParser.h"
#include "telemetry/HistoryRecords.h"

#include <QObject>

#include <functional>
#include <memory>
#include <optional>

namespace sb {

class EngineContext;
class ResponseWriter;
class StreamTee;
class UpstreamClient;

// One proxied request from arrival to the last byte (ARCHITECTURE.md, "One request, end to end",
// steps 3–9): ask the router for a channel, translate the request into the channel's dialect, send
// it, classify what comes back, and either answer the client or fail over — invisibly to the client
// as long as no byte has reached it. Lives on one worker thread, like its connection.
class ProxyCall : public QObject {
    Q_OBJECT
public:
    enum class Kind { Chat, Embeddings };

    struct Input {
        Kind kind = Kind::Chat;
        QString requestId;
        ClientBody body; // with the client's bytes until someone edits it
        QString model;
        bool stream = false;
        int estimatedTokens = 0;
        QString autoTier; // the tier ModelSelector chose when the caller asked for the task-based model
        std::shared_ptr<StreamTee> cacheTee; // issue #8: saves a complete answer to the cache; null = not cached
        QByteArray cacheHeader;              // x-switchboard-cache on this answer ("miss", "skip"), if any
    };

    ProxyCall(EngineContext &engine, UpstreamClient &upstream, Input input, std::shared_ptr<ResponseWriter> response,
              std::function<void(ProxyCall *)> onFinished);
    ~ProxyCall() override;

    void start();

private:
    struct Attempt;

    void nextAttempt();
    void launch(RouteChoice choice);
    void onUpstreamHeaders(int status, const HttpHeaders &headers);
    void onUpstreamData(QByteArrayView chunk);
    void onUpstreamComplete(TransferError error, const QString &message);
    void onAttemptTimeout();
    void onClientGone();

    void handleStreamEvents(std::vector<SseEvent> &&events);
    void handleStreamStep(StreamStep &&step);
    void completeBufferedResponse();
    void completeStream();

    // The current attempt failed with `outcome`: record it and fail over, or answer the client.
    void attemptFailed(Outcome outcome);
    void recordAttempt(const Outcome &outcome);
    void endAttempt();
    // Steps of a stream may end the attempt and start the next one (a failover) before returning;
    // callers check with this that the attempt they were working on is still the current one.
    bool isCurrent(std::uint64_t sequence) const { return m_attempt && m_attemptSequence == sequence; }

    void replyError(const ApiError &error, std::optional<Clock::Duration> retryAfter = std::nullopt);
    void replyFromLastOutcome(const QString &why);
    HttpHeaders routingHeaders() const;
    void startClientStream();
    void pauseIfClientIsSlow();
    void writeStreamError(const Outcome &outcome);
    void recordCost(RequestStatus status);
    void finish(RequestStatus status, int httpStatus, const QString &error = QString());

    EngineContext &m_engine;
    UpstreamClient &m_upstream;
    const Input m_input;
    std::shared_ptr<ResponseWriter> m_response;
    std::function<void(ProxyCall *)> m_onFinished;
    std::shared_ptr<const RetryPolicy> m_policy;
    RetryState m_retry;

    std::unique_ptr<Attempt> m_attempt;
    std::uint64_t m_attemptSequence = 0;
    std::optional<int> m_lastFailedChannel;
    std::optional<Outcome> m_lastOutcome;
    int m_firstChannelId = 0;
    bool m_spendingRetryBudget = false; // the current attempt holds a RetryBudget slot
    bool m_clientStreamStarted = false;
    bool m_upstreamPaused = false;
    bool m_finished = false;
    bool m_deadlineReached = false; // an attempt cut by the deadline's remainder timed out
    Clock::TimePoint m_startedAt;
    std::optional<Clock::Duration> m_clientTtft;
    TokenUsage m_usage;
    // Most calls are a buffered answer on the first attempt and start neither; a DeadlineTimer makes
    // its QTimer only when started (two QTimers made and connected a request were ~3,000 instructions).
    DeadlineTimer m_attemptTimer{[this] { onAttemptTimeout(); }}; // stream attempts: time to the first event
    DeadlineTimer m_backoffTimer{[this] { nextAttempt(); }};
    RequestRecord m_record;
};

} // namespace sb
