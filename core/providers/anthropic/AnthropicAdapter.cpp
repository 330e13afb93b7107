#include "providers/anthropic/AnthropicAdapter.h"

#include "common/json/JsonLiterals.h"
#include "common/json/JsonObjectEdit.h"
#include "common/json/JsonObjectScan.h"
#include "common/json/JsonText.h"
#include "providers/anthropic/AnthropicErrorMap.h"
#include "providers/anthropic/AnthropicQuickAnswer.h"
#include "providers/anthropic/AnthropicQuickRequest.h"
#include "providers/anthropic/AnthropicStreamTranslator.h"
#include "providers/common/ApiBaseUrl.h"
#include "providers/common/ProviderText.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <optional>

namespace sb {

namespace {

const QLatin1String kType("type"), kText("text"), kContent("content"), kRole("role");

QString textOf(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QStringList parts;
    for (const QJsonValue &part : content.toArray()) {
        const QJsonObject p = part.toObject();
        if (p.value(kType).toString() == kText)
            parts << p.value(kText).toString();
    }
    return parts.join(QLatin1Char('\n'));
}

QJsonObject textBlock(const QString &text)
{
    return QJsonObject{{kType, kText}, {kText, text}};
}

QJsonObject imageBlock(const QString &url)
{
    // data:image/png;base64,AAAA → a base64 source; anything else is fetched by Anthropic by URL.
    if (url.startsWith(QLatin1String("data:"))) {
        const qsizetype semicolon = url.indexOf(QLatin1Char(';'));
        const qsizetype comma = url.indexOf(QLatin1Char(','));
        if (semicolon > 5 && comma > semicolon) {
            return QJsonObject{{kType, QStringLiteral("image")},
                               {QStringLiteral("source"),
                                QJsonObject{{kType, QStringLiteral("base64")},
                                            {QStringLiteral("media_type"), url.mid(5, semicolon - 5)},
                                            {QStringLiteral("data"), url.mid(comma + 1)}}}};
        }
    }
    return QJsonObject{{kType, QStringLiteral("image")},
                       {QStringLiteral("source"), QJsonObject{{kType, QStringLiteral("url")}, {QStringLiteral("url"), url}}}};
}

QJsonArray userBlocks(const QJsonValue &content)
{
    QJsonArray blocks;
    if (content.isString()) {
        if (!content.toString().isEmpty())
            blocks.append(textBlock(content.toString()));
        return blocks;
    }
    for (const QJsonValue &part : content.toArray()) {
        const QJsonObject p = part.toObject();
        const QString type = p.value(kType).toString();
        if (type == kText && !p.value(kText).toString().isEmpty())
            blocks.append(textBlock(p.value(kText).toString()));
        else if (type == QLatin1String("image_url"))
            blocks.append(imageBlock(p.value(QLatin1String("image_url")).toObject().value(QLatin1String("url")).toString()));
        // Audio and file parts have no Messages API equivalent here; they are dropped, not sent malformed.
    }
    return blocks;
}

QJsonArray assistantBlocks(const QJsonObject &message)
{
    QJsonArray blocks;
    const QString text = textOf(message.value(kContent));
    if (!text.isEmpty())
        blocks.append(textBlock(text));
    for (const QJsonValue &call : message.value(QLatin1String("tool_calls")).toArray()) {
        const QJsonObject c = call.toObject();
        const QJsonObject function = c.value(QLatin1String("function")).toObject();
        // OpenAI carries arguments as a JSON string; Anthropic wants the object itself.
        QJsonObject input;
        parseJsonObject(function.value(QLatin1String("arguments")).toString().toUtf8(), &input);
        blocks.append(QJsonObject{{kType, QStringLiteral("tool_use")},
                                  {QStringLiteral("id"), c.value(QLatin1String("id")).toString()},
                                  {QStringLiteral("name"), function.value(QLatin1String("name")).toString()},
                                  {QStringLiteral("input"), input}});
    }
    return blocks;
}

// Anthropic requires user/assistant turns to alternate; consecutive turns of one role (several
// tool results, a user message after tool results) are merged into one turn's blocks.
void appendTurn(QJsonArray &messages, const QString &role, const QJsonArray &blocks)
{
    if (blocks.isEmpty())
        return;
    if (!messages.isEmpty()) {
        QJsonObject last = messages.last().toObject();
        if (last.value(kRole).toString() == role) {
            QJsonArray merged = last.value(kContent).toArray();
            for (const QJsonValue &b : blocks)
                merged.append(b);
            last.insert(kContent, merged);
            messages.replace(messages.size() - 1, last);
            return;
        }
    }
    messages.append(QJsonObject{{kRole, role}, {kContent, blocks}});
}

QJsonArray translateTools(const QJsonArray &tools)
{
    QJsonArray out;
    for (const QJsonValue &tool : tools) {
        const QJsonObject t = tool.toObject();
        if (t.value(kType).toString(QStringLiteral("function")) != QLatin1String("function"))
            continue;
        const QJsonObject f = t.value(QLatin1String("function")).toObject();
        QJsonObject schema = f.value(QLatin1String("parameters")).toObject();
        if (schema.isEmpty())
            schema = QJsonObject{{kType, QStringLiteral("object")}, {QStringLiteral("properties"), QJsonObject()}};
        QJsonObject a{{QStringLiteral("name"), f.value(QLatin1String("name")).toString()},
                      {QStringLiteral("input_schema"), schema}};
        if (f.contains(QLatin1String("description")))
            a.insert(QStringLiteral("description"), f.value(QLatin1String("description")).toString());
        out.append(a);
    }
    return out;
}

QJsonObject translateToolChoice(const QJsonValue &choice, const QJsonValue &parallel)
{
    QJsonObject out;
    if (choice.isString()) {
        const QString c = choice.toString();
        if (c == QLatin1String("required"))
            out.insert(kType, QStringLiteral("any"));
        else if (c == QLatin1String("none"))
            out.insert(kType, QStringLiteral("none"));
        else
            out.insert(kType, QStringLiteral("auto"));
    } else if (choice.isObject()) {
        out.insert(kType, QStringLiteral("tool"));
        out.insert(QStringLiteral("name"), choice.toObject().value(QLatin1String("function")).toObject().value(QLatin1String("name")).toString());
    } else if (parallel.isBool() && !parallel.toBool()) {
        out.insert(kType, QStringLiteral("auto"));
    }
    if (parallel.isBool() && !parallel.toBool() && !out.isEmpty() && out.value(kType).toString() != QLatin1String("none"))
        out.insert(QStringLiteral("disable_parallel_tool_use"), true);
    return out;
}

UpstreamRequest baseRequest(const AdapterContext &context, const QString &fallbackBase, QStringView path)
{
    UpstreamRequest request;
    const QString base = context.provider && !context.provider->baseUrl.isEmpty() ? context.provider->baseUrl : fallbackBase;
    request.url = apiUrl(base, u"/v1", path);
    request.headers.set("x-api-key", context.apiKey.toUtf8());
    request.headers.set("anthropic-version", AnthropicAdapter::ApiVersion);
    return request;
}

} // namespace

QString AnthropicAdapter::dialect() const { return QStringLiteral("anthropic"); }
QString AnthropicAdapter::displayName() const { return QStringLiteral("Anthropic Messages"); }
QString AnthropicAdapter::defaultBaseUrl() const { return QStringLiteral("https://api.anthropic.com/v1"); }

QJsonObject AnthropicAdapter::translateRequest(const QJsonObject &in, const QString &upstreamModel)
{
    QJsonObject out;
    out.insert(QStringLiteral("model"), upstreamModel.isEmpty() ? in.value(QLatin1String("model")).toString() : upstreamModel);

    QStringList system;
    QJsonArray messages;
    for (const QJsonValue &value : in.value(QLatin1String("messages")).toArray()) {
        const QJsonObject m = value.toObject();
        const QString role = m.value(kRole).toString();
        if (role == QLatin1String("system") || role == QLatin1String("developer")) {
            const QString text = textOf(m.value(kContent));
            if (!text.isEmpty())
                system << text;
        } else if (role == QLatin1String("user")) {
            appendTurn(messages, QStringLiteral("user"), userBlocks(m.value(kContent)));
        } else if (role == QLatin1String("assistant")) {
            appendTurn(messages, QStringLiteral("assistant"), assistantBlocks(m));
        } else if (role == QLatin1String("tool")) {
            appendTurn(messages, QStringLiteral("user"),
                       QJsonArray{QJsonObject{{kType, QStringLiteral("tool_result")},
                                              {QStringLiteral("tool_use_id"), m.value(QLatin1String("tool_call_id")).toString()},
                                              {kContent, textOf(m.value(kContent))}}});
        }
    }
    if (!system.isEmpty())
        out.insert(QStringLiteral("system"), system.join(QStringLiteral("\n\n")));
    out.insert(QStringLiteral("messages"), messages);

    int maxTokens = DefaultMaxTokens;
    if (in.value(QLatin1String("max_completion_tokens")).isDouble())
        maxTokens = in.value(QLatin1String("max_completion_tokens")).toInt(DefaultMaxTokens);
    else if (in.value(QLatin1String("max_tokens")).isDouble())
        maxTokens = in.value(QLatin1String("max_tokens")).toInt(DefaultMaxTokens);
    out.insert(QStringLiteral("max_tokens"), maxTokens);

    if (in.value(QLatin1String("temperature")).isDouble()) // OpenAI allows 0–2, Anthropic 0–1
        out.insert(QStringLiteral("temperature"), std::min(in.value(QLatin1String("temperature")).toDouble(), 1.0));
    if (in.value(QLatin1String("top_p")).isDouble())
        out.insert(QStringLiteral("top_p"), in.value(QLatin1String("top_p")).toDouble());
    const QJsonValue stop = in.value(QLatin1String("stop"));
    if (stop.isString())
        out.insert(QStringLiteral("stop_sequences"), QJsonArray{stop.toString()});
    else if (stop.isArray() && !stop.toArray().isEmpty())
        out.insert(QStringLiteral("stop_sequences"), stop.toArray());
    if (in.value(QLatin1String("stream")).toBool(false))
        out.insert(QStringLiteral("stream"), true);
    if (in.value(QLatin1String("user")).isString())
        out.insert(QStringLiteral("metadata"), QJsonObject{{QStringLiteral("user_id"), in.value(QLatin1String("user")).toString()}});

    const QJsonArray tools = translateTools(in.value(QLatin1String("tools")).toArray());
    if (!tools.isEmpty()) {
        out.insert(QStringLiteral("tools"), tools);
        const QJsonObject choice = translateToolChoice(in.value(QLatin1String("tool_choice")), in.value(QLatin1String("parallel_tool_calls")));
        if (!choice.isEmpty())
            out.insert(QStringLiteral("tool_choice"), choice);
    }
    return out;
}

UpstreamRequest AnthropicAdapter::chatRequest(const QJsonObject &openAiBody, const AdapterContext &context) const
{
    UpstreamRequest request = baseRequest(context, defaultBaseUrl(), u"/messages");
    const QJsonObject body = translateRequest(openAiBody, context.channel ? context.channel->upstreamModel : QString());
    request.stream = body.value(QLatin1String("stream")).toBool(false);
    request.headers.set("Content-Type", "application/json");
    request.headers.set("Accept", request.stream ? "text/event-stream" : "application/json");
    request.body = compactJson(body);
    return request;
}

UpstreamRequest AnthropicAdapter::chatRequestFor(const ClientBody &body, const AdapterContext &context) const
{
    const QString model = context.channel ? context.channel->upstreamModel : QString();
    if (const JsonObjectScan *scan = body.scan()) {
        if (std::optional<AnthropicQuickRequest> quick = quickAnthropicRequest(body.clientBytes(), *scan, model)) {
            UpstreamRequest request = baseRequest(context, defaultBaseUrl(), u"/messages");
            request.stream = quick->stream;
            request.headers.set("Content-Type", "application/json");
            request.headers.set("Accept", request.stream ? "text/event-stream" : "application/json");
            request.body = std::move(quick->body);
            return request;
        }
    }
    return chatRequest(body.object(), context);
}

namespace {

// The client's Messages body to `path` nearly as sent: only the model is the channel's.
UpstreamRequest forwardedRequest(QStringView path, const QByteArray &clientBytes, const HttpHeaders &clientHeaders,
                                 const AdapterContext &context, const QString &defaultBase)
{
    UpstreamRequest request = baseRequest(context, defaultBase, path);
    for (const QByteArrayView name : {QByteArrayView("anthropic-version"), QByteArrayView("anthropic-beta")})
        if (const QByteArray value = clientHeaders.value(name); !value.isEmpty())
            request.headers.set(name.toByteArray(), value);
    const QString model = context.channel ? context.channel->upstreamModel : QString();
    JsonObjectScan scan;
    if (scan.scan(clientBytes)) {
        // Every other byte stays the client's.
        QByteArray modelJson;
        appendJsonString(&modelJson, model);
        const JsonMemberValue members[] = {{"model", modelJson}};
        request.body = model.isEmpty() ? clientBytes : withMembersSet(clientBytes, scan, members);
        const JsonObjectScan::Member *stream = scan.find("stream");
        request.stream = stream && stream->valueIn(clientBytes) == "true";
    } else {
        // What the quick scan refuses (escaped or repeated keys, very deep bodies) is rewritten
        // whole: the values, signatures included, stay the same.
        QJsonObject body = QJsonDocument::fromJson(clientBytes).object();
        if (!model.isEmpty())
            body.insert(QStringLiteral("model"), model);
        request.stream = body.value(QLatin1String("stream")).toBool(false);
        request.body = compactJson(body);
    }
    request.headers.set("Content-Type", "application/json");
    request.headers.set("Accept", request.stream ? "text/event-stream" : "application/json");
    return request;
}

} // namespace

std::optional<UpstreamRequest> AnthropicAdapter::nativeRequest(QStringView clientApi, const QByteArray &clientBytes,
                                                               const HttpHeaders &clientHeaders, const AdapterContext &context) const
{
    if (clientApi != u"anthropic_messages")
        return std::nullopt;
    return forwardedRequest(u"/messages", clientBytes, clientHeaders, context, defaultBaseUrl());
}

UpstreamRequest AnthropicAdapter::countTokensRequest(const QByteArray &clientBytes, const HttpHeaders &clientHeaders,
                                                     const AdapterContext &context) const
{
    UpstreamRequest request = forwardedRequest(u"/messages/count_tokens", clientBytes, clientHeaders, context, defaultBaseUrl());
    request.stream = false;
    request.headers.set("Accept", "application/json");
    return request;
}

std::optional<UpstreamRequest> AnthropicAdapter::embeddingsRequest(const QJsonObject &, const AdapterContext &) const
{
    return std::nullopt; // Anthropic has no embeddings endpoint
}

UpstreamRequest AnthropicAdapter::probeRequest(const AdapterContext &context) const
{
    UpstreamRequest request = baseRequest(context, defaultBaseUrl(), u"/models");
    request.method = "GET";
    request.headers.set("Accept", "application/json");
    return request;
}

Outcome AnthropicAdapter::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const
{
    return AnthropicErrorMap::classify(httpStatus, headers, body);
}

QString AnthropicAdapter::finishReason(const QString &stopReason)
{
    if (stopReason == QLatin1String("max_tokens") || stopReason == QLatin1String("model_context_window_exceeded"))
        return QStringLiteral("length");
    if (stopReason == QLatin1String("tool_use"))
        return QStringLiteral("tool_calls");
    if (stopReason == QLatin1String("refusal"))
        return QStringLiteral("content_filter");
    return QStringLiteral("stop"); // end_turn, stop_sequence, pause_turn
}

namespace {

// The counts of an Anthropic "usage" object, each present or not.
struct AnthropicCounts {
    std::optional<int> input;
    std::optional<int> output;
    std::optional<int> cacheRead;
    std::optional<int> cacheWrite;
};

TokenUsage usageFromCounts(const AnthropicCounts &counts)
{
    TokenUsage out;
    if (counts.cacheRead)
        out.cacheReadTokens = std::max(0, *counts.cacheRead);
    if (counts.cacheWrite)
        out.cacheWriteTokens = std::max(0, *counts.cacheWrite);
    if (counts.input) {
        // TokenUsage counts cached input in the prompt, as OpenAI's prompt_tokens does; Anthropic's
        // input_tokens is only what came after the last cache breakpoint.
        out.promptTokens = std::max(0, *counts.input) + std::max(0, out.cacheReadTokens) + std::max(0, out.cacheWriteTokens);
    }
    if (counts.output)
        out.completionTokens = *counts.output;
    if (out.promptTokens >= 0 && out.completionTokens >= 0)
        out.totalTokens = out.promptTokens + out.completionTokens;
    return out;
}

} // namespace

TokenUsage AnthropicAdapter::usageOfMessage(QByteArrayView message, const JsonObjectScan &scan)
{
    const JsonObjectScan::Member *member = scan.find("usage");
    if (!member)
        return usageFromCounts({});
    // The usual counts, plain integers, are read on their bytes; anything else (9.0, a string,
    // null) through Qt's parser, as usageFromAnthropic reads it. Through QJsonDocument every time
    // this was a twentieth of a translated request.
    const QByteArrayView usage = member->valueIn(message);
    JsonObjectScan scanned;
    if (scanned.scan(usage)) {
        bool plain = true;
        const auto read = [&](QByteArrayView key, std::optional<int> *count) {
            if (const JsonObjectScan::Member *found = scanned.find(key)) {
                *count = jsonliteral::intValue(found->valueIn(usage));
                plain = plain && count->has_value();
            }
        };
        AnthropicCounts counts;
        read("input_tokens", &counts.input);
        read("output_tokens", &counts.output);
        read("cache_read_input_tokens", &counts.cacheRead);
        read("cache_creation_input_tokens", &counts.cacheWrite);
        if (plain)
            return usageFromCounts(counts);
    }
    QJsonObject tokens;
    parseJsonObject(usage.toByteArray(), &tokens);
    return usageFromAnthropic(tokens);
}

TokenUsage AnthropicAdapter::usageFromAnthropic(const QJsonObject &usage)
{
    AnthropicCounts counts;
    const auto read = [&](QLatin1String key, std::optional<int> *count) {
        if (usage.contains(key))
            *count = usage.value(key).toInt();
    };
    read(QLatin1String("input_tokens"), &counts.input);
    read(QLatin1String("output_tokens"), &counts.output);
    read(QLatin1String("cache_read_input_tokens"), &counts.cacheRead);
    read(QLatin1String("cache_creation_input_tokens"), &counts.cacheWrite);
    return usageFromCounts(counts);
}

std::optional<QString> AnthropicAdapter::answerProblem(const HttpHeaders &headers, const QByteArray &body, bool) const
{
    return AnthropicErrorMap::messageProblem(headers, body); // no embeddings request ever reaches Anthropic
}

QJsonObject AnthropicAdapter::chatResponse(const QByteArray &body, TokenUsage *usage) const
{
    QJsonObject in;
    if (!parseJsonObject(body, &in))
        return QJsonObject();
    QStringList texts;
    QJsonArray toolCalls;
    for (const QJsonValue &value : in.value(kContent).toArray()) {
        const QJsonObject block = value.toObject();
        const QString type = block.value(kType).toString();
        if (type == kText) {
            texts << block.value(kText).toString();
        } else if (type == QLatin1String("tool_use")) {
            toolCalls.append(QJsonObject{
                {QStringLiteral("id"), block.value(QLatin1String("id")).toString()},
                {kType, QStringLiteral("function")},
                {QStringLiteral("function"),
                 QJsonObject{{QStringLiteral("name"), block.value(QLatin1String("name")).toString()},
                             {QStringLiteral("arguments"),
                              QString::fromUtf8(compactJson(block.value(QLatin1String("input")).toObject()))}}}});
        }
    }
    QJsonObject message{{kRole, QStringLiteral("assistant")},
                        {kContent, texts.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(texts.join(QString()))}};
    if (!toolCalls.isEmpty())
        message.insert(QStringLiteral("tool_calls"), toolCalls);
    const TokenUsage tokens = usageFromAnthropic(in.value(QLatin1String("usage")).toObject());
    if (usage)
        *usage = tokens;
    return QJsonObject{
        {QStringLiteral("id"), in.value(QLatin1String("id")).toString()},
        {QStringLiteral("object"), QStringLiteral("chat.completion")},
        {QStringLiteral("created"), 0}, // the caller stamps it, as it does "model"
        {QStringLiteral("model"), in.value(QLatin1String("model")).toString()},
        {QStringLiteral("choices"),
         QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                {QStringLiteral("message"), message},
                                {QStringLiteral("finish_reason"), finishReason(in.value(QLatin1String("stop_reason")).toString())}}}},
        {QStringLiteral("usage"), usageToOpenAi(tokens)},
    };
}

Outcome AnthropicAdapter::classifyAnswer(int httpStatus, const HttpHeaders &headers, const QByteArray &body, bool embeddings,
                                         OpenAiAnswer *answer, TokenUsage *usage) const
{
    // A 2xx JSON message (an event stream, an error object, anything unusual takes the default):
    // parsed once by the error map, once to check it and once to translate it, and built as
    // objects, it cost a translated request about a third of what the proxy spent on it.
    if (!embeddings && httpStatus >= 200 && httpStatus < 300 && !headers.value("content-type").contains("text/event-stream")) {
        if (std::optional<QByteArray> completion = quickChatCompletion(body, usage)) {
            JsonObjectScan scan;
            if (scan.scan(*completion)) {
                if (std::optional<OpenAiAnswer> quick = OpenAiAnswer::passThrough(*completion, scan)) {
                    *answer = std::move(*quick);
                    return Outcome::success(httpStatus);
                }
            }
        }
    }
    return ProviderAdapter::classifyAnswer(httpStatus, headers, body, embeddings, answer, usage);
}

Outcome AnthropicAdapter::classifyNativeAnswer(QStringView clientApi, int httpStatus, const HttpHeaders &headers,
                                               const QByteArray &body, OpenAiAnswer *answer, TokenUsage *usage) const
{
    if (answer)
        return ProviderAdapter::classifyNativeAnswer(clientApi, httpStatus, headers, body, answer, usage);
    // The usual answer, a message with its content, is checked on its bytes and only its usage is
    // parsed: translating it (chatResponse) was a tenth of what a passed-through request cost.
    JsonObjectScan scan;
    if (httpStatus == 200 && scan.scan(body)) {
        const JsonObjectScan::Member *type = scan.find("type");
        const JsonObjectScan::Member *content = scan.find("content");
        if (type && type->valueIn(body) == QByteArrayView("\"message\"") && content && content->valueIn(body).startsWith('[')) {
            if (usage)
                *usage = usageOfMessage(body, scan);
            return Outcome::success(httpStatus);
        }
    }
    // Anything else is read as slowly as any answer: an error, or a 2xx that is not an answer.
    const Outcome outcome = classify(httpStatus, headers, body);
    if (!outcome.isSuccess())
        return outcome;
    if (std::optional<QString> problem = answerProblem(headers, body, false))
        return malformedAnswerOutcome(httpStatus, *problem);
    chatResponse(body, usage);
    return outcome;
}

QJsonObject AnthropicAdapter::embeddingsResponse(const QByteArray &, TokenUsage *) const
{
    return QJsonObject();
}

std::unique_ptr<StreamTranslator> AnthropicAdapter::streamTranslator(const QJsonObject &openAiBody) const
{
    const bool wantsUsage = openAiBody.value(QLatin1String("stream_options")).toObject().value(QLatin1String("include_usage")).toBool(false);
    return std::make_unique<AnthropicStreamTranslator>(openAiBody.value(QLatin1String("model")).toString(), wantsUsage);
}

} // namespace sb
