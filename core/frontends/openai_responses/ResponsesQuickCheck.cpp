#include "frontends/openai_responses/ResponsesQuickCheck.h"

#include "common/json/JsonLiterals.h"
#include "common/json/JsonObjectScan.h"
#include "common/json/JsonText.h"
#include "common/json/JsonWalk.h"

#include <limits>
#include <string>

namespace sb {

namespace {

using jsonwalk::Span;
namespace literal = jsonliteral;

bool is(QByteArrayView value, const char *text) { return value == QByteArrayView(text); }

// One input item of the easy kind: {"role": "user" | "system" | "developer", "content": "…"},
// with "type": "message" or none. An assistant turn, content parts or any other member is for
// the full parse (assistant turns merge with the tool calls after them).
struct EasyMessage {
    QByteArrayView role;    // the literal, quotes included
    QByteArrayView content; // the literal, quotes included
};

std::optional<EasyMessage> easyMessage(QByteArrayView json, Span item)
{
    if (item.in(json).front() != '{')
        return std::nullopt;
    EasyMessage message;
    int types = 0;
    const bool walked = jsonwalk::forEachMember(json, item.begin, [&](QByteArrayView key, Span value) {
        const QByteArrayView v = value.in(json);
        if (key == "role") {
            if (!message.role.isEmpty() || !(is(v, "\"user\"") || is(v, "\"system\"") || is(v, "\"developer\"")))
                return false;
            message.role = v;
            return true;
        }
        if (key == "content") {
            if (!message.content.isEmpty() || !literal::isString(v))
                return false;
            message.content = v;
            return true;
        }
        if (key == "type")
            return ++types == 1 && is(v, "\"message\"");
        return false;
    });
    if (!walked || message.role.isEmpty() || message.content.isEmpty())
        return std::nullopt;
    return message;
}

// The chat message an easy item becomes: system and developer turns as chat's system role, which
// every dialect understands (as the full translation does).
void appendChatMessage(std::string *out, const EasyMessage &message)
{
    out->append(is(message.role, "\"user\"") ? "{\"role\":\"user\",\"content\":" : "{\"role\":\"system\",\"content\":");
    appendJsonText(out, message.content);
    *out += '}';
}

// The item as the full parse keeps it for the store: the client's members, "type" added; in the
// order Qt writes an object's members, as the store writes the parsed ones.
void appendStoredItem(std::string *out, const EasyMessage &message)
{
    out->append("{\"content\":");
    appendJsonText(out, message.content);
    out->append(",\"role\":");
    appendJsonText(out, message.role);
    out->append(",\"type\":\"message\"}");
}

void appendStringInputItem(std::string *out, QByteArrayView text)
{
    out->append("{\"content\":[{\"text\":");
    appendJsonText(out, text);
    out->append(",\"type\":\"input_text\"}],\"role\":\"user\",\"type\":\"message\"}");
}

// What the quick check reads of the top level, as spans into the body.
struct Members {
    QByteArrayView model, input, instructions, user, temperature, topP;
    std::optional<qint64> maxOutputTokens;
    std::optional<bool> stream, store;
};

std::optional<Members> members(const QByteArray &body, const JsonObjectScan &scan)
{
    Members m;
    for (const JsonObjectScan::Member &member : scan.members()) {
        const QByteArrayView key = member.key, value = member.valueIn(body);
        bool ok = false;
        if (key == "model") {
            const std::optional<QByteArrayView> model = literal::plainString(value);
            ok = model && !model->trimmed().isEmpty();
            m.model = value;
        } else if (key == "input") {
            ok = literal::isString(value) || value.front() == '[';
            m.input = value;
        } else if (key == "instructions") {
            ok = literal::plainString(value).has_value();
            m.instructions = value;
        } else if (key == "user") {
            ok = literal::isString(value);
            m.user = value;
        } else if (key == "max_output_tokens") {
            m.maxOutputTokens = literal::plainInteger(value);
            ok = m.maxOutputTokens && *m.maxOutputTokens >= 1 && *m.maxOutputTokens <= std::numeric_limits<int>::max();
        } else if (key == "temperature" || key == "top_p") {
            const std::optional<double> n = literal::number(value);
            ok = n && *n >= 0.0 && *n <= (key == "temperature" ? 2.0 : 1.0);
            (key == "temperature" ? m.temperature : m.topP) = value;
        } else if (key == "stream") {
            m.stream = literal::boolean(value);
            ok = m.stream.has_value();
        } else if (key == "store") {
            m.store = literal::boolean(value);
            ok = m.store.has_value();
        }
        if (!ok)
            return std::nullopt;
    }
    if (m.model.isEmpty() || m.input.isEmpty())
        return std::nullopt;
    return m;
}

void appendMember(std::string *out, const char *key, QByteArrayView value)
{
    out->append(",\"").append(key).append("\":");
    appendJsonText(out, value);
}

} // namespace

std::optional<ResponsesRequest> quickCheckResponsesRequest(const QByteArray &body)
{
    JsonObjectScan scan;
    if (!scan.scan(body))
        return std::nullopt;
    const std::optional<Members> m = members(body, scan);
    if (!m)
        return std::nullopt;

    ResponsesRequest request;
    // Built in std::strings: some twenty pieces, each a call into QByteArray's general insert
    // otherwise.
    std::string chat, input;
    chat.reserve(std::size_t(body.size()) + 128);
    input.reserve(std::size_t(m->input.size()) + 128);
    chat.append("{\"model\":");
    appendJsonText(&chat, m->model);
    chat.append(",\"messages\":[");
    const QByteArrayView instructions = *literal::plainString(m->instructions.isEmpty() ? QByteArrayView("\"\"") : m->instructions);
    bool first = instructions.isEmpty();
    if (!first) {
        chat.append("{\"role\":\"system\",\"content\":");
        appendJsonText(&chat, m->instructions);
        chat += '}';
    }

    if (literal::isString(m->input)) {
        chat.append(first ? "" : ",").append("{\"role\":\"user\",\"content\":");
        appendJsonText(&chat, m->input);
        chat += '}';
        input += '[';
        appendStringInputItem(&input, m->input);
    } else {
        input += '[';
        const bool walked = jsonwalk::forEachElement(body, m->input.data() - body.constData(), [&](Span item) {
            const std::optional<EasyMessage> message = easyMessage(body, item);
            if (!message)
                return false;
            if (!first)
                chat += ',';
            first = false;
            if (input.size() > 1)
                input += ',';
            appendChatMessage(&chat, *message);
            appendStoredItem(&input, *message);
            return true;
        });
        if (!walked || input.size() == 1)
            return std::nullopt;
    }
    input += ']';
    chat += ']';

    request.model = QString::fromUtf8(*literal::plainString(m->model));
    request.stream = m->stream.value_or(false);
    request.store = m->store.value_or(true);
    request.instructions = QString::fromUtf8(instructions);
    request.maxOutputTokens = static_cast<int>(m->maxOutputTokens.value_or(0));
    if (request.maxOutputTokens > 0) {
        chat.append(",\"max_tokens\":");
        appendJsonNumber(&chat, request.maxOutputTokens);
    }
    if (request.stream)
        chat.append(",\"stream\":true,\"stream_options\":{\"include_usage\":true}");
    if (!m->temperature.isEmpty())
        appendMember(&chat, "temperature", m->temperature);
    if (!m->topP.isEmpty())
        appendMember(&chat, "top_p", m->topP);
    if (!m->user.isEmpty())
        appendMember(&chat, "user", m->user);
    chat += '}';
    request.chatBodyJson = QByteArray(chat.data(), qsizetype(chat.size()));
    request.inputJson = QByteArray(input.data(), qsizetype(input.size()));

    // Only what the client gave: a response writes OpenAI's documented default for the rest.
    QJsonObject &echo = request.echo;
    if (!m->instructions.isEmpty())
        echo.insert(QStringLiteral("instructions"), request.instructions);
    if (m->maxOutputTokens)
        echo.insert(QStringLiteral("max_output_tokens"), *m->maxOutputTokens);
    if (!m->temperature.isEmpty())
        echo.insert(QStringLiteral("temperature"), *literal::number(m->temperature));
    if (!m->topP.isEmpty())
        echo.insert(QStringLiteral("top_p"), *literal::number(m->topP));
    if (!m->user.isEmpty())
        echo.insert(QStringLiteral("user"), literal::stringValue(m->user));
    if (m->store)
        echo.insert(QStringLiteral("store"), request.store);

    request.original = body;
    request.estimatedPromptTokens = ResponsesRequest::estimateTokens(body.size());
    return request;
}

} // namespace sb
