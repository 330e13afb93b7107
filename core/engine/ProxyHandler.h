#pragma once

#include "net/HttpHandler.h"

#include <QObject>

#include <memory>
#include <unordered_map>

namespace sb {

class EngineContext;
class ProxyCall;
class UpstreamClient;
struct ApiError;

// The OpenAI-compatible front door on one worker thread: authenticates, routes the path and hands
// chat and embeddings requests to a ProxyCall. Owns this worker's upstream client (one libcurl
// multi handle per worker, ARCHITECTURE.md "Threads").
class ProxyHandler : public QObject, public HttpHandler {
    Q_OBJECT
public:
    ProxyHandler(EngineContext &engine, int workerIndex);
    ~ProxyHandler() override;

    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response) override;

private:
    void handleModels(const std::shared_ptr<ResponseWriter> &response);
    void handleCompletion(const HttpRequest &request, std::shared_ptr<ResponseWriter> response, bool embeddings);
    bool authorized(const HttpRequest &request) const;
    void sendError(const std::shared_ptr<ResponseWriter> &response, const ApiError &error);
    QString nextRequestId();

    EngineContext &m_engine;
    const int m_workerIndex;
    std::unique_ptr<UpstreamClient> m_upstream;
    std::unordered_map<ProxyCall *, std::unique_ptr<ProxyCall>> m_calls;
    quint64 m_requestCounter = 0;
};

} // namespace sb
