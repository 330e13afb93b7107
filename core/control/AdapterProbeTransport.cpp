#include "control/AdapterProbeTransport.h"

#include "proxy/EngineContext.h"
#include "net/UpstreamClient.h"
#include "providers/ProviderRegistry.h"

namespace sb {

AdapterProbeTransport::AdapterProbeTransport(EngineContext &engine, QObject *parent)
    : QObject(parent), m_engine(engine), m_upstream(std::make_unique<UpstreamClient>(engine.clock()))
{
}

AdapterProbeTransport::~AdapterProbeTransport() = default;

bool AdapterProbeTransport::probeIsBilled(int channelId) const
{
    const EngineConfigPtr config = m_engine.config();
    const ChannelConfig *channel = config->channel(channelId);
    const ProviderConfig *provider = channel ? config->provider(channel->providerId) : nullptr;
    const ProviderAdapter *adapter = provider ? ProviderRegistry::find(provider->dialect) : nullptr;
    if (!adapter)
        return false;
    // Billed when the probe of any enabled key would be, as the probe's key may be any of them: a
    // provider whose keys differ in kind is probed at the billed pace, the cautious one.
    for (const ApiKeyConfig &key : provider->keys)
        if (key.enabled && adapter->probeIsBilled(AdapterContext{provider, channel, key.secret}))
            return true;
    return provider->keys.empty() && adapter->probeIsBilled(AdapterContext{provider, channel, QString()});
}

void AdapterProbeTransport::startProbe(int channelId, Clock::Duration timeout, Done done)
{
    const EngineConfigPtr config = m_engine.config();
    const ChannelConfig *channel = config->channel(channelId);
    const ProviderConfig *provider = channel ? config->provider(channel->providerId) : nullptr;
    const ProviderAdapter *adapter = provider ? ProviderRegistry::find(provider->dialect) : nullptr;
    if (!adapter) {
        done(false, Clock::Duration::zero(), QStringLiteral("no provider dialect for this channel"));
        return;
    }
    QString secret;
    if (auto keys = m_engine.router().keyRing(provider->id)) {
        // Keys whose secrets cannot be read leave nothing to probe with; a keyless probe would only
        // earn a 401 that reads like the provider's doing.
        if (const QString unreadable = keys->unreadableSecretReason(); !unreadable.isEmpty()) {
            done(false, Clock::Duration::zero(), QStringLiteral("no API key can be read: %1").arg(unreadable));
            return;
        }
        if (auto lease = keys->next())
            secret = lease->secret;
    }
    AdapterContext context{provider, channel, secret};
    // A key exchanged for access tokens is probed by its exchange, which proves the credentials and
    // the provider's reachability for free; its token is kept for the calls that follow. Any other
    // key is probed by the dialect's light request.
    const std::optional<UpstreamRequest> exchange = adapter->tokenRequest(context);
    const UpstreamRequest request = exchange ? *exchange : adapter->probeRequest(context);

    TransferOptions options;
    options.connectTimeout = std::min(provider->connectTimeout, std::chrono::duration_cast<std::chrono::milliseconds>(timeout));
    options.totalTimeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
    options.proxyUrl = config->domainOf(*channel).egressProxy;
    applyProviderTls(options, *provider);
    options.maxResponseBytes = 4 * 1024 * 1024;

    struct ProbeState {
        int status = 0;
        HttpHeaders headers;
        QByteArray body;
    };
    auto state = std::make_shared<ProbeState>();
    const Clock::TimePoint started = m_engine.clock().now();
    TransferCallbacks callbacks;
    callbacks.onHeaders = [state](int status, const HttpHeaders &headers) {
        state->status = status;
        state->headers = headers;
    };
    callbacks.onData = [state](QByteArrayView chunk) { state->body.append(chunk.data(), chunk.size()); };
    const bool exchanging = exchange.has_value();
    callbacks.onComplete = [this, state, started, adapter, config, context, exchanging, done](TransferError error, const QString &message) {
        const Clock::Duration latency = m_engine.clock().now() - started;
        if (error != TransferError::None) {
            // The transport's words may quote the URL, and an exchange's holds the secret.
            done(false, latency, exchanging ? QStringLiteral("the token exchange failed") : message);
            return;
        }
        if (exchanging) {
            const AccessTokenGrant grant = adapter->readTokenAnswer(state->status, state->headers, state->body);
            m_engine.accessTokens().store(*adapter, context, grant);
            const bool ok = grant.granted() || (grant.failure && grant.failure->kind == OutcomeKind::RetryableRateLimit);
            done(ok, latency, ok ? QStringLiteral("HTTP %1, access token granted").arg(state->status)
                                 : QStringLiteral("HTTP %1: %2").arg(state->status).arg(grant.failure ? grant.failure->message : QString()));
            return;
        }
        const Outcome outcome = adapter->classifyProbe(state->status, state->headers, state->body);
        // A rate-limited probe still proves the provider is up and answering.
        const bool ok = outcome.isSuccess() || outcome.kind == OutcomeKind::RetryableRateLimit;
        done(ok, latency, ok ? QStringLiteral("HTTP %1").arg(state->status)
                             : QStringLiteral("HTTP %1: %2").arg(state->status).arg(outcome.message));
    };
    m_upstream->start(request, options, std::move(callbacks));
}

} // namespace sb
