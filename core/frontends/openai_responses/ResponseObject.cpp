#include "frontends/openai_responses/ResponseObject.h"

#include "providers/common/ProviderText.h"

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

QString ResponseObject::itemId(const ResponseFrame &frame, QLatin1String prefix, int outputIndex)
{
    const QString base = frame.id.startsWith(QLatin1String("resp_")) ? frame.id.mid(5) : frame.id;
    return QStringLiteral("%1_%2_%3").arg(prefix, base).arg(outputIndex);
}

QString ResponseObject::callId(const ResponseFrame &frame, const QString &upstreamId, int outputIndex, QSet<QString> *used)
{
    QString id = upstreamId.isEmpty() ? itemId(frame, QLatin1String("call"), outputIndex) : upstreamId;
    if (used->contains(id))
        id += QStringLiteral("_%1").arg(outputIndex);
    used->insert(id);
    return id;
}

QJsonObject ResponseObject::response(const ResponseFrame &frame)
{
    QJsonObject out{
        {kId, frame.id},
        {QStringLiteral("object"), QStringLiteral("response")},
        {QStringLiteral("created_at"), frame.createdAt},
        {kStatus, QStringLiteral("in_progress")},
        {QStringLiteral("error"), null()},
        {QStringLiteral("incomplete_details"), null()},
        {QStringLiteral("instructions"), null()},
        {QStringLiteral("max_output_tokens"), null()},
        {QStringLiteral("model"), frame.model},
        {QStringLiteral("output"), QJsonArray()},
        {QStringLiteral("parallel_tool_calls"), true},
        {QStringLiteral("previous_response_id"), null()},
        {QStringLiteral("reasoning"), QJsonObject{{QStringLiteral("effort"), null()}, {QStringLiteral("summary"), null()}}},
        {QStringLiteral("store"), true},
        {QStringLiteral("temperature"), 1.0},
        {QStringLiteral("text"), QJsonObject{{QStringLiteral("format"), QJsonObject{{kType, QStringLiteral("text")}}}}},
        {QStringLiteral("tool_choice"), QStringLiteral("auto")},
        {QStringLiteral("tools"), QJsonArray()},
        {QStringLiteral("top_p"), 1.0},
        {QStringLiteral("truncation"), QStringLiteral("disabled")},
        {QStringLiteral("usage"), null()},
        {QStringLiteral("user"), null()},
        {QStringLiteral("metadata"), QJsonObject()},
    };
    for (auto it = frame.echo.constBegin(); it != frame.echo.constEnd(); ++it)
        if (!ownedByTheResponse(it.key()))
            out.insert(it.key(), it.value());
    return out;
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
