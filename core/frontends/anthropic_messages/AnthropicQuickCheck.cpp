#include "frontends/anthropic_messages/AnthropicQuickCheck.h"

#include "common/json/JsonLiterals.h"
#include "common/json/JsonObjectScan.h"
#include "common/json/JsonWalk.h"

#include <QSet>

#include <cmath>
#include <limits>

namespace sb {

namespace {

using jsonwalk::Span;

using jsonliteral::isString;
using jsonliteral::plainInteger;
using jsonliteral::plainString;

bool isNonEmptyString(QByteArrayView value) { return isString(value) && value.size() > 2; }

// A number in [0, 1], as temperature and top_p must be.
bool unitInterval(QByteArrayView value)
{
    if (value.isEmpty() || value.front() == '-' || value.front() == '"')
        return false;
    bool ok = false;
    const double d = value.toDouble(&ok);
    return ok && std::isfinite(d) && d >= 0.0 && d <= 1.0;
}

// An object with exactly the members `f` accepts, each once: f(key, value) says whether the member
// is one it knows and its value is acceptable, and counts it.
template <typename F>
bool members(QByteArrayView json, Span object, F &&f)
{
    if (object.in(json).front() != '{')
        return false;
    return jsonwalk::forEachMember(json, object.begin, std::forward<F>(f));
}

// {"type":"text","text":"…"} with a non-empty text and nothing else: the block every turn and
// system prompt is made of in the usual request.
bool textBlock(QByteArrayView json, Span block)
{
    int types = 0, texts = 0;
    const bool walked = members(json, block, [&](QByteArrayView key, Span value) {
        if (key == "type")
            return ++types == 1 && value.in(json) == QByteArrayView("\"text\"");
        if (key == "text")
            return ++texts == 1 && isNonEmptyString(value.in(json));
        return false;
    });
    return walked && types == 1 && texts == 1;
}

// A string, or a non-empty list of text blocks.
bool textContent(QByteArrayView json, Span content)
{
    const QByteArrayView value = content.in(json);
    if (isString(value))
        return true;
    if (value.front() != '[')
        return false;
    int blocks = 0;
    const bool walked = jsonwalk::forEachElement(json, content.begin, [&](Span block) {
        ++blocks;
        return textBlock(json, block);
    });
    return walked && blocks > 0;
}

bool message(QByteArrayView json, Span message)
{
    int roles = 0, contents = 0;
    const bool walked = members(json, message, [&](QByteArrayView key, Span value) {
        if (key == "role") {
            const QByteArrayView role = value.in(json);
            return ++roles == 1 && (role == QByteArrayView("\"user\"") || role == QByteArrayView("\"assistant\""));
        }
        if (key == "content")
            return ++contents == 1 && textContent(json, value);
        return false;
    });
    return walked && roles == 1 && contents == 1;
}

bool messages(QByteArrayView json, Span list)
{
    if (list.in(json).front() != '[')
        return false;
    int count = 0;
    const bool walked = jsonwalk::forEachElement(json, list.begin, [&](Span item) {
        ++count;
        return message(json, item);
    });
    return walked && count > 0;
}

bool stopSequences(QByteArrayView json, Span list, QStringList *out)
{
    if (list.in(json).front() != '[')
        return false;
    return jsonwalk::forEachElement(json, list.begin, [&](Span item) {
        const std::optional<QByteArrayView> text = plainString(item.in(json));
        if (!text)
            return false;
        *out << QString::fromUtf8(*text);
        return true;
    });
}

bool metadata(QByteArrayView json, Span object)
{
    int users = 0;
    const bool walked = members(json, object, [&](QByteArrayView key, Span value) {
        return key == "user_id" && ++users == 1 && isString(value.in(json));
    });
    return walked;
}

} // namespace

std::optional<AnthropicRequest> quickCheckAnthropicRequest(const QByteArray &body)
{
    JsonObjectScan scan;
    if (!scan.scan(body))
        return std::nullopt;
    AnthropicRequest request;
    bool hasModel = false, hasMaxTokens = false, hasMessages = false;
    for (const JsonObjectScan::Member &member : scan.members()) {
        const Span span{member.valueBegin, member.valueEnd};
        const QByteArrayView key = member.key, value = member.valueIn(body);
        bool ok = false;
        if (key == "model") {
            const std::optional<QByteArrayView> model = plainString(value);
            ok = hasModel = model && !model->isEmpty();
            if (ok)
                request.model = QString::fromUtf8(*model);
        } else if (key == "max_tokens") {
            const std::optional<qint64> n = plainInteger(value);
            ok = hasMaxTokens = n && *n >= 1;
            if (ok)
                request.maxTokens = static_cast<int>(std::min<qint64>(*n, std::numeric_limits<int>::max()));
        } else if (key == "messages") {
            ok = hasMessages = messages(body, span);
        } else if (key == "system") {
            ok = textContent(body, span);
        } else if (key == "stream") {
            ok = value == QByteArrayView("true") || value == QByteArrayView("false");
            request.stream = value == QByteArrayView("true");
        } else if (key == "temperature" || key == "top_p") {
            ok = unitInterval(value);
        } else if (key == "stop_sequences") {
            ok = stopSequences(body, span, &request.stopSequences);
        } else if (key == "metadata") {
            ok = metadata(body, span);
        }
        if (!ok)
            return std::nullopt;
    }
    if (!hasModel || !hasMaxTokens || !hasMessages)
        return std::nullopt;
    request.original = body;
    request.estimatedPromptTokens = AnthropicRequest::estimateTokens(body.size());
    return request;
}

} // namespace sb
