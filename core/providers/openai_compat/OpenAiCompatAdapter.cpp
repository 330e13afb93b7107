#include "providers/openai_compat/OpenAiCompatAdapter.h"

#include "common/json/JsonText.h"
#include "common/json/JsonObjectEdit.h"
#include "common/json/JsonObjectScan.h"
#include "providers/common/ApiBaseUrl.h"
#include "providers/common/ProviderText.h"
#include "providers/common/UpstreamOutcome.h"
#include "providers/openai_compat/OpenAiCompatAnswerShape.h"
#include "providers/openai_compat/OpenAiCompatErrorMap.h"
#include "providers/openai_compat/OpenAiCompatStreamTranslator.h"
#include "providers/openai_compat/ResponsesStreamTranslator.h"
#include "providers/openai_compat/ResponsesUpstream.h"

#include <QJsonDocument>

namespace sb {

namespace {

QString baseUrlOf(const AdapterContext &context, const QString &fallback)
{
    return context.provider && !context.provider->baseUrl.isEmpty() ? context.provider->baseUrl : fallback;
}

const QString kNotOneObject = QStringLiteral("a body that is not one JSON object (an event stream, a list, text)");

UpstreamRequest makeRequest(const AdapterContext &context, const QString &base, QStringView path)
{
    UpstreamRequest request;
    request.url = apiUrl(base, u"/v1", path);
    // Local servers commonly run without a key; sending "Bearer " with nothing would be rejected by some.
    if (!context.apiKey.isEmpty())
        request.headers.add(QByteArrayLiteral("Authorization"), "Bearer " + context.apiKey.toUtf8());
    return request;
}

QJsonObject withUpstreamModel(QJsonObject body, const AdapterContext &context)
{
    if (context.channel && !context.channel->upstreamModel.isEmpty())
        body.insert(QLatin1String("model"), context.channel->upstreamModel);
    return body;
}

// The upstream body as the client's own bytes (accepted by `scan`) with only "model" changed and,
// for a stream, the usage request added. Writing a parsed body back cost ~13,000 instructions a
// request, more than the rest of building the request.
QByteArray forwardedBytes(const QByteArray &bytes, const JsonObjectScan &scan, const AdapterContext &context, bool stream)
{
    QVarLengthArray<JsonMemberValue, 2> members;
    if (context.channel && !context.channel->upstreamModel.isEmpty()) {
        QByteArray model;
        appendJsonString(&model, context.channel->upstreamModel);
        members.append({"model", model});
    }
    if (stream)
        members.append({"stream_options", QByteArrayLiteral("{\"include_usage\":true}")});
    return withMembersSet(bytes, scan, members);
}

// forwardedBytes() of the bytes the parsed body came from, when the proxy has them and they scan
// cleanly; std::nullopt otherwise and the parsed body is serialised instead. A stream whose client
// set stream_options has them merged in the object.
std::optional<QByteArray> clientBytesForwarded(const AdapterContext &context, bool stream, bool hasStreamOptions)
{
    if (context.clientBody.isEmpty() || (stream && hasStreamOptions))
        return std::nullopt;
    JsonObjectScan scan;
    if (!scan.scan(context.clientBody))
        return std::nullopt;
    return forwardedBytes(context.clientBody, scan, context, stream);
}

UpstreamRequest chatRequestHead(const AdapterContext &context, const QString &defaultBase, bool stream)
{
    UpstreamRequest request = makeRequest(context, baseUrlOf(context, defaultBase), u"/chat/completions");
    request.stream = stream;
    request.headers.add(QByteArrayLiteral("Accept"), stream ? QByteArrayLiteral("text/event-stream") : QByteArrayLiteral("application/json"));
    request.headers.add(QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json"));
    return request;
}

bool clientWantsUsage(const QJsonObject &openAiBody)
{
    return openAiBody.value(QLatin1String("stream_options")).toObject().value(QLatin1String("include_usage")).toBool(false);
}

} // namespace

QString OpenAiCompatAdapter::dialect() const { return QStringLiteral("openai_compat"); }
QString OpenAiCompatAdapter::displayName() const { return QStringLiteral("OpenAI-compatible"); }
QString OpenAiCompatAdapter::defaultBaseUrl() const { return QStringLiteral("https://api.openai.com/v1"); }

UpstreamRequest OpenAiCompatAdapter::chatRequestFor(const ClientBody &body, const AdapterContext &context) const
{
    // The client's bytes with their scan (ChatRequest's quick check): forwarded without a parse.
    if (const JsonObjectScan *scan = body.scan()) {
        const QByteArray &bytes = body.clientBytes();
        const JsonObjectScan::Member *streamMember = scan->find("stream");
        const bool stream = streamMember && streamMember->valueIn(bytes) == "true";
        if (!stream || !scan->find("stream_options")) {
            UpstreamRequest request = chatRequestHead(context, defaultBaseUrl(), stream);
            request.body = forwardedBytes(bytes, *scan, context, stream);
            return request;
        }
    }
    return chatRequest(body.object(), context);
}

UpstreamRequest OpenAiCompatAdapter::chatRequest(const QJsonObject &openAiBody, const AdapterContext &context) const
{
    UpstreamRequest request = chatRequestHead(context, defaultBaseUrl(), openAiBody.value(QLatin1String("stream")).toBool(false));
    if (std::optional<QByteArray> forwarded =
            clientBytesForwarded(context, request.stream, openAiBody.contains(QLatin1String("stream_options")))) {
        request.body = std::move(*forwarded);
        return request;
    }
    QJsonObject body = withUpstreamModel(openAiBody, context);
    if (request.stream) {
        QJsonObject options = body.value(QLatin1String("stream_options")).toObject();
        options.insert(QLatin1String("include_usage"), true);
        body.insert(QLatin1String("stream_options"), options);
    }
    request.body = compactJson(body);
    return request;
}

std::optional<UpstreamRequest> OpenAiCompatAdapter::nativeRequest(QStringView clientApi, const QByteArray &clientBytes,
                                                                  const HttpHeaders &, const AdapterContext &context) const
{
    if (clientApi != u"openai_responses" || !context.provider || !context.provider->responsesApi)
        return std::nullopt;
    UpstreamRequest request = makeRequest(context, baseUrlOf(context, defaultBaseUrl()), u"/responses");
    // store: false upstream, whatever the client said. Switchboard keeps the conversation itself
    // (previous_response_id is expanded into input before this, and GET /v1/responses/{id} reads
    // its own store), so a copy kept by the provider would serve nothing and only hold the user's
    // text at one more place; the client's `store` decides what Switchboard keeps.
    QVarLengthArray<JsonMemberValue, 2> members;
    if (context.channel && !context.channel->upstreamModel.isEmpty()) {
        QByteArray model;
        appendJsonString(&model, context.channel->upstreamModel);
        members.append({"model", model});
    }
    members.append({"store", QByteArrayLiteral("false")});
    JsonObjectScan scan;
    if (scan.scan(clientBytes)) {
        request.body = withMembersSet(clientBytes, scan, members);
        const JsonObjectScan::Member *stream = scan.find("stream");
        request.stream = stream && stream->valueIn(clientBytes) == "true";
    } else {
        // What the quick scan refuses (escaped or repeated keys, very deep bodies) is rewritten
        // whole, with the same values.
        QJsonObject body = QJsonDocument::fromJson(clientBytes).object();
        body = withUpstreamModel(body, context);
        body.insert(QStringLiteral("store"), false);
        request.stream = body.value(QLatin1String("stream")).toBool(false);
        request.body = compactJson(body);
    }
    request.headers.add(QByteArrayLiteral("Accept"), request.stream ? QByteArrayLiteral("text/event-stream") : QByteArrayLiteral("application/json"));
    request.headers.add(QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json"));
    return request;
}

std::unique_ptr<StreamTranslator> OpenAiCompatAdapter::nativeStreamTranslator(QStringView clientApi, const QJsonObject &openAiBody) const
{
    if (clientApi != u"openai_responses")
        return streamTranslator(openAiBody);
    return std::make_unique<ResponsesStreamTranslator>(openAiBody.value(QLatin1String("model")).toString(), clientWantsUsage(openAiBody));
}

Outcome OpenAiCompatAdapter::classifyNativeAnswer(QStringView clientApi, int httpStatus, const HttpHeaders &headers,
                                                  const QByteArray &body, OpenAiAnswer *answer, TokenUsage *usage) const
{
    if (clientApi != u"openai_responses")
        return ProviderAdapter::classifyNativeAnswer(clientApi, httpStatus, headers, body, answer, usage);
    // OpenAI's error envelope is the same on /responses; a 200 response object whose status is
    // "failed" carries its error in `error`, which the ErrorMap reads as it reads a chat error.
    QJsonObject parsed;
    Outcome outcome = OpenAiCompatErrorMap::classify(httpStatus, headers, body, &parsed);
    if (!outcome.isSuccess())
        return outcome;
    if (parsed.value(QLatin1String("object")).toString() != QLatin1String("response")) {
        Outcome broken;
        broken.kind = OutcomeKind::ProviderDown;
        broken.httpStatus = httpStatus;
        broken.providerCode = QStringLiteral("malformed_body");
        broken.message = QStringLiteral("The provider answered /responses with something that is not a response object.");
        return broken;
    }
    if (std::optional<Outcome> failed = responsesupstream::errorIn(parsed)) {
        failed->httpStatus = httpStatus;
        return *failed;
    }
    QJsonObject completion = responsesupstream::chatCompletion(parsed, usage);
    if (answer)
        *answer = OpenAiAnswer::fromObject(std::move(completion));
    return outcome;
}

std::optional<UpstreamRequest> OpenAiCompatAdapter::embeddingsRequest(const QJsonObject &openAiBody,
                                                                    const AdapterContext &context) const
{
    UpstreamRequest request = makeRequest(context, baseUrlOf(context, defaultBaseUrl()), u"/embeddings");
    request.headers.set("Content-Type", "application/json");
    request.headers.set("Accept", "application/json");
    if (std::optional<QByteArray> forwarded = clientBytesForwarded(context, false, false))
        request.body = std::move(*forwarded);
    else
        request.body = compactJson(withUpstreamModel(openAiBody, context));
    return request;
}

UpstreamRequest OpenAiCompatAdapter::probeRequest(const AdapterContext &context) const
{
    UpstreamRequest request = makeRequest(context, baseUrlOf(context, defaultBaseUrl()), u"/models");
    request.method = "GET";
    request.headers.set("Accept", "application/json");
    return request;
}

Outcome OpenAiCompatAdapter::classify(int httpStatus, const HttpHeaders &headers, const QByteArray &body) const
{
    return OpenAiCompatErrorMap::classify(httpStatus, headers, body);
}

std::optional<QString> OpenAiCompatAdapter::answerProblem(const HttpHeaders &, const QByteArray &body, bool embeddings) const
{
    JsonObjectScan scan;
    if (scan.scan(body) && OpenAiCompatAnswerShape::isWellFormed(body, scan, embeddings))
        return std::nullopt;
    QJsonObject object;
    if (!parseJsonObject(body, &object))
        return kNotOneObject;
    return OpenAiCompatAnswerShape::problem(object, embeddings);
}

QJsonObject OpenAiCompatAdapter::chatResponse(const QByteArray &body, TokenUsage *usage) const
{
    QJsonObject object;
    if (!parseJsonObject(body, &object))
        return QJsonObject();
    if (usage)
        *usage = usageFromOpenAi(object.value(QLatin1String("usage")).toObject());
    return object;
}

QJsonObject OpenAiCompatAdapter::embeddingsResponse(const QByteArray &body, TokenUsage *usage) const
{
    return chatResponse(body, usage); // same envelope rules: pass through, read "usage"
}

Outcome OpenAiCompatAdapter::classifyAnswer(int httpStatus, const HttpHeaders &headers, const QByteArray &body,
                                            bool embeddings, OpenAiAnswer *answer, TokenUsage *usage) const
{
    // Chat and embeddings answers pass through alike. The usual one, a clean success in the shape
    // of an answer, goes out as the provider wrote it (only its "usage" member is parsed); anything
    // else is parsed once here and the object the ErrorMap parsed is the answer, if it is one.
    JsonObjectScan scan;
    if (OpenAiCompatErrorMap::isCleanAnswer(httpStatus, headers, body, &scan)
        && OpenAiCompatAnswerShape::isWellFormed(body, scan, embeddings)) {
        if (std::optional<OpenAiAnswer> passed = OpenAiAnswer::passThrough(body, scan)) {
            if (usage) {
                const JsonObjectScan::Member *member = scan.find("usage");
                *usage = member ? usageFromScannedOpenAiJson(member->valueIn(body))
                                : usageFromOpenAi(QJsonObject());
            }
            *answer = std::move(*passed);
            return Outcome::success(httpStatus);
        }
    }
    QJsonObject parsed;
    const Outcome outcome = OpenAiCompatErrorMap::classify(httpStatus, headers, body, &parsed);
    if (outcome.isSuccess()) {
        // A 2xx without an error is still no answer when it is not one: an event stream or a list
        // (nothing parsed), `{}`, no choices, a choice without a message.
        if (parsed.isEmpty() && !body.trimmed().startsWith('{'))
            return malformedAnswerOutcome(httpStatus, kNotOneObject);
        if (std::optional<QString> problem = OpenAiCompatAnswerShape::problem(parsed, embeddings))
            return malformedAnswerOutcome(httpStatus, *problem);
        if (usage)
            *usage = usageFromOpenAi(parsed.value(QLatin1String("usage")).toObject());
        *answer = OpenAiAnswer::fromObject(std::move(parsed));
    }
    return outcome;
}

std::unique_ptr<StreamTranslator> OpenAiCompatAdapter::streamTranslator(const QJsonObject &openAiBody) const
{
    return std::make_unique<OpenAiCompatStreamTranslator>(openAiBody.value(QLatin1String("model")).toString(),
                                                          clientWantsUsage(openAiBody));
}

} // namespace sb
