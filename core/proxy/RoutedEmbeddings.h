#pragma once

#include "cache/EmbeddingsClient.h"
#include "model/EngineConfig.h"

#include <QString>

#include <memory>

namespace sb {

class EngineContext;
class ReplyChannel;
class UpstreamClient;

// The semantic cache's embeddings call, made the way the router makes every other call
// (ARCHITECTURE.md, "Caching"): the embeddings channel's provider's live key ring leases the key (a
// cooling or refused key is never sent; a 429 or an auth error rotates to the next key at once, up to
// one try per key), a channel whose circuit is open or that left the pool is not asked, the channel's
// health and breaker and the key ring hear every outcome, and the dialect's own classifyAnswer()
// reads the answer, so Gemini's batchEmbedContents and DashScope's output.embeddings are read as
// OpenAI's data[].embedding is. On the worker's thread and upstream client, like the call it serves.
class RoutedEmbeddings {
public:
    // `done` runs later on this thread, exactly once unless the upstream client goes first.
    // `replies` reaches this thread (the worker's), for a token exchange's answer.
    static void embed(EngineContext &engine, UpstreamClient &upstream, const std::shared_ptr<ReplyChannel> &replies,
                      const EngineConfigPtr &config, const RouteCacheConfig &cache, const QString &text,
                      EmbeddingsClient::Done done);
};

} // namespace sb
