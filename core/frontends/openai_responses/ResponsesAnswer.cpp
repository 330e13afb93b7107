#include "frontends/openai_responses/ResponsesAnswer.h"

#include "common/json/JsonText.h"
#include "frontends/ChatMessageParts.h"
#include "frontends/openai_responses/ResponseObject.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <string>

namespace sb {

namespace {

const QLatin1String kCompleted("completed");


qint64 count(const QJsonObject &object, const char *key)
{
    return qMax<qint64>(0, object.value(QLatin1String(key)).toInteger());
}

// One tool call of the upstream as the item the client runs: a custom tool's call as
// custom_tool_call with its input decoded, any other as function_call.
QJsonObject toolCallItem(const ResponseFrame &frame, int outputIndex, const QString &upstreamId, const QString &name,
                         const QString &arguments, QSet<QString> *usedCallIds)
{
    const QString callId = ResponseObject::callId(frame, upstreamId, outputIndex, usedCallIds);
    if (frame.customTools.contains(name))
        return ResponseObject::customToolCall(ResponseObject::itemId(frame, QLatin1String("ctc"), outputIndex), kCompleted, callId, name,
                                             ResponseObject::customToolInput(arguments));
    return ResponseObject::functionCall(ResponseObject::itemId(frame, QLatin1String("fc"), outputIndex), kCompleted, callId, name,
                                       arguments);
}

} // namespace

ResponsesAnswer::UsageCounts ResponsesAnswer::usageCounts(const QJsonObject &chatUsage)
{
    UsageCounts counts;
    counts.input = count(chatUsage, "prompt_tokens");
    counts.output = count(chatUsage, "completion_tokens");
    const QJsonObject promptDetails = chatUsage.value(QLatin1String("prompt_tokens_details")).toObject();
    const QJsonValue cachedValue = promptDetails.value(QLatin1String("cached_tokens")).isDouble()
        ? promptDetails.value(QLatin1String("cached_tokens"))
        : chatUsage.value(QLatin1String("prompt_cache_hit_tokens"));
    counts.cached = cachedValue.toInteger();
    counts.cacheWrite = count(promptDetails, "cache_write_tokens");
    counts.reasoning = count(chatUsage.value(QLatin1String("completion_tokens_details")).toObject(), "reasoning_tokens");
    const QJsonValue total = chatUsage.value(QLatin1String("total_tokens"));
    counts.total = total.isDouble() ? qMax<qint64>(0, total.toInteger()) : -1;
    return counts;
}

QByteArray ResponsesAnswer::usageJson(const UsageCounts &counts)
{
    // Twelve pieces: a std::string takes them for a fraction of QByteArray::append's cost each.
    std::string out;
    out.reserve(192);
    out.append("{\"input_tokens\":");
    appendJsonNumber(&out, counts.input);
    out.append(",\"input_tokens_details\":{\"cached_tokens\":");
    appendJsonNumber(&out, qBound<qint64>(0, counts.cached, counts.input));
    out.append(",\"cache_write_tokens\":");
    appendJsonNumber(&out, counts.cacheWrite);
    out.append("},\"output_tokens\":");
    appendJsonNumber(&out, counts.output);
    out.append(",\"output_tokens_details\":{\"reasoning_tokens\":");
    appendJsonNumber(&out, counts.reasoning);
    out.append("},\"total_tokens\":");
    appendJsonNumber(&out, counts.total >= 0 ? counts.total : counts.input + counts.output);
    out += '}';
    return QByteArray(out.data(), qsizetype(out.size()));
}

QByteArray ResponsesAnswer::usageJson(const QJsonObject &chatUsage)
{
    return usageJson(usageCounts(chatUsage));
}

QJsonObject ResponsesAnswer::usage(const QJsonObject &chatUsage)
{
    return QJsonDocument::fromJson(usageJson(chatUsage)).object();
}

QByteArray ResponsesAnswer::write(const QJsonObject &completion, const ResponseFrame &frame)
{
    const QJsonObject choice = completion.value(QLatin1String("choices")).toArray().at(0).toObject();
    const QJsonObject message = choice.value(QLatin1String("message")).toObject();
    QJsonArray output;

    const QString reasoning = chatReasoning(message);
    if (!reasoning.isEmpty())
        output.append(ResponseObject::reasoning(ResponseObject::itemId(frame, QLatin1String("rs"), int(output.size())), kCompleted,
                                               QJsonArray{ResponseObject::summaryText(reasoning)}));

    QJsonArray content;
    const QString text = chatText(message.value(QLatin1String("content")));
    if (!text.isEmpty())
        content.append(ResponseObject::outputText(text));
    const QString refusal = message.value(QLatin1String("refusal")).toString();
    if (!refusal.isEmpty())
        content.append(ResponseObject::refusal(refusal));
    if (!content.isEmpty())
        output.append(ResponseObject::message(ResponseObject::itemId(frame, QLatin1String("msg"), int(output.size())), kCompleted, content));

    QSet<QString> usedCallIds;
    const QJsonArray calls = message.value(QLatin1String("tool_calls")).toArray();
    for (const QJsonValue &value : calls) {
        const QJsonObject call = value.toObject();
        const QJsonObject function = call.value(QLatin1String("function")).toObject();
        output.append(toolCallItem(frame, int(output.size()), call.value(QLatin1String("id")).toString(),
                                   function.value(QLatin1String("name")).toString(), function.value(QLatin1String("arguments")).toString(),
                                   &usedCallIds));
    }
    // The legacy single function_call of older OpenAI answers.
    const QJsonObject functionCall = message.value(QLatin1String("function_call")).toObject();
    if (calls.isEmpty() && !functionCall.isEmpty())
        output.append(toolCallItem(frame, int(output.size()), QString(), functionCall.value(QLatin1String("name")).toString(),
                                   functionCall.value(QLatin1String("arguments")).toString(), &usedCallIds));

    // An answer cut short was cut in its last item, which says so as OpenAI's do.
    const QString reason = ResponseObject::incompleteReason(choice.value(QLatin1String("finish_reason")).toString());
    if (!reason.isEmpty() && !output.isEmpty()) {
        QJsonObject last = output.last().toObject();
        last.insert(QStringLiteral("status"), QStringLiteral("incomplete"));
        output.replace(output.size() - 1, last);
    }

    ResponseEnding ending = ResponseEnding::finished(reason);
    ending.output = QJsonDocument(output).toJson(QJsonDocument::Compact);
    const QJsonObject chatUsage = completion.value(QLatin1String("usage")).toObject();
    if (!chatUsage.isEmpty())
        ending.usage = usageJson(chatUsage);
    return ResponseObject::write(frame, ending);
}

QJsonObject ResponsesAnswer::fromChatCompletion(const QJsonObject &completion, const ResponseFrame &frame)
{
    return QJsonDocument::fromJson(write(completion, frame)).object();
}

} // namespace sb
