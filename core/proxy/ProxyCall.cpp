#include "proxy/ProxyCall.h"

#include "common/ReplyChannel.h"
#include "common/SecretMask.h"
#include "common/json/JsonObjectEdit.h"
#include "common/json/JsonObjectScan.h"
#include "common/json/JsonText.h"
#include "frontends/openai_chat/OpenAiChatApi.h"
#include "net/ClientResponse.h"
#include "net/UpstreamTransport.h"
#include "proxy/ClientErrors.h"
#include "proxy/EngineContext.h"
#include "providers/ProviderRegistry.h"
#include "routing/CostMeter.h"
#include "stream/StreamTee.h"

#include <QJsonDocument>
#include <QPointer>

#include <spdlog/spdlog.h>

#include <cmath>

namespace sb {

namespace {

// Tier and attempt counts are a single digit nearly always: those come from literals, no allocation.
QByteArray smallNumber(int n)
{
    static const QByteArray digits[] = {
        QByteArrayLiteral("0"), QByteArrayLiteral("1"), QByteArrayLiteral("2"), QByteArrayLiteral("3"), QByteArrayLiteral("4"),
        QByteArrayLiteral("5"), QByteArrayLiteral("6"), QByteArrayLiteral("7"), QByteArrayLiteral("8"), QByteArrayLiteral("9"),
    };
    return n >= 0 && n <= 9 ? digits[n] : QByteArray::number(n);
}

// Error bodies are read whole to classify them; anything longer than this is not an error message.
constexpr qsizetype kMaxBufferedBody = 64 * 1024 * 1024;
// Back-pressure for streams: pause the upstream above this much unsent data, resume below the other.
constexpr qint64 kPauseAboveBytes = 256 * 1024;
constexpr qint64 kResumeBelowBytes = 64 * 1024;
// How often a request waiting past its channel's slow-wait threshold looks whether the channel's
// circuit has opened: an eighth of the threshold (250 ms at the 2 s floor), so the hedge follows the
// opening within a fraction of the wait that preceded it, on a time-scaled drill too.
constexpr int kSlowWaitRechecks = 8;

Outcome outcomeFromTransfer(TransferError error, const QString &message)
{
    switch (error) {
    case TransferError::ConnectFailed:
        return Outcome::local(OutcomeKind::ConnectFailed, message);
    case TransferError::NameNotResolved:
    case TransferError::TlsFailed: {
        Outcome outcome = Outcome::local(OutcomeKind::ConnectFailed, message);
        outcome.misconfiguration = error == TransferError::TlsFailed ? Misconfiguration::TlsFailed : Misconfiguration::NameNotResolved;
        return outcome;
    }
    case TransferError::Timeout:
        return Outcome::local(OutcomeKind::Timeout, message);
    case TransferError::Reset:
    case TransferError::TooLarge:
    case TransferError::Other:
    case TransferError::Cancelled:
    case TransferError::None:
        break;
    }
    Outcome outcome = Outcome::local(OutcomeKind::ProviderDown, message);
    return outcome;
}

int millisOf(Clock::Duration d)
{
    return static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

// An answer from an upstream that speaks the client's API, as it came but for the model, which
// names what the client asked for (as every answer does).
QByteArray passedThroughAnswer(const QByteArray &body, const QString &model)
{
    JsonObjectScan scan;
    if (scan.scan(body)) {
        QByteArray modelJson;
        appendJsonString(&modelJson, model);
        const JsonMemberValue members[] = {{"model", modelJson}};
        return withMembersSet(body, scan, members);
    }
    QJsonObject object = QJsonDocument::fromJson(body).object();
    object.insert(QStringLiteral("model"), model);
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// What a passed-through stream's translator is told of the request: its model, and that the
// usage is wanted (the history records it).
QJsonObject passThroughStreamShape(const QString &model)
{
    return QJsonObject{{QStringLiteral("model"), model},
                       {QStringLiteral("stream_options"), QJsonObject{{QStringLiteral("include_usage"), true}}}};
}

} // namespace

// Everything about the attempt in progress; replaced for each new attempt.
struct ProxyCall::Attempt {
    RouteChoice choice;
    const ProviderAdapter *adapter = nullptr;
    const ProviderConfig *provider = nullptr; // kept alive by `config`
    EngineConfigPtr config;
    quint64 transferId = 0;
    Clock::TimePoint startedAt;
    qint64 startedWallMs = 0;
    int status = 0;
    HttpHeaders headers;
    QByteArray body; // error bodies and non-stream answers
    bool streaming = false; // a 200 SSE answer is being translated
    bool budgetIsDeadline = false; // the attempt's budget was the request deadline's remainder
    std::optional<Clock::Duration> slowAfter; // the channel's slow-wait threshold when it started
    SseParser parser;
    std::unique_ptr<StreamTranslator> translator;
    std::optional<Clock::Duration> ttft;
    bool recorded = false;
    bool upstreamPaused = false; // the client reads slower than the provider writes
    bool passThrough = false;    // the upstream speaks the client's API: its answer goes out as it came
    QByteArray held;             // a pass-through stream's events before its first content
    // A pass-through stream's events in the engine's chunks, and the content blocks they started:
    // what a continuation's writer takes up (ClientApi::resumeAfterPassThrough). Kept while text is.
    std::vector<QByteArray> passedChunks;
    int passedBlocks = 0;
    std::vector<QByteArray> heldChunks; // and their OpenAI chunks, for the cache
    // A pass-through stream's events from a tool call's start to the answer's end, and their
    // chunks: released together, dropped if the stream breaks first (m_holdsToolCalls). Kept as
    // they came, and worded only when released, so that a client API wording its own events
    // (Responses) numbers only what it sent.
    std::vector<SseEvent> heldCall;
    std::vector<QByteArray> heldCallChunks;
    std::vector<QByteArray> preamble;   // a translated stream's chunks before its first content
    qsizetype preambleBytes = 0;
    QByteArray method; // what was sent, for the sentence when the endpoint turns out not to exist
    QUrl url;
    const ChannelConfig *channel = nullptr; // kept alive by `config`
    QString token;        // what went out as the key: the key itself, or the access token it was exchanged for
    bool exchanged = false; // `token` came from an exchange (AccessTokens)
    QString refusedToken; // the exchanged token the provider refused; set once the attempt was sent again
    int continuesAfter = -1; // a continuation: the characters of the answer the client had when it began

    // The running transfer's id, which is then no longer the attempt's (0 when none runs).
    quint64 takeTransfer() { return std::exchange(transferId, 0); }
};

ProxyCall::RetrySlot::~RetrySlot()
{
    if (m_budget)
        m_budget->retryFinished();
}

ProxyCall::ProxyCall(EngineContext &engine, UpstreamTransport &upstream, Input input,
                     std::shared_ptr<ClientResponse> response, std::function<void(ProxyCall *)> onFinished)
    : m_engine(engine),
      m_upstream(upstream),
      m_input(std::move(input)),
      m_api(m_input.api ? *m_input.api : static_cast<ClientApi &>(OpenAiChatApi::instance())),
      m_response(std::move(response)),
      m_onFinished(std::move(onFinished)),
      m_policy(engine.retryPolicy()),
      m_retry(*m_policy, engine.clock(), engine.clock().now()),
      m_startedAt(engine.clock().now()),
      m_attemptTimer(engine.clock(), [this] { onAttemptTimeout(); }),
      m_stallTimer(engine.clock(), [this] { onStreamStalled(); }),
      m_backoffTimer(engine.clock(), [this] { nextAttempt(); }),
      m_slowTimer(engine.clock(), [this] { onAttemptSlow(); })
{
    m_record.requestId = m_input.requestId;
    m_record.timeMs = engine.clock().wallMillis();
    m_record.logicalModel = m_input.model;
    m_record.streamed = m_input.stream;
    m_record.autoTier = m_input.autoTier;
    m_record.clientApi = m_input.clientApi;
}

ProxyCall::~ProxyCall()
{
    if (m_replies)
        m_replies->close(); // a token exchange that answers later finds no one
    cancelTransfer();
}

void ProxyCall::cancelTransfer()
{
    if (const quint64 transfer = m_attempt ? m_attempt->takeTransfer() : 0)
        m_upstream.cancel(transfer);
}

void ProxyCall::start()
{
    m_engine.retryBudget().requestStarted();
    m_engine.counters().requests.fetch_add(1, std::memory_order_relaxed);
    m_engine.counters().inFlight.fetch_add(1, std::memory_order_relaxed);
    QPointer<ProxyCall> self(this);
    m_response->onClosed([self] {
        if (self)
            self->onClientGone();
    });
    // A route whose budget has a hard stop and is spent answers 429 until the period rolls over.
    const auto config = m_engine.config();
    if (const auto refusal = m_engine.costMeter().refusal(m_input.model, findBudget(config->budgets, m_input.model),
                                                          m_engine.clock().wallMillis())) {
        replyError(ApiError{429, refusal->message, QStringLiteral("insufficient_quota"), {}, QStringLiteral("insufficient_quota")},
                   std::chrono::milliseconds(refusal->retryAfterMs));
        return;
    }
    const RouteConfig *route = config->route(m_input.model);
    m_tracksText = m_input.kind == Kind::Chat && m_input.stream && m_policy->config().continueStreams
        && (!route || route->continueStreams);
    m_holdsToolCalls = m_input.kind == Kind::Chat && m_input.stream && (!route || !route->streamToolCalls);
    if (m_stage != Stage::Finished)
        nextAttempt();
}

void ProxyCall::nextAttempt()
{
    if (m_stage == Stage::Finished)
        return;
    if (keepLastAttemptForAnUntriedChannel())
        return;
    enterRouting();
    if (m_retry.attempts() > 0
        && m_retry.nextAttemptSpendsBudget(m_engine.router().hasUntriedChannel(m_input.model, m_retry))) {
        if (!m_engine.retryBudget().tryStartRetry()) {
            m_engine.counters().retryBudgetRefusals.fetch_add(1, std::memory_order_relaxed);
            replyFromLastOutcome(QStringLiteral("the retry budget is exhausted (too many retries in flight)"));
            return;
        }
        m_retrySlot.emplace(m_engine.retryBudget());
    }
    RouteResult result = m_engine.router().choose(m_input.model, m_retry, m_lastFailedChannel, m_input.estimatedTokens,
                                                  m_lastOutcome ? &*m_lastOutcome : nullptr);
    for (const auto &passed : result.passedOver)
        m_retry.notePassedOver(passed.channelId, passed.reason);
    if (!result) {
        // A channel kept out only by time is waited for within the max client wait, whether or not
        // the route's others are out for longer (a circuit open): in the soak 88 of 157 errors were
        // such 503s, their one channel's key free again within a second.
        if (result.refusal.freeIn && waitForRateLimit(*result.refusal.freeIn))
            return;
        if (m_lastOutcome && result.refusal.httpStatus == 503) {
            replyFromLastOutcome(result.refusal.message);
            return;
        }
        ApiError error = clienterrors::refusal(result.refusal);
        if (result.refusal.httpStatus == 404) // no route has that model: the caller's mistake, as a 400 at the door is
            m_lastOutcome = Outcome::local(OutcomeKind::NonRetryableParamError, result.refusal.message);
        if (result.refusal.httpStatus == 429 && m_retry.attempts() > 0)
            error.message += QStringLiteral(" A request is held at most %1 s for a rate limit (max client wait); retry after the time given.")
                                 .arg(toSeconds(m_policy->config().maxClientWait), 0, 'g', 3);
        replyError(error, result.refusal.retryAfter);
        return;
    }
    launch(std::move(*result.choice));
}

bool ProxyCall::keepLastAttemptForAnUntriedChannel()
{
    // The last attempt of a request goes to a channel of its route it has not tried when one only
    // waits out a key's cool-down or its provider's limit, within the max client wait: another try
    // of a channel that failed it is worth less than the one channel it has not heard from. (The
    // 30-minute soak: a route's four attempts in 400 ms on a provider refusing connections, while the
    // other channel's only key came free at about the fourth.) Earlier attempts retry as before, so a
    // passing fault of the first channel still costs no wait.
    if (m_retry.attempts() == 0 || m_retry.attempts() + 1 != m_policy->maxAttempts()
        || m_engine.router().hasUntriedChannel(m_input.model, m_retry))
        return false;
    const auto freeIn = m_engine.router().untriedChannelFreeIn(m_input.model, m_retry, m_input.estimatedTokens);
    return freeIn && waitForRateLimit(*freeIn);
}

bool ProxyCall::waitForRateLimit(Clock::Duration wait)
{
    const Clock::Duration allowed = std::max(Clock::Duration::zero(), Clock::Duration(m_policy->config().maxClientWait));
    if (wait <= Clock::Duration::zero() || m_rateLimitWaited + wait > allowed || wait >= m_retry.remaining())
        return false;
    // The slot of a retry is held by an attempt, not by a wait: nextAttempt() asks the budget again.
    m_retrySlot.reset();
    m_rateLimitWaited += wait;
    enterRouting();
    // Rounded up: a timer a hair early would find the key still cooling.
    m_backoffTimer.start(std::chrono::ceil<std::chrono::milliseconds>(wait));
    return true;
}

void ProxyCall::launch(RouteChoice choice)
{
    auto attempt = std::make_unique<Attempt>();
    attempt->config = m_engine.config();
    attempt->provider = attempt->config->provider(choice.providerId);
    const ChannelConfig *channel = attempt->config->channel(choice.channelId);
    attempt->adapter = attempt->provider ? ProviderRegistry::find(attempt->provider->dialect) : nullptr;
    attempt->choice = std::move(choice);
    attempt->startedAt = m_engine.clock().now();
    attempt->startedWallMs = m_engine.clock().wallMillis();
    if (m_firstChannelId == 0)
        m_firstChannelId = attempt->choice.channelId;
    m_retry.attemptStarted(attempt->choice.channelId);
    ++m_attemptSequence;
    m_engine.counters().attempts.fetch_add(1, std::memory_order_relaxed);
    m_attempt = std::move(attempt);
    if (m_stage != Stage::Streaming)
        m_stage = Stage::Attempting;

    if (!m_attempt->provider || !channel || !m_attempt->adapter) {
        // The config changed under us between choose() and here, or names an unknown dialect.
        attemptFailed(Outcome::local(OutcomeKind::ProviderDown,
                                     QStringLiteral("channel %1 has no usable provider dialect").arg(m_attempt->choice.channelName)));
        return;
    }

    m_attempt->channel = channel;
    sendAttempt();
}

QString ProxyCall::keyLabel() const
{
    for (const ApiKeyConfig &key : m_attempt->provider->keys)
        if (key.id == m_attempt->choice.key.keyId)
            return key.label.isEmpty() ? maskSecret(key.secret) : key.label;
    return maskSecret(m_attempt->choice.key.secret);
}

void ProxyCall::sendAttempt()
{
    // A key the dialect exchanges for an access token (ERNIE's API key + secret key) goes out as its
    // token: the cached one, or the one an exchange on this worker's transport brings back
    // (ARCHITECTURE.md, "Keys exchanged for access tokens"). Any other key goes as it is, without
    // the exchange's set-up (its options, reply channel and callback).
    if (!m_attempt->adapter->exchangesKeys()) {
        m_attempt->exchanged = false;
        startTransfer(m_attempt->choice.key.secret);
        return;
    }
    const AdapterContext keyContext{m_attempt->provider, m_attempt->channel, m_attempt->choice.key.secret};
    TransferOptions exchangeOptions;
    exchangeOptions.connectTimeout = m_attempt->provider->connectTimeout;
    exchangeOptions.totalTimeout = std::max(std::chrono::milliseconds(1),
                                            std::min(std::chrono::duration_cast<std::chrono::milliseconds>(m_retry.attemptTimeout(*m_attempt->provider)),
                                                     std::chrono::milliseconds(10000)));
    exchangeOptions.proxyUrl = m_attempt->config->domainOf(*m_attempt->channel).egressProxy;
    applyProviderTls(exchangeOptions, *m_attempt->provider);
    exchangeOptions.maxResponseBytes = 64 * 1024;
    if (!m_replies)
        m_replies = ReplyChannel::to(this);
    QPointer<ProxyCall> self(this);
    const std::uint64_t sequence = m_attemptSequence;
    const std::optional<QString> key = m_engine.accessTokens().resolve(
        *m_attempt->adapter, keyContext, m_upstream, exchangeOptions, m_replies,
        [self, sequence](const AccessTokens::Result &result) {
            if (!self || !self->isCurrent(sequence) || self->m_stage != Stage::Attempting)
                return; // the call moved on (the client left, a deadline): the token stays cached for the next
            if (result.failure) {
                Outcome outcome = *result.failure;
                outcome.message = QStringLiteral("%1 could not exchange key \"%2\" for an access token: %3")
                                      .arg(self->m_attempt->provider->name, self->keyLabel(), outcome.message);
                self->attemptFailed(outcome);
                return;
            }
            self->m_attempt->exchanged = true;
            self->startTransfer(result.token);
        },
        m_attempt->refusedToken);
    if (!key)
        return; // the exchange answers later
    m_attempt->exchanged = *key != m_attempt->choice.key.secret;
    startTransfer(*key);
}

bool ProxyCall::refreshRefusedToken(const Outcome &outcome)
{
    // An exchanged token the provider calls invalid or expired says nothing about the key: the token
    // is exchanged anew and the same attempt sent once more. Once only: a fresh token refused too
    // is the key's, and disables it like any auth error.
    if (!m_attempt || m_stage != Stage::Attempting || !m_attempt->exchanged || !m_attempt->refusedToken.isEmpty()
        || !m_attempt->adapter->refusesAccessToken(outcome))
        return false;
    cancelTransfer();
    m_attemptTimer.stop();
    m_slowTimer.stop();
    const AdapterContext keyContext{m_attempt->provider, m_attempt->channel, m_attempt->choice.key.secret};
    m_attempt->refusedToken = m_attempt->token;
    m_engine.accessTokens().invalidate(*m_attempt->adapter, keyContext, m_attempt->token);
    spdlog::info("{}: {} refused the access token of key \"{}\" ({}); exchanging it anew", m_input.requestId.toStdString(),
                 m_attempt->provider->name.toStdString(), keyLabel().toStdString(), outcome.providerCode.toStdString());
    // What the refused try left behind goes; the attempt (its start, its budget) stays.
    m_attempt->status = 0;
    m_attempt->headers = HttpHeaders();
    m_attempt->body.clear();
    m_attempt->streaming = false;
    m_attempt->parser = SseParser();
    m_attempt->translator.reset();
    m_attempt->held.clear();
    m_attempt->heldChunks.clear();
    m_attempt->preamble.clear();
    m_attempt->preambleBytes = 0;
    m_attempt->exchanged = false;
    ++m_attemptSequence; // a late answer to the first try's exchange is not this one's
    sendAttempt();
    return true;
}

void ProxyCall::startTransfer(const QString &key)
{
    const ChannelConfig *channel = m_attempt->channel;
    m_attempt->token = key;
    AdapterContext context{m_attempt->provider, channel, key, m_input.body.clientBytes()};
    std::optional<UpstreamRequest> request;
    if (m_input.kind == Kind::Chat && m_continuation.splicing()) {
        // A continuation is asked in the engine's own form whatever API the client speaks: the
        // client API's writer words its chunks, going on from what it wrote already.
        m_attempt->continuesAfter = int(m_continuation.text().toUcs4().size());
        const AdapterContext continuing{context.provider, context.channel, context.apiKey, {}}; // not the client's bytes
        request = m_attempt->adapter->chatRequestFor(
            m_continuation.request(m_input.body.object(), m_attempt->adapter->takesAssistantPrefill()), continuing);
        m_attempt->passThrough = false;
    } else if (m_input.kind == Kind::Chat) {
        if (!m_input.nativeBody.isEmpty())
            request = m_attempt->adapter->nativeRequest(m_input.clientApi, m_input.nativeBody, m_input.nativeHeaders, context);
        m_attempt->passThrough = request.has_value();
        if (!request)
            request = m_attempt->adapter->chatRequestFor(m_input.body, context);
    } else {
        request = m_attempt->adapter->embeddingsRequest(m_input.body.object(), context);
        if (!request) {
            attemptFailed(Outcome{OutcomeKind::NonRetryableParamError, OutcomeOrigin::Local, OutcomePhase::BeforeFirstByte, 400, {}, {},
                                  QStringLiteral("the %1 dialect has no embeddings endpoint").arg(m_attempt->provider->dialect)});
            return;
        }
    }

    const Clock::Duration remaining = m_retry.remaining();
    const Clock::Duration budget = m_retry.attemptTimeout(*m_attempt->provider);
    m_attempt->budgetIsDeadline = budget + std::chrono::milliseconds(1) >= remaining;
    TransferOptions options;
    options.connectTimeout = m_attempt->provider->connectTimeout;
    options.proxyUrl = m_attempt->config->domainOf(*channel).egressProxy;
    applyProviderTls(options, *m_attempt->provider);
    if (request->stream) {
        // A stream may run far longer than the attempt budget; the budget (at most the first-content
        // deadline) bounds the wait for its first content, the stall deadline the gaps after it.
        options.totalTimeout = std::chrono::milliseconds(0);
        options.idleTimeout = m_policy->config().streamIdleTimeout;
        const Clock::Duration firstContent = std::min(budget, Clock::Duration(m_policy->config().firstContentTimeout));
        m_attempt->budgetIsDeadline = firstContent + std::chrono::milliseconds(1) >= remaining;
        m_attemptTimer.start(std::chrono::milliseconds(std::max(1, millisOf(firstContent))));
    } else {
        options.totalTimeout = std::max(std::chrono::milliseconds(1),
                                        std::chrono::duration_cast<std::chrono::milliseconds>(budget));
    }

    // Waiting far past what this channel usually takes is evidence against it while it lasts, and
    // a way out once the channel has gone bad (ARCHITECTURE.md, "Defaults and why", slow wait).
    if (const auto slowAfter = m_attempt->choice.health ? m_attempt->choice.health->slowWaitThreshold() : std::nullopt;
        slowAfter && *slowAfter < budget) {
        m_attempt->slowAfter = slowAfter;
        m_slowTimer.start(std::chrono::duration_cast<std::chrono::milliseconds>(*slowAfter));
    }

    TransferCallbacks callbacks;
    callbacks.onHeaders = [this](int status, const HttpHeaders &headers) { onUpstreamHeaders(status, headers); };
    callbacks.onData = [this](QByteArrayView chunk) { onUpstreamData(chunk); };
    callbacks.onComplete = [this](TransferError error, const QString &message) { onUpstreamComplete(error, message); };
    if (spdlog::should_log(spdlog::level::debug))
        spdlog::debug("{} attempt {} → {} ({})", m_input.requestId.toStdString(), m_retry.attempts(),
                      m_attempt->choice.channelName.toStdString(), maskSecret(m_attempt->choice.key.secret).toStdString());
    m_attempt->method = request->method;
    m_attempt->url = request->url;
    m_attempt->transferId = m_upstream.start(*request, options, std::move(callbacks));
}

void ProxyCall::onUpstreamHeaders(int status, const HttpHeaders &headers)
{
    if (!m_attempt)
        return;
    m_attempt->status = status;
    m_attempt->headers = headers;
    const bool eventStream = headers.value("content-type").toLower().contains("text/event-stream");
    if (status == 200 && m_input.stream && eventStream) {
        m_attempt->streaming = true;
        // A passed-through stream is translated only for the usage and the history, which need no
        // more of the request than its model: the client's body is not made an OpenAI one for it.
        m_attempt->translator = m_attempt->passThrough
                                    ? m_attempt->adapter->nativeStreamTranslator(m_input.clientApi, passThroughStreamShape(m_input.model))
                                    : m_attempt->adapter->streamTranslator(m_input.body.object());
        m_attempt->translator->setCreated(m_engine.clock().wallMillis() / 1000);
    }
}

void ProxyCall::onUpstreamData(QByteArrayView chunk)
{
    if (!m_attempt)
        return;
    if (!m_attempt->streaming) {
        if (m_attempt->body.size() + chunk.size() > kMaxBufferedBody) {
            cancelTransfer();
            attemptFailed(Outcome::local(OutcomeKind::ProviderDown, QStringLiteral("the upstream answer is larger than 64 MiB")));
            return;
        }
        m_attempt->body.append(chunk.data(), chunk.size());
        return;
    }
    const std::uint64_t current = m_attemptSequence;
    handleStreamEvents(m_attempt->parser.feed(chunk));
    if (m_stage != Stage::Finished && isCurrent(current) && m_attempt->parser.overflowed()) {
        cancelTransfer();
        Outcome outcome = Outcome::local(OutcomeKind::ProviderDown, QStringLiteral("an upstream stream event exceeded 8 MiB"));
        attemptFailed(outcome);
    }
}

void ProxyCall::handleStreamEvents(std::vector<SseEvent> &&events)
{
    const std::uint64_t current = m_attemptSequence;
    for (SseEvent &event : events) {
        if (m_stage == Stage::Finished || !isCurrent(current))
            return;
        if (m_attempt->passThrough)
            passThroughEvent(event, m_attempt->translator->onEvent(event));
        else
            handleStreamStep(m_attempt->translator->onEvent(event));
    }
}

void ProxyCall::handleStreamStep(StreamStep &&step)
{
    if (step.usage)
        m_usage = *step.usage;
    if (step.error) {
        cancelTransfer();
        Outcome outcome = *step.error;
        outcome.phase = m_stage == Stage::Streaming ? OutcomePhase::MidStream : OutcomePhase::BeforeFirstByte;
        attemptFailed(outcome);
        return;
    }
    if (m_stage != Stage::Streaming && step.preamble && !step.finished && m_attempt->preambleBytes <= 64 * 1024) {
        // Nothing of the answer yet (the role, an empty delta): held, so that a stream that fails
        // or ends empty before its first content still fails over unseen. A bounded wait, like a
        // pass-through stream's; the first-content deadline runs on.
        for (QByteArray &chunk : step.chunks) {
            m_attempt->preambleBytes += chunk.size();
            m_attempt->preamble.push_back(std::move(chunk));
        }
        return;
    }
    if (m_continuation.splicing() && (!step.chunks.empty() || step.finished))
        step.chunks = m_continuation.splice(step.chunks, step.finished);
    if (m_holdsToolCalls) {
        // A tool call waits whole: before any text reached the client, a failure in it still
        // fails over unseen; after, the continuation asks for it again.
        step.chunks = m_continuation.holdToolCalls(std::move(step.chunks), step.finished);
        if (m_continuation.holdingToolCall())
            contentArrived(); // the call has begun: the stall deadline bounds the rest
        if (step.chunks.empty() && !step.finished)
            return;
    }
    if (!m_attempt->preamble.empty() && (!step.chunks.empty() || step.finished)) {
        // The first content: what waited goes out before it, in the order it came.
        step.chunks.insert(step.chunks.begin(), std::make_move_iterator(m_attempt->preamble.begin()),
                           std::make_move_iterator(m_attempt->preamble.end()));
        m_attempt->preamble.clear();
    }
    if (!step.chunks.empty()) {
        if (!m_attempt->ttft)
            m_attempt->ttft = m_engine.clock().now() - m_attempt->startedAt;
        contentArrived();
        // Empty while none of it is content the client should see: the response waits for some.
        if (const QByteArray out = m_api.streamChunks(step.chunks); !out.isEmpty()) {
            if (m_stage != Stage::Streaming)
                startClientStream();
            m_response->write(out);
            if (m_tracksText)
                m_continuation.sent(step.chunks);
            if (m_input.cacheTee) // the cache's branch of the tee gets the events after the client
                m_input.cacheTee->append(step.chunks);
            pauseIfClientIsSlow();
        }
    }
    if (step.finished) {
        // The answer is complete; whatever the connection does next changes nothing.
        cancelTransfer();
        completeStream();
    }
}

void ProxyCall::passThroughEvent(const SseEvent &event, StreamStep &&step)
{
    if (step.usage)
        m_usage = *step.usage;
    if (step.error) { // the translator read it: failover before the first content, an error event after
        cancelTransfer();
        Outcome outcome = *step.error;
        outcome.phase = m_stage == Stage::Streaming ? OutcomePhase::MidStream : OutcomePhase::BeforeFirstByte;
        attemptFailed(outcome);
        return;
    }
    if (m_holdsToolCalls && !step.finished
        && (!m_attempt->heldCallChunks.empty() || std::any_of(step.chunks.begin(), step.chunks.end(), &StreamContinuation::isToolCall))) {
        // From a tool call's start the events wait for the answer's end, as a translated stream's
        // chunks do (holdToolCalls): the client never has half a call.
        m_attempt->heldCall.push_back(event);
        std::move(step.chunks.begin(), step.chunks.end(), std::back_inserter(m_attempt->heldCallChunks));
        contentArrived(); // the call has begun: the stall deadline bounds the rest
        return;
    }
    if (!m_attempt->heldCallChunks.empty()) {
        step.chunks.insert(step.chunks.begin(), std::make_move_iterator(m_attempt->heldCallChunks.begin()),
                           std::make_move_iterator(m_attempt->heldCallChunks.end()));
        m_attempt->heldCallChunks.clear();
    }
    if (m_tracksText) {
        m_attempt->passedChunks.insert(m_attempt->passedChunks.end(), step.chunks.begin(), step.chunks.end());
        m_attempt->passedBlocks += event.event == "content_block_start";
    }
    bool worded = false;
    QByteArray bytes;
    for (const SseEvent &held : std::exchange(m_attempt->heldCall, {}))
        bytes += passThroughBytes(held, &worded);
    bytes += passThroughBytes(event, &worded);
    if (m_stage != Stage::Streaming) {
        // message_start, pings and empty blocks wait for the first content, what the translator
        // found some of the answer in (text, thinking, a tool call, a stop reason): an upstream
        // that ends or fails before any can still fail over. A bounded wait (an upstream that
        // sends nothing else would otherwise be held whole).
        const bool content = worded ? !bytes.isEmpty()
                                    : (!step.chunks.empty() && !step.preamble) || step.finished || m_attempt->held.size() > 64 * 1024;
        if (!content) {
            m_attempt->held += bytes;
            if (m_input.cacheTee)
                std::move(step.chunks.begin(), step.chunks.end(), std::back_inserter(m_attempt->heldChunks));
            return;
        }
        if (!m_attempt->ttft)
            m_attempt->ttft = m_engine.clock().now() - m_attempt->startedAt;
        startClientStream();
        bytes.prepend(std::exchange(m_attempt->held, {}));
    }
    if (worded ? !bytes.isEmpty() : !step.chunks.empty() && !step.preamble)
        contentArrived();
    m_response->write(bytes);
    if (m_input.cacheTee) { // the cache keeps the translator's OpenAI chunks, which every front door can word
        if (!m_attempt->heldChunks.empty())
            m_input.cacheTee->append(std::exchange(m_attempt->heldChunks, {}));
        m_input.cacheTee->append(step.chunks);
    }
    pauseIfClientIsSlow();
    if (step.finished) {
        cancelTransfer();
        completeStream();
    }
}

QByteArray ProxyCall::passThroughBytes(const SseEvent &event, bool *worded)
{
    // A client API that words its own events (the Responses API) also holds them until their first
    // content itself: empty bytes while it does. Anthropic's go as they came, but message_start
    // names the model the client asked for, as a whole answer does.
    if (std::optional<QByteArray> own = m_api.passThroughEvent(event.event, event.data)) {
        *worded = true;
        return *std::move(own);
    }
    QByteArray data = event.data;
    if (event.event == "message_start") {
        QJsonObject start = QJsonDocument::fromJson(data).object();
        QJsonObject message = start.value(QStringLiteral("message")).toObject();
        if (!message.isEmpty()) {
            message.insert(QStringLiteral("model"), m_input.model);
            start.insert(QStringLiteral("message"), message);
            data = QJsonDocument(start).toJson(QJsonDocument::Compact);
        }
    }
    QByteArray bytes;
    bytes.reserve(event.event.size() + data.size() + 16);
    if (!event.event.isEmpty())
        bytes.append("event: ").append(event.event).append('\n');
    bytes.append("data: ").append(data).append("\n\n");
    return bytes;
}

void ProxyCall::pauseIfClientIsSlow()
{
    // A client that reads slower than the provider writes must not make us buffer the whole
    // answer: stop reading upstream until the client has caught up.
    if (!m_attempt || !m_attempt->transferId || m_attempt->upstreamPaused || m_response->bufferedBytes() < kPauseAboveBytes)
        return;
    m_upstream.pause(m_attempt->transferId);
    m_attempt->upstreamPaused = true;
    QPointer<ProxyCall> self(this);
    const quint64 transfer = m_attempt->transferId;
    m_response->onDrained(kResumeBelowBytes, [self, transfer] {
        if (!self || !self->m_attempt || self->m_attempt->transferId != transfer || !self->m_attempt->upstreamPaused)
            return;
        self->m_attempt->upstreamPaused = false;
        self->m_upstream.resume(transfer);
    });
}

void ProxyCall::startClientStream()
{
    m_attemptTimer.stop();
    m_stage = Stage::Streaming;
    m_clientTtft = m_engine.clock().now() - m_startedAt;
    HttpHeaders headers = routingHeaders(); // none of these names
    headers.add("Content-Type", "text/event-stream; charset=utf-8");
    headers.add("Cache-Control", "no-cache");
    headers.add("X-Accel-Buffering", "no");
    m_response->startStream(200, headers);
}

void ProxyCall::completeStream()
{
    if (m_stage != Stage::Streaming)
        startClientStream(); // an empty but complete answer is still an answer
    if (!m_attempt || !m_attempt->passThrough) // a passed-through stream carried its own end
        m_response->write(m_api.streamEnd());
    m_response->finish();
    if (m_input.cacheTee) // only a complete stream is saved, after the client's last byte
        m_input.cacheTee->completeStream();
    recordAttempt(Outcome::success(200));
    endAttempt();
    finish(RequestStatus::Ok, 200);
}

void ProxyCall::onUpstreamComplete(TransferError error, const QString &message)
{
    if (!m_attempt)
        return;
    m_attempt->takeTransfer(); // it has ended
    if (error != TransferError::None) {
        Outcome outcome = outcomeFromTransfer(error, message);
        outcome.httpStatus = m_attempt->status;
        outcome.phase = m_stage == Stage::Streaming ? OutcomePhase::MidStream : OutcomePhase::BeforeFirstByte;
        attemptFailed(outcome);
        return;
    }
    if (m_attempt->streaming) {
        // Each step may end this attempt and start the next one; stop as soon as it is not ours.
        const std::uint64_t current = m_attemptSequence;
        handleStreamEvents(m_attempt->parser.finish());
        if (m_stage == Stage::Finished || !isCurrent(current))
            return;
        StreamStep end = m_attempt->translator->onEnd();
        if (m_attempt->passThrough)
            end.chunks.clear(); // its own events went out already; only the verdict counts
        handleStreamStep(std::move(end));
        if (m_stage == Stage::Finished || !isCurrent(current))
            return;
        // A translator that neither finished nor failed at the end: a cut stream.
        Outcome cut = Outcome::local(OutcomeKind::ProviderDown, QStringLiteral("the upstream stream ended without its end marker"));
        cut.phase = m_stage == Stage::Streaming ? OutcomePhase::MidStream : OutcomePhase::BeforeFirstByte;
        attemptFailed(cut);
        return;
    }
    completeBufferedResponse();
}

void ProxyCall::completeBufferedResponse()
{
    OpenAiAnswer answer;
    TokenUsage usage;
    const ProviderAdapter &adapter = *m_attempt->adapter;
    // A passed-through answer is read into the engine's form only for the cache.
    const bool cached = m_input.cacheTee && m_input.kind == Kind::Chat;
    const Outcome outcome = m_attempt->passThrough
                                ? adapter.classifyNativeAnswer(m_input.clientApi, m_attempt->status, m_attempt->headers, m_attempt->body,
                                                               cached ? &answer : nullptr, &usage)
                                : adapter.classifyAnswer(m_attempt->status, m_attempt->headers, m_attempt->body,
                                                         m_input.kind == Kind::Embeddings, &answer, &usage);
    if (!outcome.isSuccess()) {
        attemptFailed(outcome);
        return;
    }
    if (m_input.stream) {
        // The provider answered a stream request with a whole JSON body (some local servers do):
        // serve it as a one-chunk stream would be a guess; treat it as a broken answer instead.
        attemptFailed(Outcome::local(OutcomeKind::ProviderDown, QStringLiteral("the upstream answered a stream request without an event stream")));
        return;
    }
    m_attempt->ttft = m_engine.clock().now() - m_attempt->startedAt;
    m_usage = usage;
    HttpHeaders headers = routingHeaders(); // no Content-Type among them
    headers.add("Content-Type", "application/json");
    m_clientTtft = m_engine.clock().now() - m_startedAt;
    QByteArray json;
    if (!m_attempt->passThrough)
        json = m_api.answer(answer, m_input.model, qint64(m_engine.clock().wallMillis() / 1000));
    else if (std::optional<QByteArray> worded = m_api.passThroughAnswer(m_attempt->body))
        json = std::move(*worded);
    else
        json = passedThroughAnswer(m_attempt->body, m_input.model);
    m_response->send(200, headers, json);
    if (cached) // saved only once it has been sent, in the engine's form
        m_input.cacheTee->completeWhole(m_input.api ? answer.toJson(m_input.model, qint64(m_engine.clock().wallMillis() / 1000)) : json);
    recordAttempt(outcome);
    endAttempt();
    finish(RequestStatus::Ok, 200);
}

void ProxyCall::onAttemptTimeout()
{
    // Once the client's stream is under way only a continuation still waits for its first content.
    if (!m_attempt || (m_stage == Stage::Streaming && (!m_continuation.splicing() || m_attempt->ttft)))
        return;
    cancelTransfer();
    attemptFailed(Outcome::local(OutcomeKind::Timeout, m_attempt->streaming || m_input.stream
                                                           ? QStringLiteral("no content within the attempt's first-content deadline")
                                                           : QStringLiteral("no answer within the attempt's time budget")));
}

void ProxyCall::contentArrived()
{
    m_attemptTimer.stop();
    m_stallTimer.start(std::chrono::milliseconds(std::max(1, millisOf(m_policy->config().streamIdleTimeout))));
}

void ProxyCall::onStreamStalled()
{
    if (!m_attempt || m_stage == Stage::Finished)
        return;
    cancelTransfer();
    Outcome stalled = Outcome::local(OutcomeKind::Timeout, QStringLiteral("the stream stalled: no content for %1 s")
                                                               .arg(toSeconds(m_policy->config().streamIdleTimeout), 0, 'g', 3));
    stalled.phase = m_stage == Stage::Streaming ? OutcomePhase::MidStream : OutcomePhase::BeforeFirstByte;
    attemptFailed(stalled);
}

bool ProxyCall::waitingForFirstByte() const
{
    // A buffered answer has begun with its headers; a stream with its first content, the held
    // preamble (the role, empty deltas) being no answer yet.
    return m_attempt && m_stage == Stage::Attempting && (m_attempt->streaming ? !m_attempt->ttft : m_attempt->status == 0);
}

void ProxyCall::onAttemptSlow()
{
    if (!waitingForFirstByte() || !m_attempt->slowAfter)
        return;
    // Once per attempt, however long it goes on waiting (the router keeps count).
    m_engine.router().recordSlowWait(m_attempt->choice);
    // The hedge: a channel whose circuit has opened (this wait may be what opened it) will not
    // answer soon; a healthy channel not tried yet takes the request, unseen by the client. While
    // the circuit is closed the request keeps waiting, and looks again shortly: other waiting
    // requests' evidence may open it.
    const auto &health = m_attempt->choice.health;
    const bool channelWentBad = health && health->breakerState() != BreakerState::Closed;
    if (channelWentBad && m_engine.router().hasUntriedChannel(m_input.model, m_retry)) {
        const Clock::Duration waited = m_engine.clock().now() - m_attempt->startedAt;
        Outcome outcome = Outcome::local(
            OutcomeKind::Timeout,
            QStringLiteral("no %1 after %2 ms (slow-wait threshold %3 ms) and the channel's circuit is open: moved to another channel")
                .arg(m_attempt->streaming ? QStringLiteral("first content") : QStringLiteral("answer"))
                .arg(millisOf(waited))
                .arg(millisOf(*m_attempt->slowAfter)));
        m_attempt->budgetIsDeadline = false; // the hedge is not the deadline: the next attempt has what is left of it
        cancelTransfer();
        attemptFailed(outcome);
        return;
    }
    m_slowTimer.start(std::max(std::chrono::milliseconds(10),
                               std::chrono::duration_cast<std::chrono::milliseconds>(*m_attempt->slowAfter / kSlowWaitRechecks)));
}

void ProxyCall::attemptFailed(Outcome outcome)
{
    if (refreshRefusedToken(outcome))
        return;
    if (outcome.misconfiguration != Misconfiguration::None && m_attempt) // the query may carry a key: left off
        outcome.endpoint = QString::fromLatin1(m_attempt->method) + QLatin1Char(' ')
            + m_attempt->url.adjusted(QUrl::RemoveQuery | QUrl::RemoveUserInfo | QUrl::RemoveFragment).toString();
    m_attemptTimer.stop();
    cancelTransfer();
    recordAttempt(outcome);
    // A timeout whose budget was the deadline's remainder is the deadline itself, however early the
    // timer that measured it fired: no further attempt (one was sometimes squeezed into the last ms).
    const bool deadlineReached = outcome.kind == OutcomeKind::Timeout && m_attempt && m_attempt->budgetIsDeadline;
    const int failedChannel = m_attempt ? m_attempt->choice.channelId : 0;
    const int failedProvider = m_attempt ? m_attempt->choice.providerId : 0;
    const bool passedThrough = m_attempt && m_attempt->passThrough;
    std::vector<QByteArray> passed = m_attempt ? std::move(m_attempt->passedChunks) : std::vector<QByteArray>();
    const int passedBlocks = m_attempt ? m_attempt->passedBlocks : 0;
    endAttempt();
    m_continuation.dropHeldToolCall();
    m_lastOutcome = outcome;
    m_lastFailedChannel = failedChannel;
    m_lastFailedProvider = failedProvider;

    if (m_stage == Stage::Streaming) {
        if (passedThrough && m_tracksText)
            m_continuation.sent(passed); // what the client got, in the engine's reading
        QString refusal = continuationRefusal(outcome, passedThrough);
        if (refusal.isEmpty() && passedThrough && !m_api.resumeAfterPassThrough(passed, passedBlocks))
            refusal = QStringLiteral("the upstream's events so far do not read back as the engine's (their blocks or items differ)");
        if (refusal.isEmpty())
            continueStream();
        else
            endBrokenStream(outcome, refusal);
        return;
    }
    if (m_clientError) {
        // That was the try elsewhere, and it did not answer either: the first provider's refusal
        // is the answer, as it would have been without the try.
        m_lastOutcome = m_clientError->outcome;
        m_lastFailedChannel = m_clientError->channelId;
        m_record.channelId = m_clientError->channelId;
        m_record.channelName = m_clientError->channelName;
        replyFromLastOutcome(QString());
        return;
    }
    if (deadlineReached) {
        replyFromLastOutcome(QStringLiteral("the request's deadline passed"), true);
        return;
    }
    if (outcome.kind == OutcomeKind::NonRetryableParamError && tryClientErrorElsewhere(outcome, failedChannel, failedProvider))
        return;
    if (!m_retry.shouldRetry(outcome)) {
        replyFromLastOutcome(QString());
        return;
    }
    // Whether the next channel is on the same provider is only known after choose(); a Retry-After
    // from the provider is honoured when it would be asked again, which the router avoids while
    // another provider is left, so pass the conservative answer only for single-provider routes.
    // A rate limit is different: its hint is kept by the key ring, which hands out no key inside its
    // cool-down, so the cool-down is its backoff and the next attempt goes at once to whatever key or
    // channel can take it (nextAttempt() waits, within the max client wait, when none can). Waiting the
    // hint out here as well held a one-channel route's caller for it once per attempt.
    const bool rateLimited = outcome.kind == OutcomeKind::RetryableRateLimit;
    const auto config = m_engine.config();
    bool sameProvider = !rateLimited;
    if (const RouteConfig *route = sameProvider ? config->route(m_input.model) : nullptr) {
        for (int id : route->channelIds)
            if (const ChannelConfig *c = config->channel(id); c && c->providerId != failedProvider && !m_retry.triedChannel(id))
                sameProvider = false;
    }
    const Clock::Duration delay = rateLimited ? Clock::Duration::zero()
                                              : m_retry.delayBeforeNext(outcome, sameProvider,
                                                                        m_engine.router().hasUntriedChannel(m_input.model, m_retry),
                                                                        m_engine.random());
    // Any other failure's hint (a 503's Retry-After) is waited out only within the max client wait.
    const bool hinted = sameProvider && outcome.retryAfter && outcome.retryAfter->count() > 0
        && delay >= Clock::Duration(*outcome.retryAfter);
    const Clock::Duration allowed = std::max(Clock::Duration::zero(), Clock::Duration(m_policy->config().maxClientWait));
    if (hinted && delay > allowed - m_rateLimitWaited) {
        replyFromLastOutcome(QStringLiteral("the provider asked for %1 s, longer than a request is held (max client wait)")
                                 .arg(toSeconds(*outcome.retryAfter), 0, 'g', 3));
        return;
    }
    if (hinted)
        m_rateLimitWaited += delay;
    if (delay >= m_retry.remaining()) {
        replyFromLastOutcome(QStringLiteral("the request's deadline would pass before the next attempt"));
        return;
    }
    if (delay <= Clock::Duration::zero()) {
        nextAttempt();
        return;
    }
    enterRouting();
    m_backoffTimer.start(std::chrono::milliseconds(std::max(1, millisOf(delay))));
}

void ProxyCall::enterRouting()
{
    if (m_stage != Stage::Streaming) // a continuation keeps the client's stream open meanwhile
        m_stage = Stage::Routing;
}

bool ProxyCall::tryClientErrorElsewhere(const Outcome &outcome, int channelId, int providerId)
{
    // Only before the first byte, within the attempt limit and the deadline, and once: the try
    // elsewhere is an attempt like any other but for the retry budget, which it does not spend (a
    // failover to an untried channel never does).
    const auto config = m_engine.config();
    const RouteConfig *route = config->route(m_input.model);
    if (!route || !route->retryClientErrorsElsewhere || outcome.phase != OutcomePhase::BeforeFirstByte
        || m_retry.attempts() >= m_policy->maxAttempts() || m_retry.remaining() <= Clock::Duration::zero())
        return false;
    RouteResult result = m_engine.router().choose(m_input.model, m_retry, channelId, m_input.estimatedTokens, &outcome, providerId);
    if (!result)
        return false;
    m_clientError = ClientErrorTried{outcome, channelId, m_record.channelName}; // endAttempt() named the channel
    launch(std::move(*result.choice));
    return true;
}

void ProxyCall::recordAttempt(const Outcome &outcome)
{
    if (!m_attempt || m_attempt->recorded)
        return;
    m_attempt->recorded = true;
    const Clock::Duration latency = m_engine.clock().now() - m_attempt->startedAt;
    m_engine.router().record(m_attempt->choice, outcome, latency, m_attempt->ttft);

    AttemptRecord row;
    row.channelId = m_attempt->choice.channelId;
    row.channelName = m_attempt->choice.channelName;
    row.keyId = m_attempt->choice.key.keyId;
    row.outcome = outcome.kind;
    row.phase = outcome.phase;
    row.httpStatus = outcome.httpStatus ? outcome.httpStatus : m_attempt->status;
    row.startedMs = m_attempt->startedWallMs;
    row.latencyMs = millisOf(latency);
    row.ttftMs = m_attempt->ttft ? millisOf(*m_attempt->ttft) : -1;
    row.message = outcome.message;
    if (m_attempt->continuesAfter >= 0) // the splice point, in the history
        row.message = QStringLiteral("continued the answer after %1 characters had reached the client%2")
                          .arg(m_attempt->continuesAfter)
                          .arg(row.message.isEmpty() ? QString() : QStringLiteral("; ") + row.message);
    m_record.attempts.push_back(std::move(row));
}

void ProxyCall::endAttempt()
{
    m_attemptTimer.stop();
    m_stallTimer.stop();
    m_slowTimer.stop();
    m_retrySlot.reset();
    if (m_attempt) {
        m_record.channelId = m_attempt->choice.channelId;
        m_record.channelName = m_attempt->choice.channelName;
    }
    m_attempt.reset();
}

HttpHeaders ProxyCall::routingHeaders() const
{
    // Built fresh with distinct names: add(), not set(), which searches what is there each time;
    // names and fixed values are literals, which QByteArrayLiteral stores without an allocation.
    HttpHeaders headers;
    headers.add(QByteArrayLiteral("x-request-id"), m_input.requestId.toUtf8());
    if (!m_attempt && !m_record.channelName.isEmpty()) // an error after the attempts: the last channel tried
        headers.add(QByteArrayLiteral("x-switchboard-channel"), m_record.channelName.toUtf8());
    if (m_attempt) {
        headers.add(QByteArrayLiteral("x-switchboard-channel"), m_attempt->choice.channelName.toUtf8());
        headers.add(QByteArrayLiteral("x-switchboard-tier"), smallNumber(m_attempt->choice.tier));
        if (m_attempt->choice.tier > 0)
            headers.add(QByteArrayLiteral("x-switchboard-model"), m_attempt->choice.logicalModel.toUtf8());
        if (m_attempt->choice.panic)
            headers.add(QByteArrayLiteral("x-switchboard-panic"), QByteArrayLiteral("true"));
    }
    if (!m_input.autoTier.isEmpty()) // "x-switchboard-tier" is the fallback tier number; this is the task-based tier
        headers.add(QByteArrayLiteral("x-switchboard-auto-tier"), m_input.autoTier.toUtf8());
    if (!m_input.cacheHeader.isEmpty()) // miss or skip (hits never get here)
        headers.add(QByteArrayLiteral("x-switchboard-cache"), m_input.cacheHeader);
    headers.add(QByteArrayLiteral("x-switchboard-attempts"), smallNumber(m_retry.attempts()));
    const bool failover = m_attempt && m_attempt->choice.channelId != m_firstChannelId;
    headers.add(QByteArrayLiteral("x-switchboard-failover"), failover ? QByteArrayLiteral("true") : QByteArrayLiteral("false"));
    return headers;
}

void ProxyCall::writeStreamError(const Outcome &outcome)
{
    if (m_response->isOpen()) {
        m_response->write(m_api.streamError(clienterrors::midStream(outcome)));
        m_response->finish();
    }
}

QString ProxyCall::continuationRefusal(const Outcome &outcome, bool passedThrough) const
{
    if (passedThrough && !m_api.resumesPassThrough())
        return QStringLiteral("the stream went out in the upstream's own events, which this API's writer cannot go on from");
    if (!m_tracksText)
        return m_policy->config().continueStreams ? QStringLiteral("continuation is turned off for this route")
                                                  : QStringLiteral("continuation is turned off in Settings");
    if (const QString why = m_continuation.refusal(); !why.isEmpty())
        return why;
    if (m_retry.shouldContinue(outcome))
        return QString();
    if (!outcome.isRetryable())
        return QStringLiteral("the provider's error is not one another channel would answer differently");
    if (m_retry.attempts() >= m_policy->maxAttempts())
        return QStringLiteral("the route's attempts were used up");
    return QStringLiteral("the request's deadline had passed");
}

void ProxyCall::continueStream()
{
    m_continuation.beginSplice(m_usage, m_input.estimatedTokens);
    m_usage = TokenUsage(); // the continuation's own, summed with the earlier ones at the end
    spdlog::info("{}: the stream broke after {} characters reached the client ({}); continuing it on another channel",
                 m_input.requestId.toStdString(), m_continuation.text().toUcs4().size(),
                 m_lastOutcome ? m_lastOutcome->message.toStdString() : std::string());
    nextAttempt();
}

void ProxyCall::endBrokenStream(const Outcome &outcome, const QString &notContinued)
{
    // A continuation's opening held back in case it repeated the answer goes out before the end.
    if (m_continuation.splicing() && m_response->isOpen())
        if (const std::vector<QByteArray> held = m_continuation.splice({}, true); !held.empty())
            m_response->write(m_api.streamChunks(held));
    writeStreamError(outcome);
    // Why no other channel took the rest, as an error before the first byte names them: a person
    // reading the row asks that first (a circuit open, keys cooling, or nothing but attempts spent).
    QString why = notContinued;
    if (outcome.isRetryable() && clienterrors::namesUntriedChannels(outcome))
        if (const QStringList untried = m_engine.router().untriedChannelReasons(m_input.model, m_retry, m_input.estimatedTokens);
            !untried.isEmpty())
            why += QStringLiteral("; not tried: %1").arg(untried.join(QStringLiteral("; ")));
    finish(RequestStatus::MidStream, 200, QStringLiteral("%1 (not continued: %2)").arg(outcome.message, why));
}

void ProxyCall::replyFromLastOutcome(const QString &why, bool deadlineReached)
{
    if (!m_lastOutcome) {
        replyError(clienterrors::noChannel(why));
        return;
    }
    FailureSummary summary;
    summary.model = m_input.model;
    summary.attempts = m_retry.attempts();
    summary.stoppedBecause = why;
    if (clienterrors::namesUntriedChannels(*m_lastOutcome))
        summary.untried = m_engine.router().untriedChannelReasons(m_input.model, m_retry, m_input.estimatedTokens);
    // An attempt cut short by the deadline's remainder ends a hair before the clock reads the
    // deadline (timer granularity), so a few milliseconds left count as none.
    summary.deadlineReached = deadlineReached || m_retry.remaining() <= std::chrono::milliseconds(10);
    std::optional<Clock::Duration> retryAfter;
    const ApiError error = clienterrors::afterFailure(*m_lastOutcome, summary, &retryAfter);
    // The client may come back when the key that refused is usable again, which the key ring knows
    // better than one answer's hint (a longer cool-down may be running, or none was sent).
    if (m_lastOutcome->kind == OutcomeKind::RetryableRateLimit && m_lastFailedProvider != 0)
        if (const auto keys = m_engine.router().keyRing(m_lastFailedProvider))
            if (const auto soonest = keys->soonestAvailableIn(); soonest && *soonest > Clock::Duration::zero())
                retryAfter = *soonest;
    replyError(error, retryAfter);
}

void ProxyCall::replyError(const ApiError &error, std::optional<Clock::Duration> retryAfter)
{
    if (m_stage == Stage::Streaming) { // a continuation found no channel: the stream was under way
        endBrokenStream(m_lastOutcome ? *m_lastOutcome : Outcome::local(OutcomeKind::ProviderDown, error.message), error.message);
        return;
    }
    HttpHeaders headers = routingHeaders();
    headers.set("Content-Type", "application/json");
    if (retryAfter)
        headers.set("Retry-After", clienterrors::retryAfterSeconds(*retryAfter));
    const int status = m_api.errorStatus(error);
    if (m_response->isOpen())
        m_response->send(status, headers, m_api.errorBody(error));
    finish(RequestStatus::Error, status, error.message);
}

void ProxyCall::onClientGone()
{
    if (m_stage == Stage::Finished)
        return;
    if (m_attempt) {
        cancelTransfer();
        // The caller left; this says nothing about the channel, so it is not recorded as an outcome.
        m_engine.router().release(m_attempt->choice);
        m_attempt->recorded = true;
        endAttempt();
    }
    m_backoffTimer.stop();
    finish(RequestStatus::Cancelled, 499, QStringLiteral("the client closed the connection"));
}

void ProxyCall::recordCost(RequestStatus status)
{
    // Priced by the upstream model of the channel that answered (a fallback tier costs what it
    // costs), charged to the route the caller asked for (after `auto`), whose budget it counts against.
    const auto config = m_engine.config();
    const ChannelConfig *channel = config->channel(m_record.channelId);
    const bool answered = status == RequestStatus::Ok || status == RequestStatus::MidStream
        || (status == RequestStatus::Cancelled && m_clientTtft);
    const RequestCost cost = CostMeter::cost(config->prices, channel ? channel->upstreamModel : QString(), m_input.model,
                                             m_usage, answered);
    m_record.costUsd = cost.usd;
    m_record.costKnown = cost.known;
    if (cost.known && cost.usd <= 0.0)
        return;
    if (!cost.known && spdlog::should_log(spdlog::level::debug)) // the arguments cost even when not logged
        spdlog::debug("{}: cost unknown, {}", m_input.requestId.toStdString(), cost.note().toStdString());
    const auto events = m_engine.costMeter().record(m_input.model, cost, findBudget(config->budgets, m_input.model),
                                                    m_engine.clock().wallMillis(), m_engine.clock().now());
    for (const HealthEvent &event : events) {
        spdlog::warn("budget: {}", event.reason.toStdString());
        m_engine.router().pool().events()->emitEvent(event);
    }
}

bool ProxyCall::isCallersUnknownModel(RequestStatus status, int httpStatus) const
{
    // A 404 for the model (no route has it, or the provider does not serve it) is the caller's
    // mistake, not an outage: like a request refused at the door it stays out of the availability
    // (ARCHITECTURE.md, "Errors and outcomes"). The history keeps it, so the caller can find it.
    return status == RequestStatus::Error && httpStatus == 404 && m_lastOutcome
           && m_lastOutcome->kind == OutcomeKind::NonRetryableParamError;
}

void ProxyCall::finish(RequestStatus status, int httpStatus, const QString &error)
{
    if (m_stage == Stage::Finished)
        return;
    m_stage = Stage::Finished;
    if (m_continuation.splices() > 0)
        m_usage = m_continuation.summedUsage(m_usage);
    m_backoffTimer.stop();
    m_attemptTimer.stop();
    m_stallTimer.stop();
    m_slowTimer.stop();
    m_retrySlot.reset();
    auto &counters = m_engine.counters();
    counters.inFlight.fetch_sub(1, std::memory_order_relaxed);
    m_engine.retryBudget().requestFinished();
    const bool failover = !m_record.attempts.empty() && m_record.channelId != 0 && m_record.channelId != m_firstChannelId;
    switch (status) {
    case RequestStatus::Ok: counters.succeeded.fetch_add(1, std::memory_order_relaxed); break;
    case RequestStatus::Error: counters.failed.fetch_add(1, std::memory_order_relaxed); break;
    case RequestStatus::MidStream: counters.midStream.fetch_add(1, std::memory_order_relaxed); break;
    case RequestStatus::Cancelled: counters.cancelled.fetch_add(1, std::memory_order_relaxed); break;
    }
    if (failover && status == RequestStatus::Ok)
        counters.failovers.fetch_add(1, std::memory_order_relaxed);
    if (m_usage.promptTokens > 0)
        counters.inputTokens.fetch_add(static_cast<std::uint64_t>(m_usage.promptTokens), std::memory_order_relaxed);
    if (m_usage.completionTokens > 0)
        counters.outputTokens.fetch_add(static_cast<std::uint64_t>(m_usage.completionTokens), std::memory_order_relaxed);

    const Clock::Duration latency = m_engine.clock().now() - m_startedAt;
    if (status != RequestStatus::Cancelled && !isCallersUnknownModel(status, httpStatus)) {
        // Client-visible outcome: what the console's availability and TTFT are made of.
        OutcomeKind kind = OutcomeKind::Success;
        if (status != RequestStatus::Ok)
            kind = m_lastOutcome ? m_lastOutcome->kind : OutcomeKind::ProviderDown;
        m_engine.clientWindow().record(m_engine.clock().now(), kind,
                                       status == RequestStatus::Ok ? std::optional<Clock::Duration>(latency) : std::nullopt,
                                       status == RequestStatus::Ok ? m_clientTtft : std::nullopt);
    }

    m_record.status = status;
    m_record.httpStatus = httpStatus;
    m_record.outcome = status == RequestStatus::Ok ? OutcomeKind::Success
                                                   : (m_lastOutcome ? m_lastOutcome->kind : OutcomeKind::ProviderDown);
    m_record.latencyMs = millisOf(latency);
    m_record.ttftMs = m_clientTtft ? millisOf(*m_clientTtft) : -1;
    m_record.inputTokens = std::max(0, m_usage.promptTokens);
    m_record.outputTokens = std::max(0, m_usage.completionTokens);
    m_record.cacheReadTokens = std::max(0, m_usage.cacheReadTokens);
    m_record.cacheWriteTokens = std::max(0, m_usage.cacheWriteTokens);
    m_record.failover = failover;
    m_record.error = error;
    recordCost(status);
    m_engine.emitRequest(std::move(m_record));

    if (m_onFinished)
        m_onFinished(this);
}

} // namespace sb
