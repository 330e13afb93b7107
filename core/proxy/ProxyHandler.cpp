#include "proxy/ProxyHandler.h"

#include "common/ReplyChannel.h"
#include "common/SecretMask.h"
#include "frontends/anthropic_messages/AnthropicMessagesApi.h"
#include "frontends/anthropic_messages/AnthropicRequest.h"
#include "frontends/anthropic_messages/AnthropicTokenEstimate.h"
#include "frontends/openai_chat/ChatRequest.h"
#include "frontends/openai_chat/OpenAiChatApi.h"
#include "proxy/ControlRoutes.h"
#include "proxy/EngineContext.h"
#include "proxy/ProxyCall.h"
#include "proxy/RoutedEmbeddings.h"
#include "proxy/ResponsesEndpoint.h"
#include "proxy/TokenCounting.h"
#include "net/HttpRequest.h"
#include "net/ResponseWriter.h"
#include "net/UpstreamClient.h"
#include "routing/ModelSelector.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>

namespace sb {

ProxyHandler::ProxyHandler(EngineContext &engine, int workerIndex, const ControlRoutes *control)
    : m_engine(engine)
    , m_workerIndex(workerIndex)
    , m_control(control)
    , m_upstream(std::make_unique<UpstreamClient>(engine.clock()))
    , m_replies(ReplyChannel::to(this))
    , m_responses(std::make_unique<ResponsesEndpoint>(
          engine, m_replies, [this](const HttpRequest &request, ProxyCall::Input input, std::shared_ptr<ResponseWriter> response) {
              if (chooseAutoTier(request, &input, response))
                  throughCache(request, std::move(input), std::move(response));
          }))
    , m_reaper(engine.clock().createTimer([this] {
        for (ProxyCall *done : std::exchange(m_finished, {}))
            m_calls.erase(done);
    }))
{
}

ProxyHandler::~ProxyHandler()
{
    m_replies->close(); // a store's answer that comes later finds no one
    // Calls cancel their transfers on destruction; the client must still exist then.
    m_calls.clear();
    m_upstream.reset();
}

void ProxyHandler::handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response)
{
    const QByteArray &path = request.path;
    const bool chat = path == "/v1/chat/completions";
    const bool embeddings = path == "/v1/embeddings";
    const bool models = path == "/v1/models";
    const bool messages = path == "/v1/messages";
    const bool countTokens = path == "/v1/messages/count_tokens";
    const bool anthropic = messages || countTokens;
    const bool responses = ResponsesEndpoint::handles(path);

    if (m_control && m_control->handles(path)) { // /admin/* and /metrics: their own access rule and errors
        m_control->handle(request, std::move(response), this);
        return;
    }
    if (path == "/healthz") {
        HttpHeaders headers;
        headers.set("Content-Type", "application/json");
        response->send(200, headers, QByteArrayLiteral("{\"status\":\"ok\"}"));
        return;
    }
    if (!chat && !embeddings && !models && !anthropic && !responses) {
        sendError(response, ApiError{404, QStringLiteral("Unknown path %1. Switchboard serves /v1/chat/completions, /v1/responses, /v1/messages, /v1/embeddings and /v1/models.")
                                              .arg(QString::fromUtf8(path.left(200))),
                                     QStringLiteral("invalid_request_error"), {}, QStringLiteral("unknown_url")});
        return;
    }
    if (!m_engine.config()->proxy.localTokenUnreadable.isEmpty()) {
        // A token is set but cannot be read: letting requests in without it would open the door it guards.
        const QString message = QStringLiteral("Switchboard cannot read its local token (%1), so it refuses every request until it can. "
                                               "Make the keyring reachable, or set the token again in Settings.")
                                    .arg(m_engine.config()->proxy.localTokenUnreadable);
        if (anthropic)
            sendAnthropicError(response, AnthropicError{503, QStringLiteral("api_error"), message});
        else
            sendError(response, ApiError{503, message, QStringLiteral("service_unavailable"), {}, QStringLiteral("local_token_unreadable")});
        return;
    }
    if (!authorized(request)) {
        if (anthropic)
            sendAnthropicError(response, AnthropicError{401, QStringLiteral("authentication_error"),
                                                        QStringLiteral("Missing or wrong local token. Send it as 'x-api-key: <token>' (ANTHROPIC_API_KEY) with the token set in Switchboard's Settings.")});
        else
            sendError(response, ApiError{401, QStringLiteral("Missing or wrong local token. Send 'Authorization: Bearer <token>' with the token set in Switchboard's Settings."),
                                         QStringLiteral("invalid_request_error"), {}, QStringLiteral("invalid_api_key")});
        return;
    }
    if (responses) { // each of its paths has its own methods
        m_responses->handle(request, std::move(response), nextRequestId());
        return;
    }
    const QByteArray wanted = models ? QByteArrayLiteral("GET") : QByteArrayLiteral("POST");
    if (request.method != wanted && !(models && request.method == "HEAD")) {
        const QString message = QStringLiteral("%1 is not allowed on %2; use %3.")
                                    .arg(QString::fromLatin1(request.method.left(20)), QString::fromUtf8(path), QString::fromLatin1(wanted));
        HttpHeaders headers;
        headers.set("Content-Type", "application/json");
        headers.set("Allow", wanted);
        response->send(405, headers,
                       anthropic ? AnthropicError{405, QStringLiteral("invalid_request_error"), message}.toJson()
                                 : ApiError{405, message, QStringLiteral("invalid_request_error"), {}, QStringLiteral("method_not_allowed")}.toJson());
        return;
    }
    if (models) {
        handleModels(request, response);
        return;
    }
    if (messages) {
        handleMessages(request, std::move(response));
        return;
    }
    if (countTokens) {
        handleCountTokens(request, response);
        return;
    }
    handleCompletion(request, std::move(response), embeddings);
}

void ProxyHandler::handleModels(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response)
{
    const auto config = m_engine.config();
    QStringList names;
    for (const RouteConfig &route : config->routes)
        names << route.logicalModel;
    if (config->autoModel.enabled())
        names << config->autoModel.modelName;
    QJsonObject list;
    if (request.headers.contains("anthropic-version")) {
        // An Anthropic client lists models in its own shape.
        QJsonArray data;
        for (const QString &name : names)
            data.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("model")},
                                    {QStringLiteral("id"), name},
                                    {QStringLiteral("display_name"), name},
                                    {QStringLiteral("created_at"), QStringLiteral("1970-01-01T00:00:00Z")}});
        list = QJsonObject{{QStringLiteral("data"), data},
                           {QStringLiteral("has_more"), false},
                           {QStringLiteral("first_id"), names.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(names.first())},
                           {QStringLiteral("last_id"), names.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(names.last())}};
    } else {
        QJsonArray data;
        for (const QString &name : names)
            data.append(QJsonObject{{QStringLiteral("id"), name},
                                    {QStringLiteral("object"), QStringLiteral("model")},
                                    {QStringLiteral("created"), 0},
                                    {QStringLiteral("owned_by"), QStringLiteral("switchboard")}});
        list = QJsonObject{{QStringLiteral("object"), QStringLiteral("list")}, {QStringLiteral("data"), data}};
    }
    HttpHeaders headers;
    headers.set("Content-Type", "application/json");
    response->send(200, headers, QJsonDocument(list).toJson(QJsonDocument::Compact));
}

void ProxyHandler::handleCompletion(const HttpRequest &request, std::shared_ptr<ResponseWriter> response, bool embeddings)
{
    ApiError error;
    ProxyCall::Input input;
    input.requestId = nextRequestId();
    if (embeddings) {
        auto parsed = EmbeddingsRequest::parse(request.body, &error);
        if (!parsed) {
            sendError(response, error);
            return;
        }
        input.kind = ProxyCall::Kind::Embeddings;
        input.body = ClientBody(std::move(parsed->body), request.body);
        input.model = parsed->model;
        input.estimatedTokens = parsed->estimatedPromptTokens;
    } else {
        auto parsed = ChatRequest::parse(request.body, &error);
        if (!parsed) {
            sendError(response, error);
            return;
        }
        input.kind = ProxyCall::Kind::Chat;
        input.body = std::move(parsed->body);
        input.model = parsed->model;
        input.stream = parsed->stream;
        input.estimatedTokens = parsed->estimatedPromptTokens;
        if (!chooseAutoTier(request, &input, response))
            return;
    }
    if (input.kind == ProxyCall::Kind::Chat) {
        throughCache(request, std::move(input), std::move(response));
        return;
    }
    startCall(std::move(input), std::move(response));
}

void ProxyHandler::throughCache(const HttpRequest &request, ProxyCall::Input input, std::shared_ptr<ResponseWriter> response)
{
    // ---- cache hook: exact, then semantic cache. A hit is answered there, in the API the client
    // called, and recorded; a miss goes on to the router, perhaps after an embeddings call, with
    // the cache's tee.
    CacheFront::Request lookup{input.requestId, input.model, input.body, input.stream, request.headers, input.api, input.clientApi};
    const EngineConfigPtr config = m_engine.config();
    m_engine.cache().handle(
        std::move(lookup), config, response,
        [this, config](const RouteCacheConfig &cache, const QString &text, EmbeddingsClient::Done done) {
            RoutedEmbeddings::embed(m_engine, *m_upstream, m_replies, config, cache, text, std::move(done));
        },
        [this](RequestRecord &&row) {
            m_engine.counters().requests.fetch_add(1, std::memory_order_relaxed);
            m_engine.counters().succeeded.fetch_add(1, std::memory_order_relaxed);
            m_engine.clientWindow().record(m_engine.clock().now(), OutcomeKind::Success, std::chrono::milliseconds(row.latencyMs),
                                           std::chrono::milliseconds(row.ttftMs));
            m_engine.emitRequest(std::move(row));
        },
        [this, input = std::move(input), response](CacheFront::Miss miss) mutable {
            input.cacheTee = std::move(miss.tee);
            input.cacheHeader = std::move(miss.header);
            startCall(std::move(input), std::move(response));
        });
    // ---- end of the cache hook
}

void ProxyHandler::handleMessages(const HttpRequest &request, std::shared_ptr<ResponseWriter> response)
{
    AnthropicError error;
    auto prepared = AnthropicRequest::prepare(request.body, &error);
    if (!prepared) {
        sendAnthropicError(response, error);
        return;
    }
    const AnthropicRequest *parsed = &prepared->request;
    ProxyCall::Input input;
    input.requestId = nextRequestId();
    input.kind = ProxyCall::Kind::Chat;
    input.body = std::move(prepared->body);
    input.model = parsed->model;
    input.stream = parsed->stream;
    input.estimatedTokens = parsed->estimatedPromptTokens;
    const QString messageId = QStringLiteral("msg_") + input.requestId;
    auto api = std::make_shared<AnthropicMessagesApi>(parsed->model, messageId, parsed->stopSequences);
    input.api = api;
    input.clientApi = QStringLiteral("anthropic_messages");
    input.nativeBody = request.body; // for an Anthropic channel, which gets it nearly as sent
    for (const QByteArrayView name : {QByteArrayView("anthropic-version"), QByteArrayView("anthropic-beta")})
        if (const QByteArray value = request.headers.value(name); !value.isEmpty())
            input.nativeHeaders.set(name.toByteArray(), value);
    if (!chooseAutoTier(request, &input, response))
        return;
    throughCache(request, std::move(input), std::move(response));
}

void ProxyHandler::handleCountTokens(const HttpRequest &request, const std::shared_ptr<ResponseWriter> &response)
{
    AnthropicError error;
    const std::optional<int> tokens = AnthropicTokenEstimate::count(request.body, &error);
    if (!tokens) {
        sendAnthropicError(response, error);
        return;
    }
    countTokens(request, response, m_engine.config(), *m_upstream, *tokens); // the body is checked: counted upstream or here
}

bool ProxyHandler::chooseAutoTier(const HttpRequest &request, ProxyCall::Input *input, const std::shared_ptr<ResponseWriter> &response)
{
    // Task-based model choice (`auto` → ModelSelector): the chosen tier's route serves the request.
    const auto config = m_engine.config();
    const ModelSelector selector(config->autoModel);
    if (!selector.handles(input->model))
        return true;
    QString why;
    const auto tier = selector.choose(input->body.object(), QString::fromUtf8(request.headers.value("x-switchboard-tier")), &why);
    if (!tier) {
        // In the API the client called, whichever it is.
        const ApiError error{400, why, QStringLiteral("invalid_request_error"), QStringLiteral("model"), QStringLiteral("unknown_tier")};
        const ClientApi &api = input->api ? *input->api : static_cast<const ClientApi &>(OpenAiChatApi::instance());
        HttpHeaders headers;
        headers.set("Content-Type", "application/json");
        response->send(api.errorStatus(error), headers, api.errorBody(error));
        return false;
    }
    QJsonObject &body = input->body.edit(); // no longer what the client sent
    ModelSelector::removeHint(&body);
    body.insert(QStringLiteral("model"), tier->model);
    input->model = tier->model;
    input->autoTier = tier->tier;
    spdlog::debug("{}: {} → tier {} ({}) → {}", input->requestId.toStdString(), config->autoModel.modelName.toStdString(),
                  tier->tier.toStdString(), tier->reason.toStdString(), tier->model.toStdString());
    return true;
}

void ProxyHandler::startCall(ProxyCall::Input input, std::shared_ptr<ResponseWriter> response)
{
    auto call = std::make_unique<ProxyCall>(m_engine, *m_upstream, std::move(input), std::move(response), [this](ProxyCall *done) {
        // Deleting the call from inside its own callback would pull the floor from under it.
        m_finished.push_back(done);
        if (!m_reaper->isActive())
            m_reaper->start(Clock::Duration::zero());
    });
    ProxyCall *raw = call.get();
    m_calls.emplace(raw, std::move(call));
    raw->start();
}

bool ProxyHandler::authorized(const HttpRequest &request) const
{
    const QString token = m_engine.config()->proxy.localToken;
    if (token.isEmpty())
        return true;
    // Anthropic's SDKs and Claude Code send the key as x-api-key, OpenAI's as a bearer token.
    if (const QByteArray apiKey = request.headers.value("x-api-key").trimmed(); !apiKey.isEmpty())
        return sameSecret(apiKey, token.toUtf8());
    QByteArray given = request.headers.value("authorization").trimmed();
    if (!given.startsWith("Bearer ") && !given.startsWith("bearer "))
        return false;
    given = given.mid(7).trimmed();
    return sameSecret(given, token.toUtf8());
}

void ProxyHandler::sendError(const std::shared_ptr<ResponseWriter> &response, const ApiError &error)
{
    HttpHeaders headers;
    headers.set("Content-Type", "application/json");
    response->send(error.status, headers, error.toJson());
}

void ProxyHandler::sendAnthropicError(const std::shared_ptr<ResponseWriter> &response, const AnthropicError &error)
{
    HttpHeaders headers;
    headers.set("Content-Type", "application/json");
    response->send(error.status, headers, error.toJson());
}

QString ProxyHandler::nextRequestId()
{
    // Unique within the process and cheap: worker, a per-worker counter, and a random tag that
    // keeps ids from two runs apart in the history.
    static const std::uint64_t runTag = m_engine.random().nextU64() & 0xffffff;
    // Written by hand: three QString::arg calls cost more than the rest of the request's bookkeeping.
    // Every piece is bounded (3 + 6 + 1 + 10 + 1 + 20 characters at most), so the buffer never fills.
    char text[64] = "sb-";
    char *at = text + 3;
    char *const end = text + sizeof text;
    at = std::to_chars(at, end - 1, runTag, 16).ptr;
    *at++ = '-';
    at = std::to_chars(at, end - 1, m_workerIndex).ptr;
    *at++ = '-';
    at = std::to_chars(at, end - 1, ++m_requestCounter).ptr;
    return QString::fromLatin1(text, at - text);
}

} // namespace sb
