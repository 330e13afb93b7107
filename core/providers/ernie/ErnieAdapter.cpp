#include "providers/ernie/ErnieAdapter.h"

#include "providers/ernie/ErnieErrorMap.h"
#include "providers/ernie/ErnieStreamTranslator.h"

#include "providers/common/ApiBaseUrl.h"
#include "providers/common/EndpointNotFound.h"
#include "providers/common/ProviderText.h"
#include "providers/common/RetryAfter.h"
#include "providers/common/OpenAiChunk.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUrlQuery>

namespace sb {

namespace {

QString apiRoot(const AdapterContext &context)
{
    const QString base = context.provider && !context.provider->baseUrl.isEmpty() ? context.provider->baseUrl
                                                                                  : QStringLiteral("https://aip.baidubce.com");
    return readApiBaseUrl(base, {u"/rpc/2.0/ai_custom/v1/wenxinworkshop"}).api;
}

QUrl endpoint(const AdapterContext &context, const QString &kind, const QString &model)
{
    QUrl url(apiRoot(context) + QLatin1Char('/') + kind + QLatin1Char('/') + model);
    QUrlQuery query;
    // A credential pair is exchanged before any call (AccessTokens); one that got here unexchanged
    // is never put in a URL: the call goes without a token and is refused as such.
    const QString token = ErnieAdapter::credentialPair(context.apiKey) ? QString() : context.apiKey;
    query.addQueryItem(QStringLiteral("access_token"), QString::fromLatin1(QUrl::toPercentEncoding(token)));
    url.setQuery(query);
    return url;
}

QString upstreamModel(const AdapterContext &context)
{
    return context.channel ? context.channel->upstreamModel : QString();
}

QString textOf(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QStringList texts;
    for (const QJsonValue &v : content.toArray())
        if (v.toObject().value(QLatin1String("type")).toString() == QLatin1String("text"))
            texts << v.toObject().value(QLatin1String("text")).toString();
    return texts.join(QLatin1Char('\n'));
}

HttpHeaders jsonHeaders()
{
    HttpHeaders h;
    h.add("Content-Type", "application/json");
    return h;
}

} // namespace

QString ErnieAdapter::dialect() const { return QStringLiteral("ernie"); }
QString ErnieAdapter::displayName() const { return QStringLiteral("Baidu Qianfan ERNIE (v1)"); }
QString ErnieAdapter::defaultBaseUrl() const { return QStringLiteral("https://aip.baidubce.com"); }

QJsonObject ErnieAdapter::translateBody(const QJsonObject &openAiBody)
{
    QStringList system;
    QJsonArray messages;
    QHash<QString, QString> toolNames; // tool_call_id → function name
    for (const QJsonValue &m : openAiBody.value(QLatin1String("messages")).toArray()) {
        const QJsonObject in = m.toObject();
        const QString role = in.value(QLatin1String("role")).toString();
        const QString text = textOf(in.value(QLatin1String("content")));
        if (role == QLatin1String("system") || role == QLatin1String("developer")) {
            system << text; // ERNIE takes the system prompt as a top-level field
            continue;
        }
        QJsonObject out;
        if (role == QLatin1String("assistant")) {
            out = QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")}, {QStringLiteral("content"), text}};
            const QJsonArray calls = in.value(QLatin1String("tool_calls")).toArray();
            if (!calls.isEmpty()) { // ERNIE's v1 turn holds one function call
                const QJsonObject call = calls.first().toObject();
                const QJsonObject function = call.value(QLatin1String("function")).toObject();
                toolNames.insert(call.value(QLatin1String("id")).toString(), function.value(QLatin1String("name")).toString());
                out.insert(QStringLiteral("function_call"),
                           QJsonObject{{QStringLiteral("name"), function.value(QLatin1String("name"))},
                                       {QStringLiteral("arguments"), function.value(QLatin1String("arguments"))}});
            }
        } else if (role == QLatin1String("tool")) {
            QString name = toolNames.value(in.value(QLatin1String("tool_call_id")).toString());
            if (name.isEmpty())
                name = in.value(QLatin1String("name")).toString();
            out = QJsonObject{{QStringLiteral("role"), QStringLiteral("function")},
                              {QStringLiteral("name"), name},
                              {QStringLiteral("content"), text}};
        } else {
            out = QJsonObject{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), text}};
        }
        // ERNIE insists on alternating turns that start with the user: a conversation opening with
        // the assistant is trimmed, and consecutive user (or assistant) texts are joined.
        const QString outRole = out.value(QLatin1String("role")).toString();
        if (messages.isEmpty() && outRole != QLatin1String("user"))
            continue;
        if (!messages.isEmpty() && outRole != QLatin1String("function") && !out.contains(QLatin1String("function_call"))) {
            QJsonObject last = messages.last().toObject();
            if (last.value(QLatin1String("role")).toString() == outRole && !last.contains(QLatin1String("function_call"))) {
                last.insert(QStringLiteral("content"),
                            last.value(QLatin1String("content")).toString() + QStringLiteral("\n\n") + text);
                messages[messages.size() - 1] = last;
                continue;
            }
        }
        messages.append(out);
    }

    QJsonObject body{{QStringLiteral("messages"), messages}};
    if (!system.isEmpty())
        body.insert(QStringLiteral("system"), system.join(QStringLiteral("\n\n")));
    if (openAiBody.value(QLatin1String("stream")).toBool())
        body.insert(QStringLiteral("stream"), true);
    // ERNIE accepts temperature in (0, 1] and top_p in [0, 1]; OpenAI allows up to 2.
    if (openAiBody.value(QLatin1String("temperature")).isDouble())
        body.insert(QStringLiteral("temperature"), qBound(0.01, openAiBody.value(QLatin1String("temperature")).toDouble(), 1.0));
    if (openAiBody.value(QLatin1String("top_p")).isDouble())
        body.insert(QStringLiteral("top_p"), qBound(0.0, openAiBody.value(QLatin1String("top_p")).toDouble(), 1.0));
    for (const char *key : {"max_tokens", "max_completion_tokens"})
        if (openAiBody.value(QLatin1String(key)).isDouble())
            body.insert(QStringLiteral("max_output_tokens"), openAiBody.value(QLatin1String(key)));
    const QJsonValue stop = openAiBody.value(QLatin1String("stop"));
    if (stop.isString())
        body.insert(QStringLiteral("stop"), QJsonArray{stop});
    else if (stop.isArray() && !stop.toArray().isEmpty())
        body.insert(QStringLiteral("stop"), stop);
    if (openAiBody.value(QLatin1String("user")).isString())
        body.insert(QStringLiteral("user_id"), openAiBody.value(QLatin1String("user")));
    if (openAiBody.value(QLatin1String("response_format")).toObject().value(QLatin1String("type")).toString()
        == QLatin1String("json_object"))
        body.insert(QStringLiteral("response_format"), QStringLiteral("json_object"));

    QJsonArray functions;
    for (const QJsonValue &t : openAiBody.value(QLatin1String("tools")).toArray()) {
        const QJsonObject function = t.toObject().value(QLatin1String("function")).toObject();
        if (function.isEmpty())
            continue;
        QJsonObject f{{QStringLiteral("name"), function.value(QLatin1String("name"))},
                      {QStringLiteral("description"), function.value(QLatin1String("description")).toString()}};
        if (function.contains(QLatin1String("parameters")))
            f.insert(QStringLiteral("parameters"), function.value(QLatin1String("parameters")));
        functions.append(f);
    }
    if (!functions.isEmpty())
        body.insert(QStringLiteral("functions"), functions);
    return body;
}

UpstreamRequest ErnieAdapter::chatRequest(const QJsonObject &openAiBody, const AdapterContext &context) const
{
    UpstreamRequest request;
    request.stream = openAiBody.value(QLatin1String("stream")).toBool();
    request.url = endpoint(context, QStringLiteral("chat"), upstreamModel(context));
    request.headers = jsonHeaders();
    request.body = QJsonDocument(translateBody(openAiBody)).toJson(QJsonDocument::Compact);
    return request;
}

std::optional<UpstreamRequest> ErnieAdapter::embeddingsRequest(const QJsonObject &openAiBody,
                                                               const AdapterContext &context) const
{
    const QJsonValue input = openAiBody.value(QLatin1String("input"));
    QJsonArray texts;
    if (input.isString())
        texts.append(input);
    for (const QJsonValue &v : input.toArray())
        texts.append(v.toString());
    UpstreamRequest request;
    request.url = endpoint(context, QStringLiteral("embeddings"), upstreamModel(context));
    request.headers = jsonHeaders();
    request.body = QJsonDocument(QJsonObject{{QStringLiteral("input"), texts}}).toJson(QJsonDocument::Compact);
    return request;
}

UpstreamRequest ErnieAdapter::probeRequest(const AdapterContext &context) const
{
    UpstreamRequest request;
    request.url = endpoint(context, QStringLiteral("chat"), upstreamModel(context));
    request.headers = jsonHeaders();
    const QJsonObject body{
        {QStringLiteral("messages"), QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                                            {QStringLiteral("content"), QStringLiteral("ping")}}}},
        {QStringLiteral("max_output_tokens"), 2}};
    request.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return request;
}

bool ErnieAdapter::probeIsBilled(const AdapterContext &context) const
{
    return !credentialPair(context.apiKey);
}

std::optional<ErnieAdapter::Credentials> ErnieAdapter::credentialPair(const QString &key)
{
    const qsizetype colon = key.indexOf(QLatin1Char(':'));
    if (colon <= 0 || colon == key.size() - 1)
        return std::nullopt;
    return Credentials{key.left(colon).trimmed(), key.mid(colon + 1).trimmed()};
}

std::optional<UpstreamRequest> ErnieAdapter::tokenRequest(const AdapterContext &context) const
{
    const std::optional<Credentials> pair = credentialPair(context.apiKey);
    if (!pair)
        return std::nullopt;
    // On the base URL's host, whatever path it names: Baidu's OAuth endpoint sits at the root.
    QUrl url(apiRoot(context));
    url.setPath(QStringLiteral("/oauth/2.0/token"));
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("grant_type"), QStringLiteral("client_credentials"));
    query.addQueryItem(QStringLiteral("client_id"), QString::fromLatin1(QUrl::toPercentEncoding(pair->apiKey)));
    query.addQueryItem(QStringLiteral("client_secret"), QString::fromLatin1(QUrl::toPercentEncoding(pair->secretKey)));
    url.setQuery(query);
    UpstreamRequest request;
    request.url = url;
    request.headers = jsonHeaders();
    request.headers.add("Accept", "application/json");
    return request;
}

AccessTokenGrant ErnieAdapter::readTokenAnswer(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const
{
    AccessTokenGrant grant;
    const QJsonObject root = QJsonDocument::fromJson(body).object();
    const QString token = root.value(QLatin1String("access_token")).toString();
    if (httpStatus >= 200 && httpStatus < 300 && !token.isEmpty()) {
        grant.token = token;
        const qint64 expiresIn = root.value(QLatin1String("expires_in")).toInteger(0);
        grant.lifetime = std::chrono::seconds(expiresIn > 0 ? expiresIn : 2592000); // Baidu's tokens live 30 days
        return grant;
    }
    if (auto notFound = endpointNotFoundOutcome(httpStatus, headers, body)) {
        grant.failure = *notFound;
        return grant;
    }
    const QString error = root.value(QLatin1String("error")).toString();
    const QString description = root.value(QLatin1String("error_description")).toString();
    Outcome o;
    o.httpStatus = httpStatus;
    o.providerCode = error;
    if (error == QLatin1String("invalid_client") || error == QLatin1String("unauthorized_client") || httpStatus == 401
        || httpStatus == 403)
        o.kind = OutcomeKind::AuthError; // the credentials: the key is refused as a 401 would refuse it
    else if (httpStatus == 429)
        o.kind = OutcomeKind::RetryableRateLimit;
    else
        o.kind = OutcomeKind::ProviderDown; // nothing clear: the provider's
    o.retryAfter = retryAfterFromHeaders(headers, &o.retryAfterFrom);
    o.message = error.isEmpty()
                    ? QStringLiteral("Baidu's token endpoint answered HTTP %1 without an access token").arg(httpStatus)
                    : QStringLiteral("Baidu refused the API key and secret key: %1 (%2)").arg(error, cleanProviderMessage(description));
    grant.failure = o;
    return grant;
}

bool ErnieAdapter::refusesAccessToken(const Outcome &outcome) const
{
    return outcome.kind == OutcomeKind::AuthError
        && (outcome.providerCode == QLatin1String("110") || outcome.providerCode == QLatin1String("111"));
}

Outcome ErnieAdapter::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const
{
    return ErnieErrorMap::classify(httpStatus, headers, body);
}

std::optional<QString> ErnieAdapter::answerProblem(const HttpHeaders &, const QByteArray &body, bool embeddings) const
{
    return ErnieErrorMap::answerProblem(body, embeddings);
}

QJsonObject ErnieAdapter::chatResponse(const QByteArray &body, TokenUsage *usage) const
{
    const QJsonObject root = QJsonDocument::fromJson(body).object();
    QJsonObject message{{QStringLiteral("role"), QStringLiteral("assistant")}};
    const QString text = root.value(QLatin1String("result")).toString();
    QString finish = ErnieStreamTranslator::finishReason(root.value(QLatin1String("finish_reason")).toString());
    if (root.value(QLatin1String("function_call")).isObject()) {
        QJsonObject call = ErnieStreamTranslator::toolCall(root.value(QLatin1String("function_call")).toObject(),
                                                           QStringLiteral("call_0"), 0);
        call.remove(QStringLiteral("index"));
        message.insert(QStringLiteral("content"), text.isEmpty() ? QJsonValue() : QJsonValue(text));
        message.insert(QStringLiteral("tool_calls"), QJsonArray{call});
        finish = QStringLiteral("tool_calls");
    } else {
        message.insert(QStringLiteral("content"), text);
    }
    if (root.value(QLatin1String("need_clear_history")).toBool())
        finish = QStringLiteral("content_filter");

    const TokenUsage u = ErnieStreamTranslator::usageFrom(root.value(QLatin1String("usage")).toObject());
    if (usage)
        *usage = u;
    const QString id = root.value(QLatin1String("id")).toString();
    return openAiCompletion(id.isEmpty() ? QStringLiteral("chatcmpl-ernie") : id,
                            // toInteger: a number past qint64 (the fuzzer sent 1.7e82) is 0, not undefined behaviour
                            root.value(QLatin1String("created")).toInteger(0), QString(), message, finish, u);
}

QJsonObject ErnieAdapter::embeddingsResponse(const QByteArray &body, TokenUsage *usage) const
{
    // Qianfan's embeddings answer is already OpenAI-shaped: data[{object, embedding, index}], usage.
    const QJsonObject root = QJsonDocument::fromJson(body).object();
    QJsonArray data;
    const QJsonArray in = root.value(QLatin1String("data")).toArray();
    for (qsizetype i = 0; i < in.size(); ++i) {
        const QJsonObject e = in.at(i).toObject();
        data.append(QJsonObject{{QStringLiteral("object"), QStringLiteral("embedding")},
                                {QStringLiteral("index"), e.value(QLatin1String("index")).toInt(int(i))},
                                {QStringLiteral("embedding"), e.value(QLatin1String("embedding"))}});
    }
    const TokenUsage u = ErnieStreamTranslator::usageFrom(root.value(QLatin1String("usage")).toObject());
    if (usage)
        *usage = u;
    return QJsonObject{{QStringLiteral("object"), QStringLiteral("list")},
                       {QStringLiteral("data"), data},
                       {QStringLiteral("model"), QString()},
                       {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), qMax(0, u.promptTokens)},
                                                             {QStringLiteral("total_tokens"), qMax(0, u.totalTokens)}}}};
}

std::unique_ptr<StreamTranslator> ErnieAdapter::streamTranslator(const QJsonObject &openAiBody) const
{
    const bool includeUsage = includeUsageRequested(openAiBody);
    return std::make_unique<ErnieStreamTranslator>(openAiBody.value(QLatin1String("model")).toString(), includeUsage);
}

} // namespace sb
