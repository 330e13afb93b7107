#include "proxy/RoutedEmbeddings.h"

#include "common/EventLoop.h"
#include "common/ReplyChannel.h"
#include "net/UpstreamClient.h"
#include "net/UpstreamTransfer.h"
#include "providers/ProviderRegistry.h"
#include "proxy/EngineContext.h"
#include "routing/Router.h"

#include <QJsonObject>

#include <memory>

namespace sb {

namespace {

struct Call {
    EngineContext *engine = nullptr;
    UpstreamClient *upstream = nullptr;
    std::shared_ptr<ReplyChannel> replies; // the worker's, for a token exchange's answer
    EngineConfigPtr config;
    const ChannelConfig *channel = nullptr;
    const ProviderConfig *provider = nullptr;
    const ProviderAdapter *adapter = nullptr;
    std::shared_ptr<KeyRing> keys;
    ChannelConfig embeddingsChannel; // the channel with the embeddings model as its upstream model
    QJsonObject body;
    int triesLeft = 1;
    QString lastError;
    EmbeddingsClient::Done done;
};

void fail(const std::shared_ptr<Call> &call, const QString &error)
{
    EmbeddingsClient::Done done = std::move(call->done);
    if (done)
        runSoon([done = std::move(done), error] { done(std::nullopt, error); });
}

void attempt(const std::shared_ptr<Call> &call);
void withKey(const std::shared_ptr<Call> &call, const KeyRing::Lease &lease, const QString &refusedToken);
void send(const std::shared_ptr<Call> &call, const KeyRing::Lease &lease, const QString &token, bool exchanged,
          const QString &refusedToken);

void finished(const std::shared_ptr<Call> &call, const KeyRing::Lease &lease, const QString &token, bool exchanged,
              const QString &refusedToken, Clock::TimePoint startedAt, int status, const HttpHeaders &headers,
              const QByteArray &body, TransferError error, const QString &message)
{
    Router &router = call->engine->router();
    const Clock::Duration latency = call->engine->clock().now() - startedAt;
    Outcome outcome;
    OpenAiAnswer answer;
    TokenUsage usage;
    if (error == TransferError::Timeout)
        outcome = Outcome::local(OutcomeKind::Timeout, message);
    else if (error == TransferError::ConnectFailed || error == TransferError::NameNotResolved || error == TransferError::TlsFailed)
        outcome = Outcome::local(OutcomeKind::ConnectFailed, message);
    else if (error != TransferError::None)
        outcome = Outcome::local(OutcomeKind::ProviderDown, message);
    else
        outcome = call->adapter->classifyAnswer(status, headers, body, true, &answer, &usage);
    if (exchanged && refusedToken.isEmpty() && call->adapter->refusesAccessToken(outcome)) {
        // The exchanged token expired or was revoked, not the key: a new one, and the call once more.
        call->engine->accessTokens().invalidate(*call->adapter, AdapterContext{call->provider, &call->embeddingsChannel, lease.secret}, token);
        withKey(call, lease, token);
        return;
    }
    router.record(call->channel->id, outcome, latency);
    if (call->keys) {
        if (outcome.kind == OutcomeKind::Success)
            call->keys->reportSuccess(lease.keyId);
        else if (outcome.kind == OutcomeKind::RetryableRateLimit)
            call->keys->reportRateLimited(lease.keyId, outcome.retryAfter, outcome.retryAfterFrom);
        else if (outcome.kind == OutcomeKind::AuthError)
            call->keys->reportAuthError(lease.keyId, outcome.message);
    }
    if (outcome.isSuccess()) {
        EmbeddingsClient::Done done = std::move(call->done);
        if (!done)
            return;
        QString parseError;
        auto vector = EmbeddingsClient::parse(answer.toJson(call->embeddingsChannel.upstreamModel, 0), &parseError);
        done(std::move(vector), parseError);
        return;
    }
    call->lastError = QStringLiteral("%1 (%2)").arg(QLatin1String(toString(outcome.kind)), outcome.message);
    // A key-level refusal is the key's, not the provider's: the next key may answer at once.
    const bool keyLevel = outcome.kind == OutcomeKind::RetryableRateLimit || outcome.kind == OutcomeKind::AuthError;
    if (keyLevel && call->triesLeft > 0) {
        attempt(call);
        return;
    }
    fail(call, QStringLiteral("the embeddings channel %1 failed: %2").arg(call->channel->name, call->lastError));
}

void attempt(const std::shared_ptr<Call> &call)
{
    --call->triesLeft;
    const auto health = call->engine->router().pool().channel(call->channel->id);
    if (health && !health->routable()) {
        fail(call, QStringLiteral("the embeddings channel %1 is out of the pool or its circuit is open").arg(call->channel->name));
        return;
    }
    KeyRing::Lease lease;
    if (call->keys) {
        const auto leased = call->keys->next();
        if (!leased) {
            fail(call, call->lastError.isEmpty()
                           ? QStringLiteral("every key of %1 is cooling down or refused").arg(call->provider->name)
                           : QStringLiteral("the embeddings channel %1 failed: %2, and no other key of %3 is free")
                                 .arg(call->channel->name, call->lastError, call->provider->name));
            return;
        }
        lease = *leased;
    }
    withKey(call, lease, QString());
}

void withKey(const std::shared_ptr<Call> &call, const KeyRing::Lease &lease, const QString &refusedToken)
{
    // A key exchanged for an access token (ERNIE's pair) goes as its token (ARCHITECTURE.md, "Keys
    // exchanged for access tokens"), the exchange on this worker's client like the call itself.
    TransferOptions exchange;
    exchange.connectTimeout = std::min(call->provider->connectTimeout, EmbeddingsClient::kTimeout);
    exchange.totalTimeout = EmbeddingsClient::kTimeout;
    exchange.proxyUrl = call->config->domainOf(*call->channel).egressProxy;
    applyProviderTls(exchange, *call->provider);
    exchange.maxResponseBytes = 64 * 1024;
    const std::optional<QString> key = call->engine->accessTokens().resolve(
        *call->adapter, AdapterContext{call->provider, &call->embeddingsChannel, lease.secret}, *call->upstream, exchange,
        call->replies,
        [call, lease, refusedToken](const AccessTokens::Result &result) {
            if (result.failure) {
                Outcome outcome = *result.failure;
                call->engine->router().record(call->channel->id, outcome, Clock::Duration::zero());
                if (call->keys && outcome.kind == OutcomeKind::AuthError)
                    call->keys->reportAuthError(lease.keyId, outcome.message);
                fail(call, QStringLiteral("the embeddings channel %1 could not exchange its key for an access token: %2")
                               .arg(call->channel->name, outcome.message));
                return;
            }
            send(call, lease, result.token, true, refusedToken);
        },
        refusedToken);
    if (key)
        send(call, lease, *key, *key != lease.secret, refusedToken);
}

void send(const std::shared_ptr<Call> &call, const KeyRing::Lease &lease, const QString &token, bool exchanged,
          const QString &refusedToken)
{
    const auto request = call->adapter->embeddingsRequest(call->body, AdapterContext{call->provider, &call->embeddingsChannel, token});
    if (!request) {
        fail(call, QStringLiteral("the %1 dialect has no embeddings endpoint").arg(call->provider->dialect));
        return;
    }
    TransferOptions options;
    options.connectTimeout = std::min(call->provider->connectTimeout, EmbeddingsClient::kTimeout);
    options.totalTimeout = EmbeddingsClient::kTimeout;
    options.proxyUrl = call->config->domainOf(*call->channel).egressProxy;
    applyProviderTls(options, *call->provider);
    options.maxResponseBytes = 16 * 1024 * 1024;

    struct Reply {
        int status = 0;
        HttpHeaders headers;
        QByteArray body;
    };
    auto reply = std::make_shared<Reply>();
    const Clock::TimePoint startedAt = call->engine->clock().now();
    TransferCallbacks callbacks;
    callbacks.onHeaders = [reply](int status, const HttpHeaders &headers) {
        reply->status = status;
        reply->headers = headers;
    };
    callbacks.onData = [reply](QByteArrayView chunk) { reply->body.append(chunk.data(), chunk.size()); };
    callbacks.onComplete = [call, lease, token, exchanged, refusedToken, startedAt, reply](TransferError error, const QString &message) {
        finished(call, lease, token, exchanged, refusedToken, startedAt, reply->status, reply->headers, reply->body, error, message);
    };
    call->upstream->start(*request, options, std::move(callbacks));
}

} // namespace

void RoutedEmbeddings::embed(EngineContext &engine, UpstreamClient &upstream, const std::shared_ptr<ReplyChannel> &replies,
                             const EngineConfigPtr &config, const RouteCacheConfig &cache, const QString &text,
                             EmbeddingsClient::Done done)
{
    auto call = std::make_shared<Call>();
    call->engine = &engine;
    call->upstream = &upstream;
    call->replies = replies;
    call->config = config;
    call->done = std::move(done);
    call->channel = config->channel(cache.embeddingsChannelId);
    call->provider = call->channel ? config->provider(call->channel->providerId) : nullptr;
    call->adapter = call->provider ? ProviderRegistry::find(call->provider->dialect) : nullptr;
    if (!call->adapter || !call->channel->enabled || !call->provider->enabled) {
        fail(call, QStringLiteral("the embeddings channel has no usable provider"));
        return;
    }
    // The ring of the running routing table: the same cool-downs and refusals as chat calls see.
    call->keys = engine.router().keyRing(call->provider->id);
    call->triesLeft = std::max<int>(1, int(call->provider->keys.size()));
    call->embeddingsChannel = *call->channel;
    call->embeddingsChannel.upstreamModel = cache.embeddingsModel.isEmpty() ? call->channel->upstreamModel : cache.embeddingsModel;
    call->body = QJsonObject{{QStringLiteral("model"), call->embeddingsChannel.upstreamModel}, {QStringLiteral("input"), text}};
    attempt(call);
}

} // namespace sb
