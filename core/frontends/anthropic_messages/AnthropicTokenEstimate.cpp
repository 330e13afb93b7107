#include "frontends/anthropic_messages/AnthropicTokenEstimate.h"

#include "frontends/anthropic_messages/AnthropicRequest.h"
#include "providers/common/ProviderText.h"

#include <QJsonArray>

namespace sb {

namespace {

const QLatin1String kType("type"), kText("text"), kContent("content");

struct Tally {
    qint64 textBytes = 0;
    qint64 fixedTokens = 0;
};

void countContent(const QJsonValue &content, Tally *tally)
{
    if (content.isString()) {
        tally->textBytes += content.toString().toUtf8().size();
        return;
    }
    for (const QJsonValue &partValue : content.toArray()) {
        const QJsonObject part = partValue.toObject();
        const QString type = part.value(kType).toString();
        if (type == kText) {
            tally->textBytes += part.value(kText).toString().toUtf8().size();
        } else if (type == QLatin1String("image_url")) {
            tally->fixedTokens += AnthropicTokenEstimate::ImageTokens;
        } else if (type == QLatin1String("file")) {
            const QString data = part.value(QLatin1String("file")).toObject().value(QLatin1String("file_data")).toString();
            const qsizetype comma = data.indexOf(QLatin1Char(','));
            const QByteArray pdf = QByteArray::fromBase64(data.mid(comma + 1).toLatin1());
            tally->fixedTokens += qint64(AnthropicTokenEstimate::pdfPages(pdf)) * AnthropicTokenEstimate::PdfPageTokens;
        }
    }
}

} // namespace

int AnthropicTokenEstimate::pdfPages(const QByteArray &pdf)
{
    // Each page is an object with "/Type /Page" (the page tree's nodes say "/Pages").
    int pages = 0;
    qsizetype at = 0;
    while ((at = pdf.indexOf("/Type", at)) >= 0) {
        at += 5;
        qsizetype i = at;
        while (i < pdf.size() && (pdf.at(i) == ' ' || pdf.at(i) == '\r' || pdf.at(i) == '\n' || pdf.at(i) == '\t'))
            ++i;
        if (pdf.mid(i, 5) == "/Page" && (i + 5 >= pdf.size() || pdf.at(i + 5) != 's'))
            ++pages;
    }
    return qMax(1, pages);
}

int AnthropicTokenEstimate::estimate(const QJsonObject &openAiBody)
{
    Tally tally;
    for (const QJsonValue &messageValue : openAiBody.value(QLatin1String("messages")).toArray()) {
        const QJsonObject message = messageValue.toObject();
        countContent(message.value(kContent), &tally);
        for (const QJsonValue &call : message.value(QLatin1String("tool_calls")).toArray()) {
            const QJsonObject function = call.toObject().value(QLatin1String("function")).toObject();
            tally.textBytes += function.value(QLatin1String("name")).toString().toUtf8().size()
                             + function.value(QLatin1String("arguments")).toString().toUtf8().size();
        }
    }
    // A tool's definition reaches the model as text too: its name, description and schema.
    for (const QJsonValue &tool : openAiBody.value(QLatin1String("tools")).toArray())
        tally.textBytes += compactJson(tool.toObject().value(QLatin1String("function")).toObject()).size();
    const qint64 tokens = (tally.textBytes + BytesPerToken - 1) / BytesPerToken + tally.fixedTokens;
    return static_cast<int>(qBound(qint64(0), tokens, qint64(100'000'000)));
}

std::optional<int> AnthropicTokenEstimate::count(const QByteArray &body, AnthropicError *error)
{
    const std::optional<AnthropicRequest> request = AnthropicRequest::parse(body, error, AnthropicRequest::Purpose::CountTokens);
    if (!request)
        return std::nullopt;
    return estimate(request->openAiBody);
}

QByteArray AnthropicTokenEstimate::toJson(int inputTokens)
{
    return R"({"input_tokens":)" + QByteArray::number(inputTokens) + '}';
}

} // namespace sb
