#include "frontends/openai_responses/ResponseObject.h"

#include "common/json/JsonText.h"
#include "providers/common/ProviderText.h"

#include <QJsonDocument>

#include <algorithm>
#include <iterator>
#include <string>

namespace sb {

namespace {

const QLatin1String kType("type"), kId("id"), kStatus("status");

QJsonValue null() { return QJsonValue(QJsonValue::Null); }

// What the response says of itself; a request parameter of the same name cannot change it.
bool ownedByTheResponse(const QString &key)
{
    static const QSet<QString> owned{QStringLiteral("id"),     QStringLiteral("object"),       QStringLiteral("created_at"),
                                     QStringLiteral("status"), QStringLiteral("completed_at"), QStringLiteral("error"),
                                     QStringLiteral("incomplete_details"), QStringLiteral("model"), QStringLiteral("output"),
                                     QStringLiteral("output_text"), QStringLiteral("usage")};
    return owned.contains(key);
}

} // namespace

ResponseEnding ResponseEnding::finished(const QString &incompleteReason)
{
    ResponseEnding ending;
    ending.status = incompleteReason.isEmpty() ? QByteArrayView("completed") : QByteArrayView("incomplete");
    if (!incompleteReason.isEmpty()) {
        ending.incompleteDetails = "{\"reason\":";
        appendJsonString(&ending.incompleteDetails, incompleteReason);
        ending.incompleteDetails += '}';
    }
    return ending;
}

QString ResponseObject::itemId(const ResponseFrame &frame, QLatin1String prefix, int outputIndex)
{
    const QStringView base = frame.id.startsWith(QLatin1String("resp_")) ? QStringView(frame.id).mid(5) : QStringView(frame.id);
    QString id;
    id.reserve(prefix.size() + base.size() + 8);
    id.append(prefix).append(QLatin1Char('_')).append(base).append(QLatin1Char('_')).append(QString::number(outputIndex));
    return id;
}

QString ResponseObject::callId(const ResponseFrame &frame, const QString &upstreamId, int outputIndex, QSet<QString> *used)
{
    QString id = upstreamId.isEmpty() ? itemId(frame, QLatin1String("call"), outputIndex) : upstreamId;
    if (used->contains(id))
        id += QStringLiteral("_%1").arg(outputIndex);
    used->insert(id);
    return id;
}

namespace {

// The members a response repeats from its request, in the reference's order, each with the value
// OpenAI documents for a request that did not give it; a frame's echo replaces the value.
struct EchoedMember {
    QLatin1String key;
    const char *fallback;
};
const EchoedMember kBeforeModel[] = {{QLatin1String("instructions"), "null"}, {QLatin1String("max_output_tokens"), "null"}};
const EchoedMember kAfterOutput[] = {
    {QLatin1String("parallel_tool_calls"), "true"},
    {QLatin1String("previous_response_id"), "null"},
    {QLatin1String("reasoning"), R"({"effort":null,"summary":null})"},
    {QLatin1String("store"), "true"},
    {QLatin1String("temperature"), "1"},
    {QLatin1String("text"), R"({"format":{"type":"text"}})"},
    {QLatin1String("tool_choice"), R"("auto")"},
    {QLatin1String("tools"), "[]"},
    {QLatin1String("top_p"), "1"},
    {QLatin1String("truncation"), R"("disabled")"},
};
const EchoedMember kAfterUsage[] = {{QLatin1String("user"), "null"}, {QLatin1String("metadata"), "{}"}};

void appendKey(std::string *out, QLatin1String key)
{
    out->append(",\"");
    out->append(key.data(), std::size_t(key.size()));
    out->append("\":");
}

template <std::size_t N>
void appendEchoed(std::string *out, const QJsonObject &echo, const EchoedMember (&members)[N])
{
    for (const EchoedMember &member : members) {
        appendKey(out, member.key);
        const auto it = echo.constFind(member.key);
        if (it == echo.constEnd())
            out->append(member.fallback);
        else
            appendJsonValue(out, it.value());
    }
}

bool listedAsEchoed(const QString &key)
{
    const auto in = [&key](const auto &members) {
        return std::any_of(std::begin(members), std::end(members), [&key](const EchoedMember &m) { return key == m.key; });
    };
    return in(kBeforeModel) || in(kAfterOutput) || in(kAfterUsage);
}

} // namespace

QByteArray ResponseObject::write(const ResponseFrame &frame, const ResponseEnding &ending)
{
    // Built in a std::string: some fifty pieces, each a call into QByteArray's general insert
    // otherwise (a third of what writing the object cost).
    std::string out;
    out.reserve(std::size_t(640 + ending.output.size() + ending.usage.size()));
    out.append("{\"id\":");
    appendJsonString(&out, frame.id);
    out.append(",\"object\":\"response\",\"created_at\":");
    appendJsonNumber(&out, frame.createdAt);
    out.append(",\"status\":\"");
    appendJsonText(&out, ending.status);
    out.append("\",\"error\":");
    appendJsonText(&out, ending.error);
    out.append(",\"incomplete_details\":");
    appendJsonText(&out, ending.incompleteDetails);
    appendEchoed(&out, frame.echo, kBeforeModel);
    out.append(",\"model\":");
    appendJsonString(&out, frame.model);
    out.append(",\"output\":");
    appendJsonText(&out, ending.output);
    appendEchoed(&out, frame.echo, kAfterOutput);
    out.append(",\"usage\":");
    appendJsonText(&out, ending.usage);
    appendEchoed(&out, frame.echo, kAfterUsage);
    // Whatever else the request asked the response to repeat, after what the reference lists.
    for (auto it = frame.echo.constBegin(); it != frame.echo.constEnd(); ++it) {
        if (ownedByTheResponse(it.key()) || listedAsEchoed(it.key()))
            continue;
        out += ',';
        appendJsonString(&out, it.key());
        out += ':';
        appendJsonValue(&out, it.value());
    }
    out += '}';
    return QByteArray(out.data(), qsizetype(out.size()));
}

QJsonObject ResponseObject::response(const ResponseFrame &frame)
{
    return QJsonDocument::fromJson(write(frame, ResponseEnding{})).object();
}

QString ResponseObject::incompleteReason(const QString &finishReason)
{
    if (finishReason == QLatin1String("length"))
        return QStringLiteral("max_output_tokens");
    if (finishReason == QLatin1String("content_filter"))
        return QStringLiteral("content_filter");
    return QString();
}

void ResponseObject::conclude(QJsonObject *response, const QString &incompleteReason, const QJsonArray &output, const QJsonValue &usage)
{
    response->insert(kStatus, incompleteReason.isEmpty() ? QStringLiteral("completed") : QStringLiteral("incomplete"));
    response->insert(QStringLiteral("incomplete_details"),
                     incompleteReason.isEmpty() ? null() : QJsonValue(QJsonObject{{QStringLiteral("reason"), incompleteReason}}));
    response->insert(QStringLiteral("output"), output);
    response->insert(QStringLiteral("usage"), usage);
}

void ResponseObject::fail(QJsonObject *response, const ApiError &error, const QJsonArray &output)
{
    QString code = error.code;
    if (code.isEmpty())
        code = error.status == 429 ? QStringLiteral("rate_limit_exceeded") : QStringLiteral("server_error");
    response->insert(kStatus, QStringLiteral("failed"));
    response->insert(QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), code}, {QStringLiteral("message"), error.message}});
    response->insert(QStringLiteral("output"), output);
}

QJsonObject ResponseObject::outputText(const QString &text)
{
    // logprobs is required by the reference; an upstream's chat logprobs are not carried over.
    return QJsonObject{{kType, QStringLiteral("output_text")},
                       {QStringLiteral("text"), text},
                       {QStringLiteral("annotations"), QJsonArray()},
                       {QStringLiteral("logprobs"), QJsonArray()}};
}

QJsonObject ResponseObject::refusal(const QString &text)
{
    return QJsonObject{{kType, QStringLiteral("refusal")}, {QStringLiteral("refusal"), text}};
}

QJsonObject ResponseObject::summaryText(const QString &text)
{
    return QJsonObject{{kType, QStringLiteral("summary_text")}, {QStringLiteral("text"), text}};
}

QJsonObject ResponseObject::message(const QString &id, const QString &status, const QJsonArray &content)
{
    return QJsonObject{{kId, id},
                       {kType, QStringLiteral("message")},
                       {kStatus, status},
                       {QStringLiteral("role"), QStringLiteral("assistant")},
                       {QStringLiteral("content"), content}};
}

QJsonObject ResponseObject::reasoning(const QString &id, const QString &status, const QJsonArray &summary)
{
    return QJsonObject{{kId, id}, {kType, QStringLiteral("reasoning")}, {kStatus, status}, {QStringLiteral("summary"), summary}};
}

QJsonObject ResponseObject::functionCall(const QString &id, const QString &status, const QString &callId, const QString &name,
                                        const QString &arguments)
{
    return QJsonObject{{kId, id},
                       {kType, QStringLiteral("function_call")},
                       {kStatus, status},
                       {QStringLiteral("call_id"), callId},
                       {QStringLiteral("name"), name},
                       {QStringLiteral("arguments"), arguments}};
}

QJsonObject ResponseObject::customToolCall(const QString &id, const QString &status, const QString &callId, const QString &name,
                                          const QString &input)
{
    return QJsonObject{{kId, id},
                       {kType, QStringLiteral("custom_tool_call")},
                       {kStatus, status},
                       {QStringLiteral("call_id"), callId},
                       {QStringLiteral("name"), name},
                       {QStringLiteral("input"), input}};
}

QString ResponseObject::customToolInput(const QString &arguments)
{
    QJsonObject object;
    if (parseJsonObject(arguments.toUtf8(), &object)) {
        const QJsonValue input = object.value(QLatin1String("input"));
        if (input.isString())
            return input.toString();
    }
    return arguments;
}

} // namespace sb
