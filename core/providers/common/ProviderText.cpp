#include "providers/common/ProviderText.h"

#include "common/json/JsonLiterals.h"
#include "common/json/JsonObjectScan.h"
#include "common/json/JsonText.h"
#include "common/json/JsonWalk.h"

#include "common/SecretMask.h"
#include "stream/Utf8Reassembler.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>

namespace sb {

QString cleanProviderMessage(const QString &raw)
{
    // Key shapes providers echo: OpenAI/DeepSeek "sk-…", Anthropic "sk-ant-…", bearer tokens.
    static const QRegularExpression keyLike(QStringLiteral(R"((?:sk-[A-Za-z0-9_\-*.]{6,}|(?<=Bearer )[A-Za-z0-9_\-.=]{8,}))"));
    constexpr int MaxLength = 500;
    QString text = raw.simplified();
    QString out;
    qsizetype last = 0;
    auto it = keyLike.globalMatch(text);
    while (it.hasNext()) {
        const auto match = it.next();
        out += QStringView(text).sliced(last, match.capturedStart() - last);
        out += maskSecret(match.captured());
        last = match.capturedEnd();
    }
    out += QStringView(text).sliced(last);
    if (out.size() > MaxLength)
        out = out.left(MaxLength - 1) + QChar(0x2026);
    return out;
}

namespace {

TokenUsage withTotal(TokenUsage usage)
{
    if (usage.totalTokens < 0 && usage.promptTokens >= 0 && usage.completionTokens >= 0)
        usage.totalTokens = usage.promptTokens + usage.completionTokens;
    return usage;
}

} // namespace

TokenUsage usageFromOpenAi(const QJsonObject &usage)
{
    TokenUsage out;
    if (usage.contains(QLatin1String("prompt_tokens")))
        out.promptTokens = usage.value(QLatin1String("prompt_tokens")).toInt(-1);
    if (usage.contains(QLatin1String("completion_tokens")))
        out.completionTokens = usage.value(QLatin1String("completion_tokens")).toInt(-1);
    if (usage.contains(QLatin1String("total_tokens")))
        out.totalTokens = usage.value(QLatin1String("total_tokens")).toInt(-1);
    const QJsonObject details = usage.value(QLatin1String("prompt_tokens_details")).toObject();
    if (details.contains(QLatin1String("cached_tokens")))
        out.cacheReadTokens = details.value(QLatin1String("cached_tokens")).toInt(-1);
    else if (usage.contains(QLatin1String("prompt_cache_hit_tokens")))
        out.cacheReadTokens = usage.value(QLatin1String("prompt_cache_hit_tokens")).toInt(-1);
    if (details.contains(QLatin1String("cache_write_tokens")))
        out.cacheWriteTokens = details.value(QLatin1String("cache_write_tokens")).toInt(-1);
    return withTotal(out);
}

TokenUsage usageFromOpenAiJson(QByteArrayView usage)
{
    JsonObjectScan scan;
    if (scan.scan(usage)) {
        TokenUsage out;
        bool plain = true;
        const auto read = [&](const JsonObjectScan &in, QByteArrayView json, QByteArrayView key, int *field) {
            if (const JsonObjectScan::Member *member = in.find(key)) {
                if (const std::optional<int> value = jsonliteral::intValue(member->valueIn(json)))
                    *field = *value;
                else
                    plain = false; // 9.0, 1e1, a string: Qt's reading decides
            }
        };
        read(scan, usage, "prompt_tokens", &out.promptTokens);
        read(scan, usage, "completion_tokens", &out.completionTokens);
        read(scan, usage, "total_tokens", &out.totalTokens);
        read(scan, usage, "prompt_cache_hit_tokens", &out.cacheReadTokens);
        if (const JsonObjectScan::Member *member = scan.find("prompt_tokens_details")) {
            const QByteArrayView detailsJson = member->valueIn(usage);
            JsonObjectScan details;
            if (details.scan(detailsJson)) {
                read(details, detailsJson, "cached_tokens", &out.cacheReadTokens); // wins over DeepSeek's name
                read(details, detailsJson, "cache_write_tokens", &out.cacheWriteTokens);
            } else if (detailsJson != "null") {
                plain = false;
            }
        }
        if (plain)
            return withTotal(out);
    }
    QJsonObject object;
    parseJsonObject(usage.toByteArray(), &object);
    return usageFromOpenAi(object);
}

QJsonObject openAiPromptDetails(const TokenUsage &usage)
{
    QJsonObject details;
    if (usage.cacheReadTokens >= 0 || usage.cacheWriteTokens >= 0)
        details.insert(QStringLiteral("cached_tokens"), std::max(usage.cacheReadTokens, 0));
    if (usage.cacheWriteTokens >= 0)
        details.insert(QStringLiteral("cache_write_tokens"), usage.cacheWriteTokens);
    return details;
}

QJsonObject usageToOpenAi(const TokenUsage &usage)
{
    const int prompt = std::max(usage.promptTokens, 0);
    const int completion = std::max(usage.completionTokens, 0);
    QJsonObject out{
        {QStringLiteral("prompt_tokens"), prompt},
        {QStringLiteral("completion_tokens"), completion},
        {QStringLiteral("total_tokens"), usage.totalTokens >= 0 ? usage.totalTokens : prompt + completion},
    };
    if (const QJsonObject details = openAiPromptDetails(usage); !details.isEmpty())
        out.insert(QStringLiteral("prompt_tokens_details"), details);
    return out;
}

TokenUsage usageFromScannedOpenAiJson(QByteArrayView usage)
{
    // Anything but an object of plain integer counts, each named once and without escapes, is
    // read as usageFromOpenAiJson reads it: through Qt's parser, as Qt would.
    if (usage.isEmpty() || usage.front() != '{')
        return usageFromOpenAiJson(usage);
    TokenUsage out;
    int hitTokens = -1;
    int cachedTokens = -1;
    unsigned seen = 0;
    bool plain = true;
    const auto read = [&](QByteArrayView raw, unsigned bit, int *field) {
        std::optional<int> value = (seen & bit) ? std::nullopt : jsonliteral::intValue(raw);
        seen |= bit;
        if (value)
            *field = *value;
        else
            plain = false;
    };
    const auto readDetails = [&](QByteArrayView details) {
        if (details == "null")
            return;
        if (details.front() != '{') {
            plain = false;
            return;
        }
        jsonwalk::forEachMember(details, 0, [&](QByteArrayView key, jsonwalk::Span value) {
            if (jsonliteral::hasEscape(key))
                plain = false;
            else if (key == "cached_tokens")
                read(value.in(details), 1u << 5, &cachedTokens);
            else if (key == "cache_write_tokens")
                read(value.in(details), 1u << 6, &out.cacheWriteTokens);
            return plain;
        });
    };
    jsonwalk::forEachMember(usage, 0, [&](QByteArrayView key, jsonwalk::Span value) {
        const QByteArrayView raw = value.in(usage);
        if (jsonliteral::hasEscape(key))
            plain = false;
        else if (key == "prompt_tokens")
            read(raw, 1u << 0, &out.promptTokens);
        else if (key == "completion_tokens")
            read(raw, 1u << 1, &out.completionTokens);
        else if (key == "total_tokens")
            read(raw, 1u << 2, &out.totalTokens);
        else if (key == "prompt_cache_hit_tokens")
            read(raw, 1u << 3, &hitTokens);
        else if (key == "prompt_tokens_details") {
            plain = plain && !(seen & (1u << 4));
            seen |= 1u << 4;
            readDetails(raw);
        }
        return plain;
    });
    if (!plain)
        return usageFromOpenAiJson(usage);
    out.cacheReadTokens = (seen & (1u << 5)) ? cachedTokens : hitTokens; // details win over DeepSeek's name
    return withTotal(out);
}

QByteArray usageToOpenAiJson(const TokenUsage &usage)
{
    // Members sorted by name, as QJsonDocument orders an object's keys.
    const int prompt = std::max(usage.promptTokens, 0);
    const int completion = std::max(usage.completionTokens, 0);
    std::string out = "{\"completion_tokens\":";
    appendJsonNumber(&out, completion);
    out += ",\"prompt_tokens\":";
    appendJsonNumber(&out, prompt);
    if (usage.cacheReadTokens >= 0 || usage.cacheWriteTokens >= 0) { // openAiPromptDetails' rule
        out += ",\"prompt_tokens_details\":{";
        if (usage.cacheWriteTokens >= 0) {
            out += "\"cache_write_tokens\":";
            appendJsonNumber(&out, usage.cacheWriteTokens);
            out += ',';
        }
        out += "\"cached_tokens\":";
        appendJsonNumber(&out, std::max(usage.cacheReadTokens, 0));
        out += '}';
    }
    out += ",\"total_tokens\":";
    appendJsonNumber(&out, usage.totalTokens >= 0 ? usage.totalTokens : prompt + completion);
    out += '}';
    return QByteArray(out.data(), qsizetype(out.size()));
}

QByteArray compactJson(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QByteArray sanitizeUtf8(const QByteArray &bytes, bool *replaced)
{
    const bool valid = Utf8Reassembler::isValid(bytes);
    if (replaced)
        *replaced = !valid;
    if (valid)
        return bytes;
    Utf8Reassembler reassembler;
    return reassembler.feed(bytes) + reassembler.flush();
}

bool parseJsonObject(const QByteArray &bytes, QJsonObject *out)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return false;
    *out = doc.object();
    return true;
}

} // namespace sb
