#include "providers/openai_compat/ResponsesUpstream.h"

#include "common/HttpHeaders.h"
#include "providers/common/ProviderText.h"
#include "providers/openai_compat/OpenAiCompatErrorMap.h"

#include <QJsonArray>

namespace sb::responsesupstream {

namespace {

int count(const QJsonObject &object, QLatin1String key)
{
    const QJsonValue value = object.value(key);
    return value.isDouble() ? value.toInt() : -1;
}

QString textOfParts(const QJsonArray &parts, QLatin1String type, QLatin1String field)
{
    QString text;
    for (const QJsonValue &value : parts) {
        const QJsonObject part = value.toObject();
        if (part.value(QLatin1String("type")).toString() == type)
            text += part.value(field).toString();
    }
    return text;
}

} // namespace

TokenUsage usage(const QJsonObject &responsesUsage)
{
    TokenUsage out;
    if (responsesUsage.isEmpty())
        return out;
    out.promptTokens = count(responsesUsage, QLatin1String("input_tokens"));
    out.completionTokens = count(responsesUsage, QLatin1String("output_tokens"));
    out.totalTokens = count(responsesUsage, QLatin1String("total_tokens"));
    if (out.totalTokens < 0 && out.promptTokens >= 0 && out.completionTokens >= 0)
        out.totalTokens = out.promptTokens + out.completionTokens;
    const QJsonObject details = responsesUsage.value(QLatin1String("input_tokens_details")).toObject();
    out.cacheReadTokens = count(details, QLatin1String("cached_tokens"));
    return out;
}

QJsonObject chatUsage(const QJsonObject &responsesUsage)
{
    const TokenUsage counts = usage(responsesUsage);
    QJsonObject out{{QStringLiteral("prompt_tokens"), qMax(0, counts.promptTokens)},
                    {QStringLiteral("completion_tokens"), qMax(0, counts.completionTokens)},
                    {QStringLiteral("total_tokens"), qMax(0, counts.totalTokens)}};
    if (counts.cacheReadTokens >= 0)
        out.insert(QStringLiteral("prompt_tokens_details"), QJsonObject{{QStringLiteral("cached_tokens"), counts.cacheReadTokens}});
    const int reasoning = count(responsesUsage.value(QLatin1String("output_tokens_details")).toObject(), QLatin1String("reasoning_tokens"));
    if (reasoning >= 0)
        out.insert(QStringLiteral("completion_tokens_details"), QJsonObject{{QStringLiteral("reasoning_tokens"), reasoning}});
    return out;
}

std::optional<Outcome> errorIn(const QJsonObject &object)
{
    QJsonObject error;
    if (object.value(QLatin1String("type")).toString() == QLatin1String("error"))
        error = object; // the `error` event: {type, code, message, param, sequence_number}
    else if (object.value(QLatin1String("error")).isObject())
        error = object.value(QLatin1String("error")).toObject();
    else if (object.value(QLatin1String("status")).toString() == QLatin1String("failed"))
        error = QJsonObject{{QStringLiteral("code"), QStringLiteral("server_error")},
                            {QStringLiteral("message"), QStringLiteral("The upstream's response failed without saying why.")}};
    else
        return std::nullopt;
    // OpenAI's error words are those of its chat errors; the ErrorMap reads them. A 200 with an
    // unknown code is a provider failure, never a success.
    QJsonObject envelope{{QStringLiteral("code"), error.value(QLatin1String("code"))},
                         {QStringLiteral("message"), error.value(QLatin1String("message"))}};
    if (error.contains(QLatin1String("param")))
        envelope.insert(QStringLiteral("param"), error.value(QLatin1String("param")));
    if (std::optional<Outcome> outcome = OpenAiCompatErrorMap::errorInObject(QJsonObject{{QStringLiteral("error"), envelope}}, 200, HttpHeaders()))
        return outcome;
    Outcome outcome;
    outcome.kind = OutcomeKind::ProviderDown;
    outcome.httpStatus = 200;
    outcome.providerCode = QStringLiteral("response_failed");
    outcome.message = cleanProviderMessage(error.value(QLatin1String("message")).toString());
    return outcome;
}

QString finishReason(const QJsonObject &response, bool calledTools)
{
    if (response.value(QLatin1String("status")).toString() == QLatin1String("incomplete")) {
        const QString reason = response.value(QLatin1String("incomplete_details")).toObject().value(QLatin1String("reason")).toString();
        return reason == QLatin1String("content_filter") ? QStringLiteral("content_filter") : QStringLiteral("length");
    }
    return calledTools ? QStringLiteral("tool_calls") : QStringLiteral("stop");
}

QJsonObject chatCompletion(const QJsonObject &response, TokenUsage *usageOut)
{
    QString content, reasoning;
    QJsonArray toolCalls;
    for (const QJsonValue &value : response.value(QLatin1String("output")).toArray()) {
        const QJsonObject item = value.toObject();
        const QString type = item.value(QLatin1String("type")).toString();
        if (type == QLatin1String("message")) {
            const QJsonArray parts = item.value(QLatin1String("content")).toArray();
            content += textOfParts(parts, QLatin1String("output_text"), QLatin1String("text"));
            content += textOfParts(parts, QLatin1String("refusal"), QLatin1String("refusal"));
        } else if (type == QLatin1String("reasoning")) {
            reasoning += textOfParts(item.value(QLatin1String("summary")).toArray(), QLatin1String("summary_text"), QLatin1String("text"));
            reasoning += textOfParts(item.value(QLatin1String("content")).toArray(), QLatin1String("reasoning_text"), QLatin1String("text"));
        } else if (type == QLatin1String("function_call") || type == QLatin1String("custom_tool_call")) {
            const QString arguments = type == QLatin1String("function_call")
                ? item.value(QLatin1String("arguments")).toString()
                : QString::fromUtf8(compactJson(QJsonObject{{QStringLiteral("input"), item.value(QLatin1String("input")).toString()}}));
            toolCalls.append(QJsonObject{{QStringLiteral("id"), item.value(QLatin1String("call_id")).toString()},
                                         {QStringLiteral("type"), QStringLiteral("function")},
                                         {QStringLiteral("function"), QJsonObject{{QStringLiteral("name"), item.value(QLatin1String("name")).toString()},
                                                                                  {QStringLiteral("arguments"), arguments}}}});
        }
    }
    QJsonObject message{{QStringLiteral("role"), QStringLiteral("assistant")},
                        {QStringLiteral("content"), content.isEmpty() && !toolCalls.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(content)}};
    if (!reasoning.isEmpty())
        message.insert(QStringLiteral("reasoning_content"), reasoning);
    if (!toolCalls.isEmpty())
        message.insert(QStringLiteral("tool_calls"), toolCalls);
    const QJsonObject responsesUsage = response.value(QLatin1String("usage")).toObject();
    if (usageOut)
        *usageOut = usage(responsesUsage);
    QJsonObject completion{{QStringLiteral("id"), response.value(QLatin1String("id")).toString()},
                           {QStringLiteral("object"), QStringLiteral("chat.completion")},
                           {QStringLiteral("created"), response.value(QLatin1String("created_at")).toInteger()},
                           {QStringLiteral("model"), response.value(QLatin1String("model")).toString()},
                           {QStringLiteral("choices"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                                                              {QStringLiteral("message"), message},
                                                                              {QStringLiteral("finish_reason"), finishReason(response, !toolCalls.isEmpty())}}}}};
    if (!responsesUsage.isEmpty())
        completion.insert(QStringLiteral("usage"), chatUsage(responsesUsage));
    return completion;
}

} // namespace sb::responsesupstream
