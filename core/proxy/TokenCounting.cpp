#include "proxy/TokenCounting.h"

#include "frontends/anthropic_messages/AnthropicTokenEstimate.h"
#include "net/HttpRequest.h"
#include "net/ResponseWriter.h"
#include "net/UpstreamTransport.h"
#include "providers/anthropic/AnthropicAdapter.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <spdlog/spdlog.h>

namespace sb {

namespace {

struct Counter {
    const ProviderConfig *provider = nullptr;
    const ChannelConfig *channel = nullptr;
    QString key;
};

// The route's first enabled Anthropic channel whose provider has an enabled key.
std::optional<Counter> anthropicCounter(const EngineConfig &config, const QString &model)
{
    const RouteConfig *route = config.route(model);
    if (!route)
        return std::nullopt;
    for (const int id : route->channelIds) {
        const ChannelConfig *channel = config.channel(id);
        const ProviderConfig *provider = channel ? config.provider(channel->providerId) : nullptr;
        if (!channel || !channel->enabled || !provider || !provider->enabled || provider->dialect != QLatin1String("anthropic"))
            continue;
        for (const ApiKeyConfig &key : provider->keys)
            if (key.enabled && !key.secret.isEmpty())
                return Counter{provider, channel, key.secret};
    }
    return std::nullopt;
}

void sendCount(const std::shared_ptr<ResponseWriter> &response, const QByteArray &body, const char *source)
{
    HttpHeaders headers;
    headers.set("Content-Type", "application/json");
    headers.set("x-switchboard-token-count", source);
    response->send(200, headers, body);
}

} // namespace

void countTokens(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response, const EngineConfigPtr &config,
                 UpstreamTransport &upstream, int estimate)
{
    const QByteArray estimated = AnthropicTokenEstimate::toJson(estimate);
    const QString model = QJsonDocument::fromJson(request.body).object().value(QLatin1String("model")).toString();
    const std::optional<Counter> counter = anthropicCounter(*config, model);
    if (!counter) {
        sendCount(response, estimated, "estimate");
        return;
    }
    static const AnthropicAdapter adapter;
    const AdapterContext context{counter->provider, counter->channel, counter->key};
    const UpstreamRequest forwarded = adapter.countTokensRequest(request.body, request.headers, context);
    TransferOptions options;
    options.connectTimeout = counter->provider->connectTimeout;
    options.totalTimeout = std::chrono::milliseconds(10'000);
    options.proxyUrl = config->domainOf(*counter->channel).egressProxy;
    applyProviderTls(options, *counter->provider);
    options.maxResponseBytes = 64 * 1024;
    struct Reply {
        int status = 0;
        QByteArray body;
    };
    auto reply = std::make_shared<Reply>();
    TransferCallbacks callbacks;
    callbacks.onHeaders = [reply](int status, const HttpHeaders &) { reply->status = status; };
    callbacks.onData = [reply](QByteArrayView chunk) { reply->body.append(chunk.data(), chunk.size()); };
    // `config` rides along: the provider and channel the request was made from must outlive it.
    callbacks.onComplete = [reply, response, estimated, config](TransferError error, const QString &message) {
        const bool counted = error == TransferError::None && reply->status == 200
                             && QJsonDocument::fromJson(reply->body).object().value(QLatin1String("input_tokens")).isDouble();
        if (counted) {
            sendCount(response, reply->body, "anthropic");
            return;
        }
        // A count is advice, not an answer to fail over for: the estimate stands in.
        spdlog::debug("count_tokens: Anthropic's count failed ({}, HTTP {}); answering the estimate", message.toStdString(), reply->status);
        sendCount(response, estimated, "estimate");
    };
    upstream.start(forwarded, options, std::move(callbacks));
}

} // namespace sb
