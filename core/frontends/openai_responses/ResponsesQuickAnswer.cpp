#include "frontends/openai_responses/ResponsesQuickAnswer.h"

#include "common/json/JsonLiterals.h"
#include "common/json/JsonObjectScan.h"
#include "common/json/JsonText.h"
#include "common/json/JsonWalk.h"
#include "frontends/openai_responses/ResponseObject.h"
#include "frontends/openai_responses/ResponsesAnswer.h"

#include <QJsonDocument>
#include <QVarLengthArray>

#include <algorithm>
#include <string>

namespace sb {

namespace {

using jsonwalk::Span;
namespace literal = jsonliteral;

bool isNull(QByteArrayView value) { return value == QByteArrayView("null"); }

// What the answer side reads of choices[0].
struct Choice {
    QByteArrayView text;         // the content's literal, quotes included
    QByteArrayView finishReason; // its contents, or empty
};

// The message's members that ResponsesAnswer::write reads must be of the easy kind; the others
// (role, annotations, audio…) it ignores, and so does this.
bool easyMessage(QByteArrayView json, Span message, Choice *choice)
{
    if (message.in(json).front() != '{')
        return false;
    int contents = 0;
    const bool walked = jsonwalk::forEachMember(json, message.begin, [&](QByteArrayView key, Span span) {
        const QByteArrayView value = span.in(json);
        if (jsonliteral::hasEscape(key))
            return false; // an escaped key could be one of those read below
        if (key == "content") {
            choice->text = value;
            return ++contents == 1 && literal::isString(value);
        }
        if (key == "refusal" || key == "tool_calls" || key == "function_call" || key == "reasoning_content" || key == "reasoning")
            return isNull(value);
        return true;
    });
    return walked && contents == 1;
}

bool easyChoice(QByteArrayView json, Span choiceSpan, Choice *choice)
{
    if (choiceSpan.in(json).front() != '{')
        return false;
    int messages = 0, reasons = 0;
    const bool walked = jsonwalk::forEachMember(json, choiceSpan.begin, [&](QByteArrayView key, Span span) {
        const QByteArrayView value = span.in(json);
        if (jsonliteral::hasEscape(key))
            return false;
        if (key == "message")
            return ++messages == 1 && easyMessage(json, span, choice);
        if (key == "finish_reason") {
            if (++reasons != 1)
                return false;
            if (isNull(value))
                return true;
            const std::optional<QByteArrayView> reason = literal::plainString(value);
            choice->finishReason = reason.value_or(QByteArrayView());
            return reason.has_value();
        }
        return true;
    });
    return walked && messages == 1;
}

// choices: an array of exactly one easy choice.
bool onlyChoice(QByteArrayView json, Span choices, Choice *choice)
{
    if (choices.in(json).front() != '[')
        return false;
    int count = 0;
    const bool walked = jsonwalk::forEachElement(json, choices.begin, [&](Span element) {
        return ++count == 1 && easyChoice(json, element, choice);
    });
    return walked && count == 1;
}

// Each member of `object` once, keys without escapes, f(key, value) accepting it.
template <typename F>
bool distinctMembers(QByteArrayView json, Span object, F &&f)
{
    if (object.in(json).front() != '{')
        return false;
    QVarLengthArray<QByteArrayView, 8> seen;
    return jsonwalk::forEachMember(json, object.begin, [&](QByteArrayView key, Span value) {
        if (jsonliteral::hasEscape(key) || std::find(seen.cbegin(), seen.cend(), key) != seen.cend())
            return false;
        seen.append(key);
        return f(key, value.in(json));
    });
}

// A count as the object path reads one (toInteger, at least 0), for a plain integer.
bool readCount(QByteArrayView value, qint64 *out)
{
    const std::optional<qint64> n = literal::plainInteger(value);
    if (n)
        *out = *n;
    return n.has_value();
}

// The counts of a usage object whose numbers are all plain integers; "not sure" otherwise.
std::optional<ResponsesAnswer::UsageCounts> usageCounts(QByteArrayView json, Span usage)
{
    ResponsesAnswer::UsageCounts counts;
    std::optional<qint64> detailsCached, hitTokens;
    int members = 0;
    const auto details = [&](Span object, auto &&member) {
        return isNull(object.in(json)) || distinctMembers(json, object, member);
    };
    const bool read = distinctMembers(json, usage, [&](QByteArrayView key, QByteArrayView value) {
        const Span span{value.data() - json.data(), value.data() - json.data() + value.size()};
        ++members;
        if (key == "prompt_tokens")
            return readCount(value, &counts.input);
        if (key == "completion_tokens")
            return readCount(value, &counts.output);
        if (key == "total_tokens")
            return readCount(value, &counts.total);
        if (key == "prompt_cache_hit_tokens")
            return (hitTokens = literal::plainInteger(value)).has_value();
        if (key == "prompt_tokens_details")
            return details(span, [&](QByteArrayView k, QByteArrayView v) {
                if (k == "cached_tokens")
                    return (detailsCached = literal::plainInteger(v)).has_value();
                if (k == "cache_write_tokens")
                    return readCount(v, &counts.cacheWrite);
                return true;
            });
        if (key == "completion_tokens_details")
            return details(span, [&](QByteArrayView k, QByteArrayView v) { return k != "reasoning_tokens" || readCount(v, &counts.reasoning); });
        return true;
    });
    if (!read || members == 0) // an empty usage object is no usage, as the object path reads it
        return std::nullopt;
    counts.cached = detailsCached ? *detailsCached : hitTokens.value_or(0);
    return counts;
}

QByteArray outputText(const ResponseFrame &frame, QByteArrayView text, QByteArrayView status)
{
    // The members in the order QJsonDocument writes them, as the object path does.
    std::string out;
    out.reserve(std::size_t(text.size()) + 192);
    out.append("[{\"content\":[{\"annotations\":[],\"logprobs\":[],\"text\":");
    out.append(text.data(), std::size_t(text.size()));
    out.append(",\"type\":\"output_text\"}],\"id\":");
    appendJsonString(&out, ResponseObject::itemId(frame, QLatin1String("msg"), 0));
    out.append(",\"role\":\"assistant\",\"status\":\"");
    out.append(status.data(), std::size_t(status.size()));
    out.append("\",\"type\":\"message\"}]");
    return QByteArray(out.data(), qsizetype(out.size()));
}

} // namespace

std::optional<QByteArray> quickWriteResponse(QByteArrayView completion, const ResponseFrame &frame)
{
    JsonObjectScan scan;
    if (!scan.scan(completion))
        return std::nullopt;
    return quickWriteResponse(completion, scan, frame);
}

std::optional<QByteArray> quickWriteResponse(QByteArrayView completion, const JsonObjectScan &scan, const ResponseFrame &frame)
{
    const JsonObjectScan::Member *choices = scan.find("choices");
    Choice choice;
    if (!choices || !onlyChoice(completion, Span{choices->valueBegin, choices->valueEnd}, &choice))
        return std::nullopt;

    const QString reason = ResponseObject::incompleteReason(QString::fromLatin1(choice.finishReason));
    ResponseEnding ending = ResponseEnding::finished(reason);
    // An empty answer has no message item; an answer cut short was cut in it, which says so.
    if (choice.text.size() > 2) {
        ending.output = outputText(frame, choice.text, reason.isEmpty() ? QByteArrayView("completed") : QByteArrayView("incomplete"));
    }
    if (const JsonObjectScan::Member *usage = scan.find("usage"); usage && !isNull(usage->valueIn(completion))) {
        if (const std::optional<ResponsesAnswer::UsageCounts> counts = usageCounts(completion, Span{usage->valueBegin, usage->valueEnd})) {
            ending.usage = ResponsesAnswer::usageJson(*counts);
        } else {
            const QJsonObject chatUsage = QJsonDocument::fromJson(usage->valueIn(completion).toByteArray()).object();
            if (!chatUsage.isEmpty())
                ending.usage = ResponsesAnswer::usageJson(chatUsage);
        }
    }
    return ResponseObject::write(frame, ending);
}

} // namespace sb
