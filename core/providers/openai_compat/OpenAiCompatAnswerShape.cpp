#include "providers/openai_compat/OpenAiCompatAnswerShape.h"

#include "common/json/JsonObjectScan.h"
#include "common/json/JsonWalk.h"

#include <QJsonArray>

namespace sb {

namespace {

bool isNonEmptyString(QByteArrayView raw)
{
    return raw.size() > 2 && raw.front() == '"';
}

// `raw` is an array with at least one element.
bool isNonEmptyArray(QByteArrayView raw)
{
    if (raw.size() < 2 || raw.front() != '[')
        return false;
    const qsizetype first = jsonwalk::skipSpace(raw, 1);
    return first < raw.size() && raw[first] != ']';
}

// The message members that are the answer: any one of them makes a choice carry something.
bool carriesSomething(QByteArrayView key, QByteArrayView raw)
{
    if (key == "content" || key == "refusal" || key == "reasoning_content")
        return isNonEmptyString(raw);
    if (key == "tool_calls")
        return isNonEmptyArray(raw);
    if (key == "function_call" || key == "audio")
        return raw.size() > 1 && raw.front() == '{';
    return false;
}

// Where the choice at `at` ends when it is well formed, -1 when it is not. Each byte of it is
// walked once: measuring each choice and its message before walking into them walked the
// message's bytes three times (a fortieth of a proxied request's instructions).
qsizetype wellFormedChoiceEnd(QByteArrayView body, qsizetype at)
{
    if (body[at] != '{')
        return -1;
    bool hasMessage = false;
    bool carries = false;
    const qsizetype end = jsonwalk::walkMembers(body, at, [&](QByteArrayView key, qsizetype value) {
        if (key == "message" && body[value] == '{') {
            hasMessage = true;
            return jsonwalk::walkMembers(body, value, [&](QByteArrayView messageKey, qsizetype messageValue) {
                const qsizetype messageValueEnd = jsonwalk::valueEnd(body, messageValue);
                if (!carries && carriesSomething(messageKey, body.sliced(messageValue, messageValueEnd - messageValue)))
                    carries = true;
                return messageValueEnd;
            });
        }
        const qsizetype valueEnd = jsonwalk::valueEnd(body, value);
        if (key == "finish_reason" && isNonEmptyString(body.sliced(value, valueEnd - value)))
            carries = true;
        return valueEnd;
    });
    return hasMessage && carries ? end : -1;
}

bool messageCarriesSomething(const QJsonObject &message)
{
    for (const char *key : {"content", "refusal", "reasoning_content"}) {
        const QJsonValue value = message.value(QLatin1String(key));
        if ((value.isString() && !value.toString().isEmpty()) || (value.isArray() && !value.toArray().isEmpty()))
            return true;
    }
    if (!message.value(QLatin1String("tool_calls")).toArray().isEmpty())
        return true;
    return message.value(QLatin1String("function_call")).isObject() || message.value(QLatin1String("audio")).isObject();
}

} // namespace

bool OpenAiCompatAnswerShape::isWellFormed(QByteArrayView body, const JsonObjectScan &scan, bool embeddings)
{
    const JsonObjectScan::Member *list = scan.find(embeddings ? "data" : "choices");
    if (!list)
        return false;
    const QByteArrayView raw = list->valueIn(body);
    if (!isNonEmptyArray(raw))
        return false;
    if (embeddings)
        return true;
    return jsonwalk::walkElements(body, list->valueBegin, [&](qsizetype choice) { return wellFormedChoiceEnd(body, choice); }) >= 0;
}

std::optional<QString> OpenAiCompatAnswerShape::problem(const QJsonObject &answer, bool embeddings)
{
    if (embeddings) {
        const QJsonValue data = answer.value(QLatin1String("data"));
        if (!data.isArray())
            return QStringLiteral("an embeddings answer without a data list");
        if (data.toArray().isEmpty())
            return QStringLiteral("an embeddings answer whose data list is empty");
        return std::nullopt;
    }
    const QJsonValue choices = answer.value(QLatin1String("choices"));
    if (!choices.isArray())
        return QStringLiteral("a chat answer without choices");
    if (choices.toArray().isEmpty())
        return QStringLiteral("a chat answer whose choices are empty");
    for (const QJsonValue &value : choices.toArray()) {
        const QJsonObject choice = value.toObject();
        if (!choice.value(QLatin1String("message")).isObject())
            return QStringLiteral("a choice without a message");
        const QJsonValue finish = choice.value(QLatin1String("finish_reason"));
        const bool finished = finish.isString() && !finish.toString().isEmpty();
        if (!finished && !messageCarriesSomething(choice.value(QLatin1String("message")).toObject()))
            return QStringLiteral("a choice with neither content nor a finish reason");
    }
    return std::nullopt;
}

} // namespace sb
