#pragma once

#include "proxy/ProxyCall.h"

#include <QByteArray>

#include <functional>
#include <memory>

namespace sb {

class EngineContext;
class ReplyChannel;
class ResponseWriter;
struct ApiError;
struct HttpRequest;
struct ResponsesRequest;
struct StoredResponse;

// OpenAI's Responses API on one worker: POST /v1/responses (a previous_response_id continues a
// stored conversation, whose turns are read before the call starts), GET and DELETE
// /v1/responses/{id}, GET /v1/responses/{id}/input_items. The answer is worded by ResponsesApi
// and, unless the client said store: false, kept in the EngineContext's ResponseStore.
class ResponsesEndpoint {
public:
    // `startCall` takes a ready request (the auto tier still to choose) to the router.
    using StartCall = std::function<void(const HttpRequest &, ProxyCall::Input, std::shared_ptr<ResponseWriter>)>;

    ResponsesEndpoint(EngineContext &engine, std::shared_ptr<ReplyChannel> replies, StartCall startCall);

    static bool handles(const QByteArray &path);
    // Authorised already; checks the method itself (each path has its own).
    void handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response, QString requestId);

private:
    void create(const HttpRequest &request, std::shared_ptr<ResponseWriter> response, QString requestId);
    void start(const HttpRequest &request, std::shared_ptr<ResponsesRequest> parsed, const QJsonArray &history,
               std::shared_ptr<ResponseWriter> response, QString requestId);
    void retrieve(const QString &id, std::shared_ptr<ResponseWriter> response);
    void remove(const QString &id, std::shared_ptr<ResponseWriter> response);
    void listInputItems(const QString &id, const QByteArray &query, std::shared_ptr<ResponseWriter> response);

    static void sendJson(const std::shared_ptr<ResponseWriter> &response, int status, const QByteArray &body);
    static void sendError(const std::shared_ptr<ResponseWriter> &response, const ApiError &error);
    static ApiError notFound(const QString &id);

    EngineContext &m_engine;
    std::shared_ptr<ReplyChannel> m_replies;
    StartCall m_startCall;
};

} // namespace sb
