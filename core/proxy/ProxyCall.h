#pragma once

#include "frontends/openai_chat/ChatRequest.h"
#include "net/DeadlineTimer.h"
#include "net/UpstreamTransfer.h"
#include "providers/ProviderAdapter.h"
#include "proxy/StreamContinuation.h"
#include "routing/RetryState.h"
#include "routing/Router.h"
#include "stream/SseParser.h"
#include "telemetry/HistoryRecords.h"

#include <QObject>

#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace sb {

class ClientApi;
class ClientResponse;
class ReplyChannel;
class EngineContext;
class RetryBudget;
class StreamTee;
class UpstreamTransport;

// One proxied request from arrival to the last byte (ARCHITECTURE.md, "The life of a request",
// steps 7–14): ask the router for a channel, translate the request into the channel's dialect, send
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
        // The API the client called, which words the answer; null: OpenAI chat completions.
        std::shared_ptr<ClientApi> api;
        QString clientApi = QStringLiteral("openai_chat"); // its name, for the history
        // The client's own request and protocol headers (anthropic-version, anthropic-beta), for a
        // channel whose dialect speaks the client's API: it gets them nearly as sent. Empty: none.
        QByteArray nativeBody;
        HttpHeaders nativeHeaders;
        std::shared_ptr<StreamTee> cacheTee; // saves a complete answer to the cache; null = not cached
        QByteArray cacheHeader;              // x-switchboard-cache on this answer ("miss", "skip"), if any
    };

    ProxyCall(EngineContext &engine, UpstreamTransport &upstream, Input input, std::shared_ptr<ClientResponse> response,
              std::function<void(ProxyCall *)> onFinished);
    ~ProxyCall() override;

    void start();

private:
    struct Attempt;
    // Where the call is. Every transition is in one place: enterRouting() (Routing), launch()
    // (Attempting), startClientStream() (Streaming), finish() (Finished). Once Streaming, the call
    // stays so until it finishes, through the attempts of a continuation.
    enum class Stage {
        Routing,    // between attempts: choosing a channel, or waiting out a backoff
        Attempting, // an attempt is in flight and no byte has reached the client: failover is invisible
        Streaming,  // the client's stream has started: a failure now is continued on another
                    // channel (StreamContinuation) or ends the stream with an error event
        Finished,   // the client has its answer, or is gone; nothing more happens
    };
    // A retry in flight counted against the RetryBudget, given back when the attempt ends.
    class RetrySlot {
    public:
        explicit RetrySlot(RetryBudget &budget) : m_budget(&budget) {}
        RetrySlot(RetrySlot &&other) noexcept : m_budget(std::exchange(other.m_budget, nullptr)) {}
        RetrySlot &operator=(RetrySlot &&) = delete;
        ~RetrySlot();

    private:
        RetryBudget *m_budget;
    };

    void nextAttempt();
    // Between attempts: Routing, unless the client's stream is open (a continuation is routed).
    void enterRouting();
    // No channel can take the attempt until a rate limit passes (a cooling key, a provider's limit), in
    // `wait`: waits it out and tries again when that fits in what is left of the max client wait and of
    // the deadline, and says whether it does. Never the hint again on top: the router hands out no
    // key inside its cool-down, so the wait is the route's, not one attempt's.
    bool waitForRateLimit(Clock::Duration wait);
    // Before the request's last attempt: waits (as for a rate limit) for an untried channel of its
    // route that comes free within the max client wait, rather than spend the attempt on a tried one.
    bool keepLastAttemptForAnUntriedChannel();
    void launch(RouteChoice choice);
    // The attempt's key on its way out: as it is, or exchanged for an access token first.
    void sendAttempt();
    void startTransfer(const QString &key);
    // The provider refused the attempt's exchanged access token (expired, revoked): exchanges it
    // anew and sends the attempt again, once (true); false for any other failure.
    bool refreshRefusedToken(const Outcome &outcome);
    QString keyLabel() const; // the attempt's key as the user named it (or masked), for sentences
    void onUpstreamHeaders(int status, const HttpHeaders &headers);
    // An upstream event as the client gets it; `worded` says the client API wrote it itself.
    QByteArray passThroughBytes(const SseEvent &event, bool *worded);
    void onUpstreamData(QByteArrayView chunk);
    void onUpstreamComplete(TransferError error, const QString &message);
    void onAttemptTimeout();
    // No content for the stall deadline once the stream's content had begun.
    void onStreamStalled();
    // Content of the attempt's stream arrived (sent or held): the stall deadline starts again.
    void contentArrived();
    // The attempt has waited its channel's slow-wait threshold: evidence, and perhaps the hedge.
    void onAttemptSlow();
    bool waitingForFirstByte() const;
    void onClientGone();
    // Cancels the attempt's upstream transfer, if it is still running.
    void cancelTransfer();

    void handleStreamEvents(std::vector<SseEvent> &&events);
    void handleStreamStep(StreamStep &&step);
    // A stream from an upstream that speaks the client's API: its events go out as they came, held
    // only until the first content so that an early error can still fail over.
    void passThroughEvent(const SseEvent &event, StreamStep &&step);
    void completeBufferedResponse();
    void completeStream();

    // The current attempt failed with `outcome`: record it and fail over, or answer the client.
    void attemptFailed(Outcome outcome);
    // A client error on `providerId`: starts its one try on another provider's channel (true), or
    // says there is none to try (false).
    bool tryClientErrorElsewhere(const Outcome &outcome, int channelId, int providerId);
    void recordAttempt(const Outcome &outcome);
    void endAttempt();
    // Steps of a stream may end the attempt and start the next one (a failover) before returning;
    // callers check with this that the attempt they were working on is still the current one.
    bool isCurrent(std::uint64_t sequence) const { return m_attempt && m_attemptSequence == sequence; }

    void replyError(const ApiError &error, std::optional<Clock::Duration> retryAfter = std::nullopt);
    void replyFromLastOutcome(const QString &why, bool deadlineReached = false);
    HttpHeaders routingHeaders() const;
    void startClientStream();
    void pauseIfClientIsSlow();
    void writeStreamError(const Outcome &outcome);
    // The stream broke after some of it reached the client: why another channel cannot continue
    // it (empty when it can), given what broke it and whether that attempt was passed through.
    QString continuationRefusal(const Outcome &outcome, bool passedThrough) const;
    void continueStream();
    // The stream cannot go on: its error event, and the history says why no rescue was tried.
    void endBrokenStream(const Outcome &outcome, const QString &notContinued);
    void recordCost(RequestStatus status);
    void finish(RequestStatus status, int httpStatus, const QString &error = QString());
    bool isCallersUnknownModel(RequestStatus status, int httpStatus) const;

    EngineContext &m_engine;
    UpstreamTransport &m_upstream;
    const Input m_input;
    ClientApi &m_api; // m_input's, or the engine's own
    std::shared_ptr<ClientResponse> m_response;
    std::function<void(ProxyCall *)> m_onFinished;
    std::shared_ptr<const RetryPolicy> m_policy;
    RetryState m_retry;

    Stage m_stage = Stage::Routing;
    std::unique_ptr<Attempt> m_attempt;
    std::uint64_t m_attemptSequence = 0;
    std::optional<RetrySlot> m_retrySlot; // the current attempt is a retry that spends the budget
    std::optional<int> m_lastFailedChannel;
    int m_lastFailedProvider = 0;
    std::optional<Outcome> m_lastOutcome;
    Clock::Duration m_rateLimitWaited{}; // held so far for rate limits: never past RetryConfig::maxClientWait
    // The first client error (NON_RETRYABLE_PARAM_ERROR), while the one try on another provider
    // runs: whatever that try comes to short of an answer, this is what the client gets.
    struct ClientErrorTried {
        Outcome outcome;
        int channelId = 0;
        QString channelName;
    };
    std::optional<ClientErrorTried> m_clientError;
    int m_firstChannelId = 0;
    Clock::TimePoint m_startedAt;
    std::optional<Clock::Duration> m_clientTtft; // set once the client's first byte went out
    TokenUsage m_usage; // the current attempt's; every attempt's once finished
    // What of a stream reached the client, for a continuation if it breaks; used only while
    // m_tracksText (a chat stream whose route continues streams).
    StreamContinuation m_continuation;
    bool m_tracksText = false;
    // A chat stream whose route does not stream tool-call arguments as they arrive: a call is
    // held until the answer finishes, so it reaches the client whole, once.
    bool m_holdsToolCalls = false;
    // Most calls are a buffered answer on the first attempt and start neither; a DeadlineTimer makes
    // its clock timer only when started (two timers made and connected a request were ~3,000 instructions).
    DeadlineTimer m_attemptTimer; // stream attempts: time to the first content
    DeadlineTimer m_stallTimer;   // stream attempts: time between pieces of content
    DeadlineTimer m_backoffTimer;
    DeadlineTimer m_slowTimer; // the channel's slow-wait threshold, then its re-checks
    RequestRecord m_record;
    std::shared_ptr<ReplyChannel> m_replies; // made for the first token exchange this call waits for
};

} // namespace sb
