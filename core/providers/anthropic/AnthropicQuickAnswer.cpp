#include "providers/anthropic/AnthropicQuickAnswer.h"

#include "common/json/JsonLiterals.h"
#include "common/json/JsonObjectScan.h"
#include "common/json/JsonWalk.h"
#include "providers/anthropic/AnthropicAdapter.h"
#include "providers/common/ProviderText.h"


namespace sb {

namespace {

using jsonwalk::Span;
namespace literal = jsonliteral;

// A content block of type "text" whose text is a string literal: that literal, quotes included.
// Anything else (another type, a repeated or escaped key, a text that is not a string) is not
// the usual message.
std::optional<QByteArrayView> textOfBlock(QByteArrayView json, Span block)
{
    if (block.in(json).front() != '{')
        return std::nullopt;
    std::optional<QByteArrayView> text;
    int types = 0, texts = 0;
    bool isText = false;
    const bool walked = jsonwalk::forEachMember(json, block.begin, [&](QByteArrayView key, Span span) {
        const QByteArrayView value = span.in(json);
        if (jsonliteral::hasEscape(key))
            return false;
        if (key == "type") {
            isText = value == QByteArrayView("\"text\"");
            return ++types == 1;
        }
        if (key == "text") {
            text = value;
            return ++texts == 1 && literal::isString(value);
        }
        return true; // citations and the like, which the chat answer has no place for either
    });
    if (!walked || !isText || !text)
        return std::nullopt;
    return text;
}

} // namespace

std::optional<QByteArray> quickChatCompletion(const QByteArray &message, TokenUsage *usage)
{
    JsonObjectScan scan;
    if (!scan.scan(message))
        return std::nullopt;
    const JsonObjectScan::Member *type = scan.find("type");
    const JsonObjectScan::Member *content = scan.find("content");
    const JsonObjectScan::Member *id = scan.find("id");
    if (!type || type->valueIn(message) != QByteArrayView("\"message\"") || scan.find("error") || !content || !id
        || !literal::isString(id->valueIn(message)))
        return std::nullopt;
    const QByteArrayView blocks = content->valueIn(message);
    if (blocks.front() != '[')
        return std::nullopt;
    std::vector<QByteArrayView> texts;
    const bool allText = jsonwalk::forEachElement(message, content->valueBegin, [&](Span block) {
        const std::optional<QByteArrayView> text = textOfBlock(message, block);
        if (text)
            texts.push_back(*text);
        return text.has_value();
    });
    if (!allText)
        return std::nullopt;
    QString stopReason;
    if (const JsonObjectScan::Member *stop = scan.find("stop_reason"); stop && stop->valueIn(message) != QByteArrayView("null")) {
        const std::optional<QByteArrayView> plain = literal::plainString(stop->valueIn(message));
        if (!plain)
            return std::nullopt;
        stopReason = QString::fromLatin1(*plain);
    }
    // An empty message with no stop reason is not an answer; the parsing path says so.
    if (texts.empty() && stopReason.isEmpty())
        return std::nullopt;
    const TokenUsage counted = AnthropicAdapter::usageOfMessage(message, scan);

    // Members in the order QJsonDocument writes chatResponse's object, so both paths read alike.
    QByteArray out;
    out.reserve(message.size() + 160);
    out.append("{\"choices\":[{\"finish_reason\":\"");
    out.append(AnthropicAdapter::finishReason(stopReason).toLatin1());
    out.append("\",\"index\":0,\"message\":{\"content\":");
    if (texts.empty()) {
        out.append("null");
    } else if (texts.size() == 1) {
        out.append(texts.front().data(), texts.front().size());
    } else {
        // Two literals' insides joined are the joined strings' literal: an escape never spans them.
        out.append('"');
        for (const QByteArrayView text : texts)
            out.append(text.data() + 1, text.size() - 2);
        out.append('"');
    }
    out.append(",\"role\":\"assistant\"}}],\"id\":");
    const QByteArrayView idLiteral = id->valueIn(message);
    out.append(idLiteral.data(), idLiteral.size());
    out.append(",\"model\":\"\",\"object\":\"chat.completion\",\"usage\":");
    out.append(usageToOpenAiJson(counted));
    out.append('}');
    if (usage)
        *usage = counted;
    return out;
}

} // namespace sb
