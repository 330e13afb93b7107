#include "cache/CacheFront.h"

#include "cache/CacheKey.h"
#include "cache/EmbeddingsClient.h"
#include "frontends/ClientApi.h"
#include "providers/common/OpenAiAnswer.h"
#include "net/ResponseWriter.h"
#include "stream/StreamTee.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <spdlog/spdlog.h>

namespace sb {

// Everything one request's lookup needs after an asynchronous embeddings call.
struct CacheFront::Lookup {
    Request request;
    EngineConfigPtr config;
    const RouteConfig *route = nullptr; // kept alive by config
    std::shared_ptr<ResponseWriter> response;
    RecordSink record;
    Proceed proceed;
    QByteArray exactKey;
    QByteArray scope;
    Clock::TimePoint startedAt;
    qint64 startedWallMs = 0;
};

CacheFront::CacheFront(const Clock &clock) : m_clock(clock), m_exact(clock), m_semantic(clock) {}

bool CacheFront::openStore(const QString &databasePath, QString *error)
{
    return m_semantic.open(databasePath, error);
}

bool CacheFront::bypassRequested(const HttpHeaders &headers)
{
    if (headers.value("x-switchboard-cache").trimmed().toLower() == "skip")
        return true;
    for (const auto &[name, value] : headers.fields()) {
        if (name.compare("cache-control", Qt::CaseInsensitive) != 0)
            continue;
        for (const QByteArray &directive : value.split(',')) {
            const QByteArray d = directive.trimmed().toLower();
            if (d == "no-cache" || d == "no-store")
                return true;
        }
    }
    return false;
}

void CacheFront::applyLimits(const EngineConfigPtr &config)
{
    // Once per configuration, not per request: a saved config swaps the pointer.
    if (m_limitsFrom.exchange(config.get(), std::memory_order_relaxed) == config.get())
        return;
    m_exact.setLimits(config->cache);
    m_semantic.setMaxEntries(config->cache.semanticMaxEntries);
}

void CacheFront::handle(Request request, const EngineConfigPtr &config, const std::shared_ptr<ResponseWriter> &response,
                        const Embed &embed, RecordSink record, Proceed proceed)
{
    const RouteConfig *route = config->route(request.model);
    if (!route || (!route->cacheEnabled && !route->cache.semantic)) {
        proceed(Miss{});
        return;
    }
    if (bypassRequested(request.headers)) {
        m_skipped.fetch_add(1, std::memory_order_relaxed);
        proceed(Miss{nullptr, QByteArrayLiteral("skip")});
        return;
    }
    applyLimits(config);

    auto lookup = std::make_shared<Lookup>();
    lookup->startedAt = m_clock.now();
    lookup->startedWallMs = m_clock.wallMillis();
    lookup->config = config;
    lookup->route = route;
    lookup->response = response;
    lookup->record = std::move(record);
    lookup->proceed = std::move(proceed);
    lookup->exactKey = CacheKey::exact(request.body.object());
    lookup->request = std::move(request);

    if (route->cacheEnabled) {
        if (auto answer = m_exact.find(lookup->exactKey)) {
            serveHit(*lookup, *answer, "exact", std::nullopt);
            return;
        }
    }
    const QString text = route->cache.semantic ? CacheKey::semanticText(lookup->request.body.object()) : QString();
    if (text.isEmpty()) {
        lookup->proceed(Miss{makeTee(*lookup, std::nullopt), QByteArrayLiteral("miss")});
        return;
    }
    lookup->scope = CacheKey::semanticScope(route->logicalModel, lookup->request.body.object());
    m_embeddingCalls.fetch_add(1, std::memory_order_relaxed);
    embed(route->cache, text, [this, lookup](std::optional<std::vector<float>> embedding, const QString &error) {
        const auto waited = std::chrono::duration_cast<std::chrono::microseconds>(m_clock.now() - lookup->startedAt);
        m_embeddingMicros.fetch_add(quint64(std::max<qint64>(0, waited.count())), std::memory_order_relaxed);
        if (!lookup->response->isOpen())
            return; // the caller left while we asked
        if (!embedding) {
            m_embeddingFailures.fetch_add(1, std::memory_order_relaxed);
            spdlog::warn("{}: semantic cache skipped: {}", lookup->request.requestId.toStdString(), error.toStdString());
            lookup->proceed(Miss{makeTee(*lookup, std::nullopt), QByteArrayLiteral("miss")});
            return;
        }
        if (auto hit = m_semantic.find(lookup->scope, *embedding, similarityThreshold(lookup->route->cache.preset))) {
            serveHit(*lookup, *hit->answer, "semantic", hit->similarity);
            return;
        }
        lookup->proceed(Miss{makeTee(*lookup, std::move(embedding)), QByteArrayLiteral("miss")});
    });
}

std::shared_ptr<StreamTee> CacheFront::makeTee(const Lookup &lookup, std::optional<std::vector<float>> embedding)
{
    const bool exact = lookup.route->cacheEnabled;
    if (!exact && !embedding)
        return nullptr;
    const Clock::Duration ttl = lookup.route->cache.ttl;
    QByteArray key = exact ? lookup.exactKey : QByteArray();
    QByteArray scope = lookup.scope;
    return std::make_shared<StreamTee>(lookup.config->cache.maxAnswerBytes,
                                       [this, key, scope, ttl, embedding = std::move(embedding)](StreamTee::Result &&result) {
        CachedAnswer answer{std::move(result.events), std::move(result.whole)};
        if (embedding)
            m_semantic.store(scope, *embedding, answer, ttl);
        if (!key.isEmpty())
            m_exact.store(key, std::move(answer), ttl);
    });
}

void CacheFront::serveHit(const Lookup &lookup, const CachedAnswer &answer, const char *kind, std::optional<float> similarity)
{
    HttpHeaders headers;
    headers.set("x-request-id", lookup.request.requestId.toUtf8());
    headers.set("x-switchboard-cache", "hit");
    headers.set("x-switchboard-cache-kind", kind);
    if (similarity)
        headers.set("x-switchboard-cache-similarity", QByteArray::number(double(*similarity), 'f', 4));
    if (lookup.request.stream) {
        headers.set("Content-Type", "text/event-stream; charset=utf-8");
        headers.set("Cache-Control", "no-cache");
        headers.set("X-Accel-Buffering", "no");
        lookup.response->startStream(200, headers);
        // One write: the whole answer is here, and the first event should not wait for the rest.
        if (ClientApi *api = lookup.request.api.get()) {
            QByteArray events = api->streamChunks(answer.toChunks()); // before streamEnd(): the writer is a sequence
            events += api->streamEnd();
            lookup.response->write(events);
        } else {
            lookup.response->write(answer.toSseBody());
        }
        lookup.response->finish();
    } else {
        headers.set("Content-Type", "application/json");
        const QByteArray completion = answer.toCompletionJson();
        if (ClientApi *api = lookup.request.api.get()) {
            const QJsonObject object = QJsonDocument::fromJson(completion).object();
            lookup.response->send(200, headers,
                                  api->answer(OpenAiAnswer::fromObject(object), lookup.request.model,
                                              object.value(QLatin1String("created")).toInteger(m_clock.wallMillis() / 1000)));
        } else {
            lookup.response->send(200, headers, completion);
        }
    }

    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - lookup.startedAt);
    RequestRecord row;
    row.requestId = lookup.request.requestId;
    row.timeMs = lookup.startedWallMs;
    row.logicalModel = lookup.request.model;
    row.channelName = QStringLiteral("cache");
    row.status = RequestStatus::Ok;
    row.outcome = OutcomeKind::Success;
    row.httpStatus = 200;
    row.ttftMs = int(elapsed.count());
    row.latencyMs = int(elapsed.count());
    row.cacheHit = true;
    row.streamed = lookup.request.stream;
    row.clientApi = lookup.request.clientApi;
    if (lookup.record)
        lookup.record(std::move(row));
}

CacheFront::Stats CacheFront::stats() const
{
    Stats s;
    s.exact = m_exact.stats();
    s.semantic = m_semantic.stats();
    s.skipped = m_skipped.load(std::memory_order_relaxed);
    s.embeddingCalls = m_embeddingCalls.load(std::memory_order_relaxed);
    s.embeddingFailures = m_embeddingFailures.load(std::memory_order_relaxed);
    s.embeddingMicros = m_embeddingMicros.load(std::memory_order_relaxed);
    return s;
}

} // namespace sb
