#include "providers/dashscope/DashScopeAdapter.h"

#include "providers/dashscope/DashScopeErrorMap.h"
#include "providers/dashscope/DashScopeStreamTranslator.h"

#include "providers/common/ApiBaseUrl.h"
#include "providers/common/OpenAiChunk.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sb {

namespace {

// The native API hangs from /api/v1; the probe asks the OpenAI-compatible mode beside it.
ApiBaseUrl baseOf(const AdapterContext &context)
{
    const QString base = context.provider && !context.provider->baseUrl.isEmpty() ? context.provider->baseUrl
                                                                                  : QStringLiteral("https://dashscope.aliyuncs.com");
    return readApiBaseUrl(base, {u"/api/v1"});
}

HttpHeaders authHeaders(const AdapterContext &context)
{
    HttpHeaders h;
    h.add("Content-Type", "application/json");
    h.add("Authorization", "Bearer " + context.apiKey.toUtf8());
    return h;
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

} // namespace

QString DashScopeAdapter::dialect() const { return QStringLiteral("dashscope"); }
QString DashScopeAdapter::displayName() const { return QStringLiteral("Alibaba DashScope (Qwen native)"); }
QString DashScopeAdapter::defaultBaseUrl() const { return QStringLiteral("https://dashscope.aliyuncs.com/api/v1"); }

QJsonObject DashScopeAdapter::translateBody(const QJsonObject &openAiBody, const QString &upstreamModel)
{
    QJsonArray messages;
    for (const QJsonValue &m : openAiBody.value(QLatin1String("messages")).toArray()) {
        const QJsonObject in = m.toObject();
        QString role = in.value(QLatin1String("role")).toString();
        if (role == QLatin1String("developer"))
            role = QStringLiteral("system");
        QJsonObject out{{QStringLiteral("role"), role}, {QStringLiteral("content"), textOf(in.value(QLatin1String("content")))}};
        // DashScope's tool-call shapes are OpenAI's, so they pass through.
        for (const char *key : {"tool_calls", "tool_call_id", "name"})
            if (in.contains(QLatin1String(key)))
                out.insert(QLatin1String(key), in.value(QLatin1String(key)));
        messages.append(out);
    }

    const bool stream = openAiBody.value(QLatin1String("stream")).toBool();
    QJsonObject parameters{{QStringLiteral("result_format"), QStringLiteral("message")}};
    if (stream)
        parameters.insert(QStringLiteral("incremental_output"), true); // deltas, not the text so far
    for (const char *key : {"temperature", "top_p", "max_tokens", "seed", "presence_penalty"})
        if (openAiBody.value(QLatin1String(key)).isDouble())
            parameters.insert(QLatin1String(key), openAiBody.value(QLatin1String(key)));
    if (openAiBody.value(QLatin1String("max_completion_tokens")).isDouble())
        parameters.insert(QStringLiteral("max_tokens"), openAiBody.value(QLatin1String("max_completion_tokens")));
    const QJsonValue stop = openAiBody.value(QLatin1String("stop"));
    if (stop.isString())
        parameters.insert(QStringLiteral("stop"), QJsonArray{stop});
    else if (stop.isArray() && !stop.toArray().isEmpty())
        parameters.insert(QStringLiteral("stop"), stop);
    for (const char *key : {"tools", "tool_choice", "parallel_tool_calls", "response_format"})
        if (openAiBody.contains(QLatin1String(key)))
            parameters.insert(QLatin1String(key), openAiBody.value(QLatin1String(key)));

    return QJsonObject{{QStringLiteral("model"), upstreamModel},
                       {QStringLiteral("input"), QJsonObject{{QStringLiteral("messages"), messages}}},
                       {QStringLiteral("parameters"), parameters}};
}

UpstreamRequest DashScopeAdapter::chatRequest(const QJsonObject &openAiBody, const AdapterContext &context) const
{
    UpstreamRequest request;
    request.stream = openAiBody.value(QLatin1String("stream")).toBool();
    request.url = QUrl(baseOf(context).api + QStringLiteral("/services/aigc/text-generation/generation"));
    request.headers = authHeaders(context);
    if (request.stream) {
        request.headers.add("X-DashScope-SSE", "enable");
        request.headers.add("Accept", "text/event-stream");
    }
    request.body = QJsonDocument(translateBody(openAiBody, context.channel ? context.channel->upstreamModel : QString()))
                       .toJson(QJsonDocument::Compact);
    return request;
}

std::optional<UpstreamRequest> DashScopeAdapter::embeddingsRequest(const QJsonObject &openAiBody,
                                                                   const AdapterContext &context) const
{
    const QJsonValue input = openAiBody.value(QLatin1String("input"));
    QJsonArray texts;
    if (input.isString())
        texts.append(input);
    for (const QJsonValue &v : input.toArray())
        texts.append(v.toString());
    QJsonObject body{{QStringLiteral("model"), context.channel ? context.channel->upstreamModel : QString()},
                     {QStringLiteral("input"), QJsonObject{{QStringLiteral("texts"), texts}}}};
    if (openAiBody.value(QLatin1String("dimensions")).isDouble())
        body.insert(QStringLiteral("parameters"),
                    QJsonObject{{QStringLiteral("dimension"), openAiBody.value(QLatin1String("dimensions"))}});
    UpstreamRequest request;
    request.url = QUrl(baseOf(context).api + QStringLiteral("/services/embeddings/text-embedding/text-embedding"));
    request.headers = authHeaders(context);
    request.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return request;
}

UpstreamRequest DashScopeAdapter::probeRequest(const AdapterContext &context) const
{
    UpstreamRequest request;
    request.method = "GET";
    request.url = QUrl(baseOf(context).root + QStringLiteral("/compatible-mode/v1/models"));
    request.headers.add("Authorization", "Bearer " + context.apiKey.toUtf8());
    return request;
}

Outcome DashScopeAdapter::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const
{
    return DashScopeErrorMap::classify(httpStatus, headers, body);
}

Outcome DashScopeAdapter::classifyProbe(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const
{
    // The models list has no "output": a 2xx without an error code is the provider answering.
    return DashScopeErrorMap::classifyListing(httpStatus, headers, body);
}

std::optional<QString> DashScopeAdapter::answerProblem(const HttpHeaders &, const QByteArray &body, bool embeddings) const
{
    return DashScopeErrorMap::answerProblem(body, embeddings);
}

QJsonObject DashScopeAdapter::chatResponse(const QByteArray &body, TokenUsage *usage) const
{
    const QJsonObject root = QJsonDocument::fromJson(body).object();
    const QJsonObject output = root.value(QLatin1String("output")).toObject();
    QJsonObject message{{QStringLiteral("role"), QStringLiteral("assistant")}};
    QString finish;
    const QJsonArray choices = output.value(QLatin1String("choices")).toArray();
    if (!choices.isEmpty()) {
        const QJsonObject choice = choices.first().toObject();
        const QJsonObject in = choice.value(QLatin1String("message")).toObject();
        const QJsonArray toolCalls = in.value(QLatin1String("tool_calls")).toArray();
        const QString content = in.value(QLatin1String("content")).toString();
        message.insert(QStringLiteral("content"), content.isEmpty() && !toolCalls.isEmpty() ? QJsonValue() : QJsonValue(content));
        if (in.contains(QLatin1String("reasoning_content")))
            message.insert(QStringLiteral("reasoning_content"), in.value(QLatin1String("reasoning_content")));
        if (!toolCalls.isEmpty()) {
            QJsonArray calls;
            for (const QJsonValue &c : toolCalls) {
                QJsonObject call = c.toObject();
                call.remove(QStringLiteral("index"));
                calls.append(call);
            }
            message.insert(QStringLiteral("tool_calls"), calls);
        }
        finish = DashScopeStreamTranslator::finishReason(choice.value(QLatin1String("finish_reason")));
    } else {
        message.insert(QStringLiteral("content"), output.value(QLatin1String("text")).toString());
        finish = DashScopeStreamTranslator::finishReason(output.value(QLatin1String("finish_reason")));
    }
    if (finish.isEmpty())
        finish = QStringLiteral("stop");

    const TokenUsage u = DashScopeStreamTranslator::usageFrom(root.value(QLatin1String("usage")).toObject());
    if (usage)
        *usage = u;
    const QString requestId = root.value(QLatin1String("request_id")).toString();
    return openAiCompletion(QStringLiteral("chatcmpl-") + (requestId.isEmpty() ? QStringLiteral("dashscope") : requestId), 0,
                            QString(), message, finish, u);
}

QJsonObject DashScopeAdapter::embeddingsResponse(const QByteArray &body, TokenUsage *usage) const
{
    const QJsonObject root = QJsonDocument::fromJson(body).object();
    QJsonArray data;
    const QJsonArray embeddings = root.value(QLatin1String("output")).toObject().value(QLatin1String("embeddings")).toArray();
    for (qsizetype i = 0; i < embeddings.size(); ++i) {
        const QJsonObject e = embeddings.at(i).toObject();
        data.append(QJsonObject{{QStringLiteral("object"), QStringLiteral("embedding")},
                                {QStringLiteral("index"), e.value(QLatin1String("text_index")).toInt(int(i))},
                                {QStringLiteral("embedding"), e.value(QLatin1String("embedding"))}});
    }
    const int total = root.value(QLatin1String("usage")).toObject().value(QLatin1String("total_tokens")).toInt(-1);
    if (usage) {
        *usage = TokenUsage{};
        usage->promptTokens = total;
        usage->totalTokens = total;
    }
    return QJsonObject{{QStringLiteral("object"), QStringLiteral("list")},
                       {QStringLiteral("data"), data},
                       {QStringLiteral("model"), QString()},
                       {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), qMax(0, total)},
                                                             {QStringLiteral("total_tokens"), qMax(0, total)}}}};
}

std::unique_ptr<StreamTranslator> DashScopeAdapter::streamTranslator(const QJsonObject &openAiBody) const
{
    const bool includeUsage = includeUsageRequested(openAiBody);
    return std::make_unique<DashScopeStreamTranslator>(openAiBody.value(QLatin1String("model")).toString(), includeUsage);
}

} // namespace sb
