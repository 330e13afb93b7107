#pragma once

#include "cache/EmbeddingsClient.h"
#include "cache/ExactCache.h"
#include "cache/SemanticCache.h"
#include "common/HttpHeaders.h"
#include "model/EngineConfig.h"
#include "common/json/ClientBody.h"
#include "telemetry/HistoryRecords.h"

#include <QString>

#include <atomic>
#include <functional>
#include <memory>

namespace sb {

class ClientApi;
class ResponseWriter;
class StreamTee;

// The cache step of ARCHITECTURE.md, "The life of a request": the exact cache, then the semantic one,
// in front of the router. One per engine, shared by every worker. A hit is answered here at once
// (a stream request gets SSE ending in [DONE]); a miss goes on to the router with a StreamTee
// that saves the answer only once it has completed successfully and reached the client.
class CacheFront {
public:
    struct Request {
        QString requestId;
        QString model; // the logical model: selects the route and its cache settings
        ClientBody body;
        bool stream = false;
        HttpHeaders headers;
        // The API the client called, which words a hit (entries are kept in the engine's OpenAI
        // form, so every front door shares them); null: OpenAI chat completions, as stored.
        std::shared_ptr<ClientApi> api;
        QString clientApi = QStringLiteral("openai_chat"); // its name, for the history
    };
    // How a request that was not answered from the cache goes on.
    struct Miss {
        std::shared_ptr<StreamTee> tee; // null when nothing is to be saved
        QByteArray header;              // x-switchboard-cache: "miss" or "skip"; empty when the route has no cache
    };
    using Proceed = std::function<void(Miss)>;
    // How the semantic lookup gets its embedding: the proxy's call through the router
    // (RoutedEmbeddings); `done` runs later on the caller's thread.
    using Embed = std::function<void(const RouteCacheConfig &cache, const QString &text, EmbeddingsClient::Done done)>;
    using RecordSink = std::function<void(RequestRecord &&)>;

    struct Stats {
        ExactCache::Stats exact;
        SemanticCache::Stats semantic;
        quint64 skipped = 0;            // bypassed by the caller's headers
        quint64 embeddingCalls = 0;
        quint64 embeddingFailures = 0;  // the request went on as a miss
        quint64 embeddingMicros = 0;    // total time spent waiting for embeddings
    };

    explicit CacheFront(const Clock &clock);

    // Gives the semantic cache its table (survives restarts). Without it, it lives in memory only.
    bool openStore(const QString &databasePath, QString *error);

    // Either answers from the cache (calling `record` with the request's history row) or calls
    // `proceed`, at once or — when the semantic cache has to ask for an embedding — later on this
    // thread. Neither is called when the client has gone meanwhile.
    void handle(Request request, const EngineConfigPtr &config, const std::shared_ptr<ResponseWriter> &response,
                const Embed &embed, RecordSink record, Proceed proceed);

    // Cache-Control: no-cache / no-store, or x-switchboard-cache: skip.
    static bool bypassRequested(const HttpHeaders &headers);

    ExactCache &exact() { return m_exact; }
    SemanticCache &semantic() { return m_semantic; }
    Stats stats() const;

private:
    struct Lookup;

    void applyLimits(const EngineConfigPtr &config);
    void serveHit(const Lookup &lookup, const CachedAnswer &answer, const char *kind, std::optional<float> similarity);
    std::shared_ptr<StreamTee> makeTee(const Lookup &lookup, std::optional<std::vector<float>> embedding);

    const Clock &m_clock;
    ExactCache m_exact;
    SemanticCache m_semantic;
    std::atomic<const EngineConfig *> m_limitsFrom{nullptr};
    std::atomic<quint64> m_skipped{0};
    std::atomic<quint64> m_embeddingCalls{0};
    std::atomic<quint64> m_embeddingFailures{0};
    std::atomic<quint64> m_embeddingMicros{0};
};

} // namespace sb
