#include "providers/gemini/GeminiAdapter.h"

#include "providers/gemini/GeminiErrorMap.h"
#include "providers/gemini/GeminiStreamTranslator.h"

#include "providers/common/ApiBaseUrl.h"
#include "providers/common/OpenAiChunk.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>

namespace sb {

namespace {

QString apiRoot(const AdapterContext &context)
{
    const QString base = context.provider && !context.provider->baseUrl.isEmpty()
                             ? context.provider->baseUrl
                             : QStringLiteral("https://generativelanguage.googleapis.com");
    // v1beta first: the features the adapter uses (system instructions, tools) came there first.
    return readApiBaseUrl(base, {u"/v1beta", u"/v1"}).api;
}

QString modelPath(const AdapterContext &context)
{
    const QString model = context.channel ? context.channel->upstreamModel : QString();
    if (model.startsWith(QLatin1String("models/")) || model.startsWith(QLatin1String("tunedModels/")))
        return model;
    return QStringLiteral("models/") + model;
}

HttpHeaders authHeaders(const AdapterContext &context)
{
    HttpHeaders h;
    h.add("Content-Type", "application/json");
    h.add("x-goog-api-key", context.apiKey.toUtf8());
    return h;
}

// OpenAI content (a string or an array of typed parts) → Gemini parts.
QJsonArray partsFromContent(const QJsonValue &content)
{
    QJsonArray parts;
    if (content.isString()) {
        if (!content.toString().isEmpty())
            parts.append(QJsonObject{{QStringLiteral("text"), content.toString()}});
        return parts;
    }
    for (const QJsonValue &v : content.toArray()) {
        const QJsonObject part = v.toObject();
        const QString type = part.value(QLatin1String("type")).toString();
        if (type == QLatin1String("text")) {
            parts.append(QJsonObject{{QStringLiteral("text"), part.value(QLatin1String("text")).toString()}});
        } else if (type == QLatin1String("image_url")) {
            const QJsonValue image = part.value(QLatin1String("image_url"));
            const QString url = image.isObject() ? image.toObject().value(QLatin1String("url")).toString() : image.toString();
            // data:<mime>;base64,<payload> is inlined; any other URL is passed as a file reference.
            if (url.startsWith(QLatin1String("data:"))) {
                const qsizetype semi = url.indexOf(QLatin1Char(';'));
                const qsizetype comma = url.indexOf(QLatin1Char(','));
                if (semi > 5 && comma > semi)
                    parts.append(QJsonObject{{QStringLiteral("inlineData"),
                                              QJsonObject{{QStringLiteral("mimeType"), url.mid(5, semi - 5)},
                                                          {QStringLiteral("data"), url.mid(comma + 1)}}}});
            } else if (!url.isEmpty()) {
                parts.append(QJsonObject{{QStringLiteral("fileData"), QJsonObject{{QStringLiteral("fileUri"), url}}}});
            }
        }
    }
    return parts;
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

// Gemini's schema dialect is an OpenAPI subset and rejects these JSON Schema keywords outright.
QJsonValue sanitizeSchema(const QJsonValue &value)
{
    if (value.isObject()) {
        QJsonObject out;
        const QJsonObject in = value.toObject();
        for (auto it = in.begin(); it != in.end(); ++it) {
            if (it.key() == QLatin1String("$schema") || it.key() == QLatin1String("additionalProperties")
                || it.key() == QLatin1String("strict"))
                continue;
            out.insert(it.key(), sanitizeSchema(it.value()));
        }
        return out;
    }
    if (value.isArray()) {
        QJsonArray out;
        for (const QJsonValue &v : value.toArray())
            out.append(sanitizeSchema(v));
        return out;
    }
    return value;
}

void appendContent(QJsonArray *contents, const QString &role, const QJsonArray &parts)
{
    if (parts.isEmpty())
        return;
    // Consecutive turns of one role merge: parallel tool results must reach Gemini as one turn.
    if (!contents->isEmpty()) {
        QJsonObject last = contents->last().toObject();
        if (last.value(QLatin1String("role")).toString() == role) {
            QJsonArray merged = last.value(QLatin1String("parts")).toArray();
            for (const QJsonValue &p : parts)
                merged.append(p);
            last.insert(QStringLiteral("parts"), merged);
            (*contents)[contents->size() - 1] = last;
            return;
        }
    }
    contents->append(QJsonObject{{QStringLiteral("role"), role}, {QStringLiteral("parts"), parts}});
}

} // namespace

QString GeminiAdapter::dialect() const { return QStringLiteral("gemini"); }
QString GeminiAdapter::displayName() const { return QStringLiteral("Google Gemini"); }
QString GeminiAdapter::defaultBaseUrl() const { return QStringLiteral("https://generativelanguage.googleapis.com/v1beta"); }

QJsonObject GeminiAdapter::translateBody(const QJsonObject &openAiBody)
{
    QJsonArray contents;
    QJsonArray systemParts;
    QHash<QString, QString> toolNames; // tool_call_id → function name, for functionResponse parts

    for (const QJsonValue &m : openAiBody.value(QLatin1String("messages")).toArray()) {
        const QJsonObject message = m.toObject();
        const QString role = message.value(QLatin1String("role")).toString();
        const QJsonValue content = message.value(QLatin1String("content"));
        if (role == QLatin1String("system") || role == QLatin1String("developer")) {
            for (const QJsonValue &p : partsFromContent(content))
                systemParts.append(p);
        } else if (role == QLatin1String("assistant")) {
            QJsonArray parts = partsFromContent(content);
            for (const QJsonValue &c : message.value(QLatin1String("tool_calls")).toArray()) {
                const QJsonObject call = c.toObject();
                const QJsonObject function = call.value(QLatin1String("function")).toObject();
                const QString name = function.value(QLatin1String("name")).toString();
                toolNames.insert(call.value(QLatin1String("id")).toString(), name);
                const QJsonObject args = QJsonDocument::fromJson(function.value(QLatin1String("arguments")).toString().toUtf8()).object();
                parts.append(QJsonObject{{QStringLiteral("functionCall"),
                                          QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("args"), args}}}});
            }
            appendContent(&contents, QStringLiteral("model"), parts);
        } else if (role == QLatin1String("tool")) {
            const QString text = textOf(content);
            QJsonObject response = QJsonDocument::fromJson(text.toUtf8()).object();
            if (response.isEmpty())
                response = QJsonObject{{QStringLiteral("content"), text}};
            QString name = toolNames.value(message.value(QLatin1String("tool_call_id")).toString());
            if (name.isEmpty())
                name = message.value(QLatin1String("name")).toString();
            appendContent(&contents, QStringLiteral("user"),
                          QJsonArray{QJsonObject{{QStringLiteral("functionResponse"),
                                                  QJsonObject{{QStringLiteral("name"), name},
                                                              {QStringLiteral("response"), response}}}}});
        } else { // user, and anything unknown is treated as the user speaking
            appendContent(&contents, QStringLiteral("user"), partsFromContent(content));
        }
    }

    QJsonObject body{{QStringLiteral("contents"), contents}};
    if (!systemParts.isEmpty())
        body.insert(QStringLiteral("systemInstruction"), QJsonObject{{QStringLiteral("parts"), systemParts}});

    QJsonObject config;
    auto copyNumber = [&](const char *from, const char *to) {
        const QJsonValue v = openAiBody.value(QLatin1String(from));
        if (v.isDouble())
            config.insert(QLatin1String(to), v);
    };
    copyNumber("temperature", "temperature");
    copyNumber("top_p", "topP");
    copyNumber("max_tokens", "maxOutputTokens");
    copyNumber("max_completion_tokens", "maxOutputTokens");
    copyNumber("presence_penalty", "presencePenalty");
    copyNumber("frequency_penalty", "frequencyPenalty");
    copyNumber("seed", "seed");
    // "n" is not forwarded: only the first candidate is translated, so more would be paid for and lost.
    const QJsonValue stop = openAiBody.value(QLatin1String("stop"));
    if (stop.isString())
        config.insert(QStringLiteral("stopSequences"), QJsonArray{stop});
    else if (stop.isArray() && !stop.toArray().isEmpty())
        config.insert(QStringLiteral("stopSequences"), stop);
    const QString format = openAiBody.value(QLatin1String("response_format")).toObject().value(QLatin1String("type")).toString();
    if (format == QLatin1String("json_object") || format == QLatin1String("json_schema"))
        config.insert(QStringLiteral("responseMimeType"), QStringLiteral("application/json"));
    if (!config.isEmpty())
        body.insert(QStringLiteral("generationConfig"), config);

    QJsonArray declarations;
    for (const QJsonValue &t : openAiBody.value(QLatin1String("tools")).toArray()) {
        const QJsonObject tool = t.toObject();
        if (tool.value(QLatin1String("type")).toString() != QLatin1String("function"))
            continue;
        const QJsonObject function = tool.value(QLatin1String("function")).toObject();
        QJsonObject declaration{{QStringLiteral("name"), function.value(QLatin1String("name"))}};
        if (function.contains(QLatin1String("description")))
            declaration.insert(QStringLiteral("description"), function.value(QLatin1String("description")));
        if (function.contains(QLatin1String("parameters")))
            declaration.insert(QStringLiteral("parameters"), sanitizeSchema(function.value(QLatin1String("parameters"))));
        declarations.append(declaration);
    }
    if (!declarations.isEmpty()) {
        body.insert(QStringLiteral("tools"), QJsonArray{QJsonObject{{QStringLiteral("functionDeclarations"), declarations}}});
        const QJsonValue choice = openAiBody.value(QLatin1String("tool_choice"));
        QJsonObject calling;
        if (choice.isString()) {
            const QString c = choice.toString();
            calling.insert(QStringLiteral("mode"), c == QLatin1String("none")       ? QStringLiteral("NONE")
                                                   : c == QLatin1String("required") ? QStringLiteral("ANY")
                                                                                    : QStringLiteral("AUTO"));
        } else if (choice.isObject()) {
            calling.insert(QStringLiteral("mode"), QStringLiteral("ANY"));
            calling.insert(QStringLiteral("allowedFunctionNames"),
                           QJsonArray{choice.toObject().value(QLatin1String("function")).toObject().value(QLatin1String("name"))});
        }
        if (!calling.isEmpty())
            body.insert(QStringLiteral("toolConfig"), QJsonObject{{QStringLiteral("functionCallingConfig"), calling}});
    }
    return body;
}

UpstreamRequest GeminiAdapter::chatRequest(const QJsonObject &openAiBody, const AdapterContext &context) const
{
    UpstreamRequest request;
    request.stream = openAiBody.value(QLatin1String("stream")).toBool();
    request.url = QUrl(apiRoot(context) + QLatin1Char('/') + modelPath(context)
                       + (request.stream ? QStringLiteral(":streamGenerateContent?alt=sse") : QStringLiteral(":generateContent")));
    request.headers = authHeaders(context);
    if (request.stream)
        request.headers.add("Accept", "text/event-stream");
    request.body = QJsonDocument(translateBody(openAiBody)).toJson(QJsonDocument::Compact);
    return request;
}

std::optional<UpstreamRequest> GeminiAdapter::embeddingsRequest(const QJsonObject &openAiBody,
                                                                const AdapterContext &context) const
{
    const QJsonValue input = openAiBody.value(QLatin1String("input"));
    QStringList texts;
    if (input.isString())
        texts << input.toString();
    for (const QJsonValue &v : input.toArray())
        texts << v.toString();

    const QString model = modelPath(context);
    QJsonArray requests;
    for (const QString &text : texts) {
        QJsonObject r{{QStringLiteral("model"), model},
                      {QStringLiteral("content"), QJsonObject{{QStringLiteral("parts"),
                                                               QJsonArray{QJsonObject{{QStringLiteral("text"), text}}}}}}};
        if (openAiBody.value(QLatin1String("dimensions")).isDouble())
            r.insert(QStringLiteral("outputDimensionality"), openAiBody.value(QLatin1String("dimensions")));
        requests.append(r);
    }
    UpstreamRequest request;
    request.url = QUrl(apiRoot(context) + QLatin1Char('/') + model + QStringLiteral(":batchEmbedContents"));
    request.headers = authHeaders(context);
    request.body = QJsonDocument(QJsonObject{{QStringLiteral("requests"), requests}}).toJson(QJsonDocument::Compact);
    return request;
}

UpstreamRequest GeminiAdapter::probeRequest(const AdapterContext &context) const
{
    UpstreamRequest request;
    request.method = "GET";
    request.url = QUrl(apiRoot(context) + QStringLiteral("/models?pageSize=1"));
    request.headers.add("x-goog-api-key", context.apiKey.toUtf8());
    return request;
}

Outcome GeminiAdapter::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const
{
    return GeminiErrorMap::classify(httpStatus, headers, body);
}

std::optional<QString> GeminiAdapter::answerProblem(const HttpHeaders &, const QByteArray &body, bool embeddings) const
{
    return GeminiErrorMap::answerProblem(body, embeddings);
}

QJsonObject GeminiAdapter::chatResponse(const QByteArray &body, TokenUsage *usage) const
{
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    const QJsonObject root = (doc.isArray() && !doc.array().isEmpty()) ? doc.array().first().toObject() : doc.object();

    QString text;
    QJsonArray toolCalls;
    int nextTool = 0;
    QString finish;
    const QJsonArray candidates = root.value(QLatin1String("candidates")).toArray();
    if (candidates.isEmpty()) {
        finish = QStringLiteral("content_filter"); // the prompt itself was blocked (promptFeedback)
    } else {
        const QJsonObject candidate = candidates.first().toObject();
        GeminiStreamTranslator::translateParts(
            candidate.value(QLatin1String("content")).toObject().value(QLatin1String("parts")).toArray(), &text, &toolCalls, &nextTool);
        finish = GeminiStreamTranslator::openAiFinishReason(candidate.value(QLatin1String("finishReason")).toString(), nextTool > 0);
    }

    QJsonObject message{{QStringLiteral("role"), QStringLiteral("assistant")},
                        {QStringLiteral("content"), text.isEmpty() && !toolCalls.isEmpty() ? QJsonValue() : QJsonValue(text)}};
    if (!toolCalls.isEmpty()) {
        for (qsizetype i = 0; i < toolCalls.size(); ++i) {
            QJsonObject call = toolCalls.at(i).toObject();
            call.remove(QStringLiteral("index")); // only stream deltas carry an index
            toolCalls[i] = call;
        }
        message.insert(QStringLiteral("tool_calls"), toolCalls);
    }

    const TokenUsage u = GeminiStreamTranslator::usageFrom(root.value(QLatin1String("usageMetadata")).toObject());
    if (usage)
        *usage = u;
    const QString responseId = root.value(QLatin1String("responseId")).toString();
    return openAiCompletion(QStringLiteral("chatcmpl-") + (responseId.isEmpty() ? QStringLiteral("gemini") : responseId), 0,
                            root.value(QLatin1String("modelVersion")).toString(), message, finish, u);
}

QJsonObject GeminiAdapter::embeddingsResponse(const QByteArray &body, TokenUsage *usage) const
{
    const QJsonObject root = QJsonDocument::fromJson(body).object();
    QJsonArray data;
    int index = 0;
    for (const QJsonValue &e : root.value(QLatin1String("embeddings")).toArray())
        data.append(QJsonObject{{QStringLiteral("object"), QStringLiteral("embedding")},
                                {QStringLiteral("index"), index++},
                                {QStringLiteral("embedding"), e.toObject().value(QLatin1String("values"))}});
    if (usage)
        *usage = TokenUsage{}; // batchEmbedContents reports no token counts
    return QJsonObject{{QStringLiteral("object"), QStringLiteral("list")},
                       {QStringLiteral("data"), data},
                       {QStringLiteral("model"), QString()},
                       {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), 0}, {QStringLiteral("total_tokens"), 0}}}};
}

std::unique_ptr<StreamTranslator> GeminiAdapter::streamTranslator(const QJsonObject &openAiBody) const
{
    const bool includeUsage = includeUsageRequested(openAiBody);
    return std::make_unique<GeminiStreamTranslator>(openAiBody.value(QLatin1String("model")).toString(), includeUsage);
}

} // namespace sb
