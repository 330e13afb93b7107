#include "providers/anthropic/AnthropicQuickRequest.h"

#include "common/json/JsonLiterals.h"
#include "common/json/JsonText.h"
#include "common/json/JsonWalk.h"
#include "providers/anthropic/AnthropicAdapter.h"

#include <climits>
#include <vector>

namespace sb {

namespace {

using jsonwalk::Span;
namespace literal = jsonliteral;

struct Turn {
    QByteArrayView role;                 // "user" or "assistant"
    std::vector<QByteArrayView> texts;   // string literals, quotes included
};

// One chat message of the usual kind: a plain role and a string content (its name, if any, has no
// place in the Messages API, as on the object path). False for anything else.
bool readMessage(QByteArrayView json, Span message, QByteArrayView *role, QByteArrayView *content)
{
    if (message.in(json).front() != '{')
        return false;
    int roles = 0, contents = 0;
    const bool walked = jsonwalk::forEachMember(json, message.begin, [&](QByteArrayView key, Span span) {
        const QByteArrayView value = span.in(json);
        if (key == "role") {
            const std::optional<QByteArrayView> plain = literal::plainString(value);
            if (plain)
                *role = *plain;
            return ++roles == 1 && plain.has_value();
        }
        if (key == "content") {
            *content = value;
            return ++contents == 1 && literal::isString(value);
        }
        return key == "name";
    });
    return walked && roles == 1 && contents == 1;
}

// A literal's inside, for joining literals into one.
QByteArrayView inside(QByteArrayView literal) { return literal.sliced(1, literal.size() - 2); }

void appendTextBlocks(QByteArray *out, const std::vector<QByteArrayView> &texts)
{
    out->append('[');
    for (std::size_t i = 0; i < texts.size(); ++i) {
        if (i)
            out->append(',');
        out->append("{\"text\":");
        out->append(texts[i].data(), texts[i].size());
        out->append(",\"type\":\"text\"}");
    }
    out->append(']');
}

} // namespace

std::optional<AnthropicQuickRequest> quickAnthropicRequest(const QByteArray &chat, const JsonObjectScan &scan, const QString &model)
{
    const JsonObjectScan::Member *messages = nullptr;
    std::optional<QByteArrayView> clientModel, temperature, topP;
    std::optional<qint64> maxTokens, maxCompletionTokens;
    bool stream = false;
    for (const JsonObjectScan::Member &member : scan.members()) {
        const QByteArrayView value = member.valueIn(chat);
        if (member.key == "messages") {
            messages = &member;
        } else if (member.key == "model") {
            if (!(clientModel = literal::plainString(value)))
                return std::nullopt;
        } else if (member.key == "max_tokens") {
            if (!(maxTokens = literal::plainInteger(value)) || *maxTokens > INT_MAX)
                return std::nullopt;
        } else if (member.key == "max_completion_tokens") {
            if (!(maxCompletionTokens = literal::plainInteger(value)) || *maxCompletionTokens > INT_MAX)
                return std::nullopt;
        } else if (member.key == "stream") {
            const std::optional<bool> on = literal::boolean(value);
            if (!on)
                return std::nullopt;
            stream = *on;
        } else if (member.key == "temperature" || member.key == "top_p") {
            if (!literal::number(value))
                return std::nullopt;
            (member.key == "temperature" ? temperature : topP) = value;
        } else if (member.key != "stream_options") { // read by the stream translator, not sent
            return std::nullopt;
        }
    }
    if (!messages || messages->valueIn(chat).front() != '[')
        return std::nullopt;

    std::vector<QByteArrayView> system;
    std::vector<Turn> turns;
    const bool usual = jsonwalk::forEachElement(chat, messages->valueBegin, [&](Span message) {
        QByteArrayView role, content;
        if (!readMessage(chat, message, &role, &content))
            return false;
        const bool empty = content.size() == 2;
        if (role == "system" || role == "developer") {
            if (!empty)
                system.push_back(content);
            return true;
        }
        if (role != "user" && role != "assistant")
            return false; // a tool result, or a role the object path drops
        if (empty)
            return true; // no block, so no turn
        if (turns.empty() || turns.back().role != role)
            turns.push_back(Turn{role, {}});
        turns.back().texts.push_back(content); // Anthropic wants turns to alternate: one role's run is one turn
        return true;
    });
    if (!usual)
        return std::nullopt;

    // Members in the order QJsonDocument writes translateRequest's object.
    AnthropicQuickRequest request;
    request.stream = stream;
    QByteArray &out = request.body;
    out.reserve(chat.size() + 128);
    out.append("{\"max_tokens\":");
    out.append(QByteArray::number(maxCompletionTokens ? *maxCompletionTokens : maxTokens ? *maxTokens : AnthropicAdapter::DefaultMaxTokens));
    out.append(",\"messages\":[");
    for (std::size_t i = 0; i < turns.size(); ++i) {
        if (i)
            out.append(',');
        out.append("{\"content\":");
        appendTextBlocks(&out, turns[i].texts);
        out.append(",\"role\":\"");
        out.append(turns[i].role.data(), turns[i].role.size());
        out.append("\"}");
    }
    out.append("],\"model\":");
    if (model.isEmpty())
        out.append('"').append(clientModel.value_or(QByteArrayView()).data(), clientModel.value_or(QByteArrayView()).size()).append('"');
    else
        appendJsonString(&out, model);
    if (stream)
        out.append(",\"stream\":true");
    if (!system.empty()) {
        out.append(",\"system\":\"");
        for (std::size_t i = 0; i < system.size(); ++i) {
            if (i)
                out.append("\\n\\n");
            const QByteArrayView text = inside(system[i]);
            out.append(text.data(), text.size());
        }
        out.append('"');
    }
    if (temperature) {
        // OpenAI allows 0–2, Anthropic 0–1.
        if (*literal::number(*temperature) > 1.0)
            out.append(",\"temperature\":1");
        else
            out.append(",\"temperature\":").append(temperature->data(), temperature->size());
    }
    if (topP)
        out.append(",\"top_p\":").append(topP->data(), topP->size());
    out.append('}');
    return request;
}

} // namespace sb
