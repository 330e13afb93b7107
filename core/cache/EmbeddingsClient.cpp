#include "cache/EmbeddingsClient.h"

#include "common/EventLoop.h"
#include "net/UpstreamClient.h"
#include "providers/ProviderRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <memory>

namespace sb {

namespace {

void later(EmbeddingsClient::Done done, const QString &error)
{
    runSoon([done = std::move(done), error] { done(std::nullopt, error); });
}

} // namespace

std::optional<std::vector<float>> EmbeddingsClient::parse(const QByteArray &body, QString *error)
{
    const QJsonArray vector = QJsonDocument::fromJson(body).object().value(QLatin1String("data")).toArray()
                                  .at(0).toObject().value(QLatin1String("embedding")).toArray();
    if (vector.isEmpty()) {
        if (error)
            *error = QStringLiteral("the embeddings answer has no data[0].embedding");
        return std::nullopt;
    }
    std::vector<float> out;
    out.reserve(std::size_t(vector.size()));
    for (const QJsonValue &v : vector)
        out.push_back(static_cast<float>(v.toDouble()));
    return out;
}

quint64 EmbeddingsClient::embed(UpstreamClient &upstream, const EngineConfig &config, const RouteCacheConfig &cache,
                                const QString &text, Done done)
{
    const ChannelConfig *channel = config.channel(cache.embeddingsChannelId);
    const ProviderConfig *provider = channel ? config.provider(channel->providerId) : nullptr;
    const ProviderAdapter *adapter = provider ? ProviderRegistry::find(provider->dialect) : nullptr;
    if (!adapter) {
        later(std::move(done), QStringLiteral("the embeddings channel has no usable provider"));
        return 0;
    }
    QString key;
    for (const ApiKeyConfig &k : provider->keys)
        if (k.enabled && !k.secret.isEmpty()) {
            key = k.secret;
            break;
        }
    const QString model = cache.embeddingsModel.isEmpty() ? channel->upstreamModel : cache.embeddingsModel;
    ChannelConfig embeddingsChannel = *channel;
    embeddingsChannel.upstreamModel = model;
    const QJsonObject body{{QStringLiteral("model"), model}, {QStringLiteral("input"), text}};
    const auto request = adapter->embeddingsRequest(body, AdapterContext{provider, &embeddingsChannel, key});
    if (!request) {
        later(std::move(done), QStringLiteral("the %1 dialect has no embeddings endpoint").arg(provider->dialect));
        return 0;
    }
    TransferOptions options;
    options.connectTimeout = std::min(provider->connectTimeout, kTimeout);
    options.totalTimeout = kTimeout;
    options.proxyUrl = config.domainOf(*channel).egressProxy;
    applyProviderTls(options, *provider);
    options.maxResponseBytes = 16 * 1024 * 1024;

    struct State {
        int status = 0;
        QByteArray body;
        Done done;
    };
    auto state = std::make_shared<State>();
    state->done = std::move(done);
    TransferCallbacks callbacks;
    callbacks.onHeaders = [state](int status, const HttpHeaders &) { state->status = status; };
    callbacks.onData = [state](QByteArrayView chunk) { state->body.append(chunk.data(), chunk.size()); };
    callbacks.onComplete = [state](TransferError error, const QString &message) {
        Done finished = std::move(state->done);
        if (!finished)
            return;
        if (error != TransferError::None) {
            finished(std::nullopt, message);
            return;
        }
        if (state->status != 200) {
            finished(std::nullopt, QStringLiteral("the embeddings endpoint answered HTTP %1").arg(state->status));
            return;
        }
        QString parseError;
        auto vector = parse(state->body, &parseError);
        finished(std::move(vector), parseError);
    };
    return upstream.start(*request, options, std::move(callbacks));
}

} // namespace sb
