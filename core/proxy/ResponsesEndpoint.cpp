#include "proxy/ResponsesEndpoint.h"

#include "common/ReplyChannel.h"
#include "frontends/openai_responses/ResponsesApi.h"
#include "frontends/openai_responses/ResponsesNativeBody.h"
#include "frontends/openai_responses/ResponsesQuickCheck.h"
#include "frontends/openai_responses/ResponsesRequest.h"
#include "net/HttpRequest.h"
#include "net/ResponseWriter.h"
#include "proxy/EngineContext.h"
#include "store/ResponseStore.h"

#include <QJsonDocument>
#include <QUrlQuery>

#include <algorithm>
#include <cstring>

namespace sb {

namespace {

constexpr QByteArrayView kBase = "/v1/responses";
constexpr QByteArrayView kInputItems = "/input_items";

// "resp_", the time in milliseconds as 12 hex digits, 16 random ones: unique, and in the order the
// responses were made, so that each new row of the store's table goes at the end of its index
// instead of into a random page of it.
QString responseId(qint64 nowMs, std::uint64_t random)
{
    char id[5 + 12 + 16];
    std::memcpy(id, "resp_", 5);
    const auto putHex = [](char *at, std::uint64_t value, int digits) {
        for (int i = digits - 1; i >= 0; --i, value >>= 4)
            at[i] = "0123456789abcdef"[value & 0xf];
    };
    putHex(id + 5, static_cast<std::uint64_t>(nowMs), 12);
    putHex(id + 17, random, 16);
    return QString::fromLatin1(id, sizeof id);
}

// The chat body the quick check wrote as bytes, scanned for the proxy as a client's are; the
// object the full parse translates into otherwise.
ClientBody chatBodyOf(const ResponsesRequest &request, const QJsonArray &history)
{
    if (!request.chatBodyJson.isEmpty() && history.isEmpty()) {
        JsonObjectScan scan;
        if (scan.scan(request.chatBodyJson))
            return ClientBody(request.chatBodyJson, scan);
    }
    return ClientBody(request.chatBody(history));
}

// The id prefix OpenAI gives each kind of input item.
QString itemPrefix(const QString &type)
{
    if (type == QLatin1String("function_call"))
        return QStringLiteral("fc");
    if (type == QLatin1String("function_call_output"))
        return QStringLiteral("fco");
    if (type == QLatin1String("custom_tool_call"))
        return QStringLiteral("ctc");
    if (type == QLatin1String("custom_tool_call_output"))
        return QStringLiteral("ctco");
    if (type == QLatin1String("reasoning"))
        return QStringLiteral("rs");
    return QStringLiteral("msg");
}

// The request's own items as input_items lists them: each with an id, derived from the
// response's so that it is unique and the same on every read (the store keeps the items as
// asked for, and items that came with an id keep theirs).
QJsonArray withItemIds(const QJsonArray &items, const QString &responseId)
{
    const QString suffix = responseId.mid(responseId.indexOf(QLatin1Char('_')) + 1);
    QJsonArray out;
    int index = 0;
    for (const QJsonValue &value : items) {
        QJsonObject item = value.toObject();
        if (!item.value(QLatin1String("id")).isString())
            item.insert(QStringLiteral("id"), QStringLiteral("%1_%2in%3").arg(itemPrefix(item.value(QLatin1String("type")).toString()), suffix).arg(index));
        out.append(item);
        ++index;
    }
    return out;
}

// What the earlier turns of a conversation say, in order: each turn's input, then its output.
QJsonArray conversationOf(const std::vector<StoredResponse> &chain)
{
    QJsonArray items;
    for (const StoredResponse &turn : chain) {
        for (const QJsonValue &item : turn.inputItems())
            items.append(item);
        for (const QJsonValue &item : turn.object().value(QLatin1String("output")).toArray())
            items.append(item);
    }
    return items;
}

} // namespace

ResponsesEndpoint::ResponsesEndpoint(EngineContext &engine, std::shared_ptr<ReplyChannel> replies, StartCall startCall)
    : m_engine(engine), m_replies(std::move(replies)), m_startCall(std::move(startCall))
{
}

bool ResponsesEndpoint::handles(const QByteArray &path)
{
    return path.startsWith(kBase) && (path.size() == kBase.size() || path[kBase.size()] == '/');
}

void ResponsesEndpoint::handle(const HttpRequest &request, std::shared_ptr<ResponseWriter> response, QString requestId)
{
    const QByteArray rest = request.path.mid(kBase.size()); // "", "/{id}" or "/{id}/input_items"
    const auto refuseMethod = [&](const QByteArray &allowed) {
        HttpHeaders headers;
        headers.set("Content-Type", "application/json");
        headers.set("Allow", allowed);
        response->send(405, headers,
                       ApiError{405,
                                QStringLiteral("%1 is not allowed on %2; use %3.")
                                    .arg(QString::fromLatin1(request.method.left(20)), QString::fromUtf8(request.path.left(200)),
                                         QString::fromLatin1(allowed)),
                                QStringLiteral("invalid_request_error"), {}, QStringLiteral("method_not_allowed")}
                           .toJson());
    };
    if (rest.isEmpty()) {
        if (request.method != "POST")
            return refuseMethod("POST");
        create(request, std::move(response), std::move(requestId));
        return;
    }
    QByteArray id = rest.mid(1);
    const bool inputItems = id.endsWith(QByteArray(kInputItems.data(), kInputItems.size()));
    if (inputItems)
        id.chop(kInputItems.size());
    if (id.isEmpty() || id.contains('/')) {
        sendError(response, ApiError{404, QStringLiteral("Unknown path %1. The Responses API is served at /v1/responses, /v1/responses/{id} and /v1/responses/{id}/input_items.")
                                              .arg(QString::fromUtf8(request.path.left(200))),
                                     QStringLiteral("invalid_request_error"), {}, QStringLiteral("unknown_url")});
        return;
    }
    const QString responseId = QString::fromUtf8(QByteArray::fromPercentEncoding(id));
    if (inputItems) {
        if (request.method != "GET")
            return refuseMethod("GET");
        listInputItems(responseId, request.query, std::move(response));
    } else if (request.method == "GET") {
        retrieve(responseId, std::move(response));
    } else if (request.method == "DELETE") {
        remove(responseId, std::move(response));
    } else {
        refuseMethod("GET, DELETE");
    }
}

void ResponsesEndpoint::create(const HttpRequest &request, std::shared_ptr<ResponseWriter> response, QString requestId)
{
    ApiError error;
    std::optional<ResponsesRequest> parsed = quickCheckResponsesRequest(request.body);
    if (!parsed)
        parsed = ResponsesRequest::parse(request.body, &error);
    if (!parsed) {
        sendError(response, error);
        return;
    }
    auto shared = std::make_shared<ResponsesRequest>(std::move(*parsed));
    if (shared->previousResponseId.isEmpty()) {
        start(request, std::move(shared), {}, std::move(response), std::move(requestId));
        return;
    }
    // The earlier turns come from the store first (memory, or SQLite on its own thread); the
    // request is copied, as the connection's buffer is not ours once handle() returns.
    const QString previous = shared->previousResponseId;
    m_engine.responses().findChain(previous, m_replies,
                                   [this, request, shared, response = std::move(response), requestId = std::move(requestId),
                                    previous](std::optional<std::vector<StoredResponse>> chain) mutable {
                                       if (!response->isOpen())
                                           return; // the client left while the conversation was read
                                       if (!chain) {
                                           sendError(response, ApiError{404, QStringLiteral("Previous response with id '%1' not found. It was "
                                                                                            "not stored (store: false), was deleted, or is older than the history's retention.")
                                                                                 .arg(previous),
                                                                        QStringLiteral("invalid_request_error"), QStringLiteral("previous_response_id"),
                                                                        QStringLiteral("previous_response_not_found")});
                                           return;
                                       }
                                       start(request, std::move(shared), conversationOf(*chain), std::move(response), std::move(requestId));
                                   });
}

void ResponsesEndpoint::start(const HttpRequest &request, std::shared_ptr<ResponsesRequest> parsed, const QJsonArray &history,
                              std::shared_ptr<ResponseWriter> response, QString requestId)
{
    const qint64 nowMs = m_engine.clock().wallMillis();
    ResponseFrame frame;
    frame.id = responseId(nowMs, m_engine.random().nextU64());
    frame.model = parsed->model;
    frame.createdAt = nowMs / 1000;
    frame.echo = parsed->echo;
    frame.customTools = parsed->customTools;

    ResponsesApi::Finished onFinished;
    if (parsed->store) {
        ResponseStore &store = m_engine.responses();
        onFinished = [&store, id = frame.id, nowMs, previous = parsed->previousResponseId, input = parsed->input,
                      inputJson = parsed->inputJson](const QJsonObject &object, const QByteArray &json) {
            StoredResponse stored;
            stored.id = id;
            stored.createdMs = nowMs;
            stored.previousId = previous;
            stored.input = input;
            stored.inputJson = inputJson;
            stored.response = object;
            stored.responseJson = json;
            store.save(std::move(stored));
        };
    }

    ProxyCall::Input input;
    input.requestId = std::move(requestId);
    input.kind = ProxyCall::Kind::Chat;
    input.body = chatBodyOf(*parsed, history);
    input.model = parsed->model;
    input.stream = parsed->stream;
    input.estimatedTokens = parsed->estimatedPromptTokens;
    input.api = std::make_shared<ResponsesApi>(std::move(frame), std::move(onFinished));
    input.clientApi = QStringLiteral("openai_responses");
    // For a channel whose upstream serves the Responses API itself, which gets the request nearly as
    // sent; only when one is configured, as expanding a conversation costs its serialisation.
    const auto config = m_engine.config();
    if (std::any_of(config->providers.begin(), config->providers.end(), [](const ProviderConfig &p) { return p.responsesApi; }))
        input.nativeBody = ResponsesNativeBody::withHistory(parsed->original, history, parsed->inputItems());
    m_startCall(request, std::move(input), std::move(response));
}

void ResponsesEndpoint::retrieve(const QString &id, std::shared_ptr<ResponseWriter> response)
{
    m_engine.responses().find(id, m_replies, [id, response = std::move(response)](std::optional<StoredResponse> found) {
        if (!found)
            return sendError(response, notFound(id));
        sendJson(response, 200, found->json());
    });
}

void ResponsesEndpoint::remove(const QString &id, std::shared_ptr<ResponseWriter> response)
{
    m_engine.responses().remove(id, m_replies, [id, response = std::move(response)](bool existed) {
        if (!existed)
            return sendError(response, notFound(id));
        const QJsonObject deleted{{QStringLiteral("id"), id}, {QStringLiteral("object"), QStringLiteral("response.deleted")}, {QStringLiteral("deleted"), true}};
        sendJson(response, 200, QJsonDocument(deleted).toJson(QJsonDocument::Compact));
    });
}

void ResponsesEndpoint::listInputItems(const QString &id, const QByteArray &query, std::shared_ptr<ResponseWriter> response)
{
    // OpenAI's list parameters: limit 1–100 (20), order asc|desc (desc), after an item id.
    const QUrlQuery params(QString::fromUtf8(query));
    int limit = 20;
    if (params.hasQueryItem(QStringLiteral("limit"))) {
        bool ok = false;
        limit = params.queryItemValue(QStringLiteral("limit")).toInt(&ok);
        if (!ok || limit < 1 || limit > 100)
            return sendError(response, ApiError{400, QStringLiteral("limit must be an integer from 1 to 100."), QStringLiteral("invalid_request_error"),
                                                QStringLiteral("limit"), {}});
    }
    const QString order = params.queryItemValue(QStringLiteral("order"));
    if (!order.isEmpty() && order != QLatin1String("asc") && order != QLatin1String("desc"))
        return sendError(response, ApiError{400, QStringLiteral("order must be 'asc' or 'desc'."), QStringLiteral("invalid_request_error"),
                                            QStringLiteral("order"), {}});
    const QString after = params.queryItemValue(QStringLiteral("after"));
    m_engine.responses().find(id, m_replies, [id, limit, ascending = order == QLatin1String("asc"), after,
                                              response = std::move(response)](std::optional<StoredResponse> found) {
        if (!found)
            return sendError(response, notFound(id));
        QJsonArray items = withItemIds(found->inputItems(), id);
        if (!ascending) {
            QJsonArray reversed;
            for (qsizetype i = items.size() - 1; i >= 0; --i)
                reversed.append(items[i]);
            items = reversed;
        }
        qsizetype from = 0;
        if (!after.isEmpty()) {
            while (from < items.size() && items[from].toObject().value(QLatin1String("id")).toString() != after)
                ++from;
            from = from < items.size() ? from + 1 : items.size();
        }
        QJsonArray page;
        for (qsizetype i = from; i < items.size() && page.size() < limit; ++i)
            page.append(items[i]);
        const auto idOf = [](const QJsonValue &item) {
            return item.isUndefined() ? QJsonValue(QJsonValue::Null) : item.toObject().value(QLatin1String("id"));
        };
        const QJsonObject list{{QStringLiteral("object"), QStringLiteral("list")},
                               {QStringLiteral("data"), page},
                               {QStringLiteral("first_id"), page.isEmpty() ? QJsonValue(QJsonValue::Null) : idOf(page.first())},
                               {QStringLiteral("last_id"), page.isEmpty() ? QJsonValue(QJsonValue::Null) : idOf(page.last())},
                               {QStringLiteral("has_more"), from + page.size() < items.size()}};
        sendJson(response, 200, QJsonDocument(list).toJson(QJsonDocument::Compact));
    });
}

void ResponsesEndpoint::sendJson(const std::shared_ptr<ResponseWriter> &response, int status, const QByteArray &body)
{
    HttpHeaders headers;
    headers.set("Content-Type", "application/json");
    response->send(status, headers, body);
}

void ResponsesEndpoint::sendError(const std::shared_ptr<ResponseWriter> &response, const ApiError &error)
{
    sendJson(response, error.status, error.toJson());
}

ApiError ResponsesEndpoint::notFound(const QString &id)
{
    return ApiError{404, QStringLiteral("Response with id '%1' not found.").arg(id), QStringLiteral("invalid_request_error"), {}, {}};
}

} // namespace sb
