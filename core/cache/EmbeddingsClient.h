#pragma once

#include "model/EngineConfig.h"

#include <QString>

#include <functional>
#include <optional>
#include <vector>

namespace sb {

class UpstreamClient;

// One OpenAI-compatible /v1/embeddings call for the semantic cache, to the provider of the route's
// embeddings channel, through the worker's own upstream client (so it never blocks the worker and
// is cancelled with it). The provider's dialect translates the request, as for any proxied call.
class EmbeddingsClient {
public:
    using Done = std::function<void(std::optional<std::vector<float>> embedding, const QString &error)>;

    // How long a lookup may wait for its embedding before the request goes on as a miss: the
    // semantic cache is there to save time, a slow embeddings call must not cost more than it saves.
    static constexpr std::chrono::milliseconds kTimeout{3000};

    // `done` runs later on this thread (never from inside embed()), exactly once unless the
    // upstream client is destroyed first. Returns the transfer id, 0 when nothing was started.
    static quint64 embed(UpstreamClient &upstream, const EngineConfig &config, const RouteCacheConfig &cache,
                         const QString &text, Done done);

    // The first vector of an OpenAI embeddings answer ({"data":[{"embedding":[…]}]}).
    static std::optional<std::vector<float>> parse(const QByteArray &body, QString *error);
};

} // namespace sb
