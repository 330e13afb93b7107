#pragma once

#include "common/Clock.h"
#include "net/HttpHandler.h"
#include "proxy/ProxyCall.h"

#include <QObject>

#include <memory>
#include <unordered_map>
#include <vector>

namespace sb {

class ControlRoutes;
class EngineContext;
class ReplyChannel;
class ResponsesEndpoint;
class UpstreamClient;
struct AnthropicError;
struct ApiError;

// The front door on one worker thread: authenticates, routes the path (OpenAI chat completions and
// embeddings, OpenAI Responses, Anthropic Messages) and hands each model request to a ProxyCall.
// Owns this worker's upstream client (one libcurl multi handle per worker, ARCHITECTURE.md,
// "Threads").
class ProxyHandler : public QObject, public HttpHandler {
    Q_OBJECT
public:
    // `control` answers the control plane's paths (/admin/*, /metrics); null: they are 404s.
    ProxyHandler(EngineContext &engine, int workerIndex, const ControlRoutes *control);
    ~ProxyHandler() override;

    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override;

private:
    void handleModels(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response);
    void handleCompletion(const HttpRequest &request, std::shared_ptr<ResponseWriter> response, bool embeddings);
    // Anthropic's Messages API: POST /v1/messages and /v1/messages/count_tokens.
    void handleMessages(const HttpRequest &request, std::shared_ptr<ResponseWriter> response);
    void handleCountTokens(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response);
    // `auto` → the tier's model; false when the request was answered with an error instead.
    bool chooseAutoTier(const HttpRequest &request, ProxyCall::Input *input, const std::shared_ptr<ResponseWriter> &response);
    // A chat request (of any front door) goes to the exact and semantic caches first.
    void throughCache(const HttpRequest &request, ProxyCall::Input input, std::shared_ptr<ResponseWriter> response);
    void startCall(ProxyCall::Input input, std::shared_ptr<ResponseWriter> response);
    bool authorized(const HttpRequest &request) const;
    void sendError(const std::shared_ptr<ResponseWriter> &response, const ApiError &error);
    void sendAnthropicError(const std::shared_ptr<ResponseWriter> &response, const AnthropicError &error);
    QString nextRequestId();

    EngineContext &m_engine;
    const int m_workerIndex;
    const ControlRoutes *m_control;
    std::unique_ptr<UpstreamClient> m_upstream;
    std::shared_ptr<ReplyChannel> m_replies; // stores answer lookups on this worker's thread
    std::unique_ptr<ResponsesEndpoint> m_responses;
    std::unordered_map<ProxyCall *, std::unique_ptr<ProxyCall>> m_calls;
    // Finished calls are freed from the event loop, not inside their own callback; a 0 ms timer
    // does that without the eventfd wake-up a queued call costs (two system calls per request).
    std::vector<ProxyCall *> m_finished;
    std::unique_ptr<Timer> m_reaper;
    quint64 m_requestCounter = 0;
};

} // namespace sb
