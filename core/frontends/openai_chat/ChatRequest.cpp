#include "frontends/openai_chat/ChatRequest.h"

#include "common/json/JsonLiterals.h"
#include "common/json/JsonWalk.h"

#include <algorithm>
#include <iterator>

#include <QJsonArray>
#include <QJsonDocument>

namespace sb {

namespace {

ApiError invalid(const QString &message, const QString &param, const QString &code = QStringLiteral("invalid_value"))
{
    return ApiError{400, message, QStringLiteral("invalid_request_error"), param, code};
}

// What both ways of checking a request read (the QJsonDocument path and the quick check below), so
// that they cannot drift apart.
constexpr QLatin1StringView kRoles[] = {QLatin1StringView("system"), QLatin1StringView("developer"),
                                        QLatin1StringView("user"), QLatin1StringView("assistant"),
                                        QLatin1StringView("tool"), QLatin1StringView("function")};

enum class JsonKind { Bool, Number, Array, Object, StringOrArray };
struct OptionalField {
    const char *name;
    JsonKind kind;
    const char *what; // for the error: "'<name>' must be <what>."
};
constexpr OptionalField kOptionalFields[] = {
    {"stream", JsonKind::Bool, "a boolean"},
    {"temperature", JsonKind::Number, "a number"},
    {"top_p", JsonKind::Number, "a number"},
    {"max_tokens", JsonKind::Number, "an integer"},
    {"max_completion_tokens", JsonKind::Number, "an integer"},
    {"n", JsonKind::Number, "an integer"},
    {"tools", JsonKind::Array, "an array"},
    {"stream_options", JsonKind::Object, "an object"},
    {"response_format", JsonKind::Object, "an object"},
    {"stop", JsonKind::StringOrArray, "a string or an array of strings"},
};

template <typename Key>
const OptionalField *optionalField(const Key &key)
{
    const auto found = std::find_if(std::begin(kOptionalFields), std::end(kOptionalFields),
                                    [&key](const OptionalField &f) { return key == QLatin1StringView(f.name); });
    return found == std::end(kOptionalFields) ? nullptr : found;
}

// Parses a JSON object body; fills *error and returns false when it is not one.
bool parseObject(const QByteArray &json, QJsonObject *out, ApiError *error)
{
    if (json.trimmed().isEmpty()) {
        *error = invalid(QStringLiteral("The request body is empty; send a JSON object."), {}, QStringLiteral("invalid_json"));
        return false;
    }
    // JSON allows no raw control characters: outside strings only tab, LF and CR, inside strings
    // none (they must be escaped). Qt's parser lets some through, so a NUL could smuggle itself
    // into a model name or a prompt.
    const auto control = std::find_if(json.cbegin(), json.cend(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r';
    });
    if (control != json.cend()) {
        *error = invalid(QStringLiteral("The request body is not valid JSON (a raw control character 0x%1 at byte %2; escape it as \\u00XX).")
                             .arg(static_cast<unsigned char>(*control), 2, 16, QLatin1Char('0'))
                             .arg(control - json.cbegin()),
                         {}, QStringLiteral("invalid_json"));
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = invalid(QStringLiteral("The request body is not valid JSON (%1 at byte %2).")
                             .arg(parseError.errorString())
                             .arg(parseError.offset),
                         {}, QStringLiteral("invalid_json"));
        return false;
    }
    if (!document.isObject()) {
        *error = invalid(QStringLiteral("The request body must be a JSON object."), {}, QStringLiteral("invalid_json"));
        return false;
    }
    *out = document.object();
    return true;
}

bool requireModel(const QJsonObject &body, QString *model, ApiError *error)
{
    const QJsonValue value = body.value(QStringLiteral("model"));
    if (!value.isString() || value.toString().trimmed().isEmpty()) {
        *error = invalid(value.isUndefined() ? QStringLiteral("Missing required parameter: 'model'.")
                                             : QStringLiteral("'model' must be a non-empty string."),
                         QStringLiteral("model"), value.isUndefined() ? QStringLiteral("missing_required_parameter")
                                                                      : QStringLiteral("invalid_type"));
        return false;
    }
    *model = value.toString();
    return true;
}

bool checkMessages(const QJsonObject &body, ApiError *error)
{
    const QJsonValue messages = body.value(QStringLiteral("messages"));
    if (messages.isUndefined()) {
        *error = invalid(QStringLiteral("Missing required parameter: 'messages'."), QStringLiteral("messages"),
                         QStringLiteral("missing_required_parameter"));
        return false;
    }
    if (!messages.isArray() || messages.toArray().isEmpty()) {
        *error = invalid(QStringLiteral("'messages' must be a non-empty array of message objects."),
                         QStringLiteral("messages"), QStringLiteral("invalid_type"));
        return false;
    }
    const QJsonArray list = messages.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        // Only an error names the message: formatting its path for every message cost more than checking it.
        const auto where = [i] { return QStringLiteral("messages[%1]").arg(i); };
        const QJsonValue item = list.at(i);
        if (!item.isObject()) {
            *error = invalid(QStringLiteral("'%1' must be an object with 'role' and 'content'.").arg(where()), where(),
                             QStringLiteral("invalid_type"));
            return false;
        }
        const QJsonObject message = item.toObject();
        const QJsonValue role = message.value(QLatin1String("role"));
        const QString roleName = role.toString();
        if (!role.isString() || std::find(std::begin(kRoles), std::end(kRoles), roleName) == std::end(kRoles)) {
            QStringList roles;
            for (const QLatin1StringView name : kRoles)
                roles.append(name);
            *error = invalid(QStringLiteral("'%1.role' must be one of %2.").arg(where(), roles.join(QStringLiteral(", "))),
                             where() + QStringLiteral(".role"));
            return false;
        }
        const QJsonValue content = message.value(QLatin1String("content"));
        const bool contentOk = content.isString() || content.isArray() || content.isNull()
            || (content.isUndefined() && (message.contains(QLatin1String("tool_calls"))
                                          || message.contains(QLatin1String("function_call"))));
        if (!contentOk) {
            *error = invalid(QStringLiteral("'%1.content' must be a string or an array of content parts.").arg(where()),
                             where() + QStringLiteral(".content"), QStringLiteral("invalid_type"));
            return false;
        }
    }
    return true;
}

bool hasKind(const QJsonValue &value, JsonKind kind)
{
    switch (kind) {
    case JsonKind::Bool: return value.isBool();
    case JsonKind::Number: return value.isDouble();
    case JsonKind::Array: return value.isArray();
    case JsonKind::Object: return value.isObject();
    case JsonKind::StringOrArray: return value.isString() || value.isArray();
    }
    return false;
}

bool checkOptionalTypes(const QJsonObject &body, ApiError *error)
{
    // One pass over the members the client sent (usually a handful), not a lookup per name.
    for (auto member = body.constBegin(); member != body.constEnd(); ++member) {
        const OptionalField *field = optionalField(member.key());
        const QJsonValue value = member.value();
        if (!field || value.isNull() || hasKind(value, field->kind))
            continue;
        *error = invalid(QStringLiteral("'%1' must be %2.").arg(QLatin1String(field->name), QLatin1String(field->what)),
                         QLatin1String(field->name), QStringLiteral("invalid_type"));
        return false;
    }
    return true;
}

int estimateTokens(qsizetype bytes)
{
    // About four bytes a token for English; the bucket only needs an order of magnitude.
    return static_cast<int>(qMin<qsizetype>(bytes / 4 + 1, 100'000'000));
}

// ---- The quick check: the same rules as above, on the bytes a JsonObjectScan accepted. It only
// says yes or "not sure"; anything unusual (escapes where a name or role is read, repeated keys,
// edge whitespace in the model) is left to the QJsonDocument path, so both paths answer alike.

bool quickModel(QByteArrayView json, const JsonObjectScan &scan, QString *model)
{
    const JsonObjectScan::Member *member = scan.find("model");
    if (!member)
        return false;
    const std::optional<QByteArrayView> name = jsonliteral::plainString(member->valueIn(json));
    // Printable ASCII at both ends, so that trimming (which knows Unicode's spaces) has nothing to do.
    const auto printable = [](char c) { return c > 0x20 && c < 0x7f; };
    if (!name || name->isEmpty() || !printable(name->front()) || !printable(name->back()))
        return false;
    *model = QString::fromUtf8(*name);
    return true;
}

bool quickMessage(QByteArrayView json, jsonwalk::Span message)
{
    if (json[message.begin] != '{')
        return false;
    int roleCount = 0, contentCount = 0;
    bool roleOk = false, contentOk = false, hasCalls = false;
    const bool walked = jsonwalk::forEachMember(json, message.begin, [&](QByteArrayView key, jsonwalk::Span value) {
        if (jsonliteral::hasEscape(key))
            return false;
        const QByteArrayView text = value.in(json);
        if (key == "role") {
            const std::optional<QByteArrayView> role = jsonliteral::plainString(text);
            roleOk = role && std::find(std::begin(kRoles), std::end(kRoles), QLatin1StringView(*role)) != std::end(kRoles);
            ++roleCount;
        } else if (key == "content") {
            contentOk = text.front() == '"' || text.front() == '[' || text.front() == 'n';
            ++contentCount;
        } else if (key == "tool_calls" || key == "function_call") {
            hasCalls = true;
        }
        return true;
    });
    return walked && roleCount == 1 && roleOk && (contentCount == 1 ? contentOk : contentCount == 0 && hasCalls);
}

bool quickMessages(QByteArrayView json, const JsonObjectScan &scan)
{
    const JsonObjectScan::Member *member = scan.find("messages");
    if (!member || json[member->valueBegin] != '[')
        return false;
    int count = 0;
    const bool allOk = jsonwalk::forEachElement(json, member->valueBegin, [&](jsonwalk::Span message) {
        ++count;
        return quickMessage(json, message);
    });
    return allOk && count > 0;
}

bool quickOptionalTypes(QByteArrayView json, const JsonObjectScan &scan)
{
    for (const JsonObjectScan::Member &member : scan.members()) {
        const OptionalField *field = optionalField(QLatin1StringView(member.key));
        if (!field)
            continue;
        const char first = json[member.valueBegin];
        bool ok = first == 'n'; // null: as if absent
        switch (field->kind) {
        case JsonKind::Bool: ok = ok || first == 't' || first == 'f'; break;
        case JsonKind::Number: ok = ok || first == '-' || (first >= '0' && first <= '9'); break;
        case JsonKind::Array: ok = ok || first == '['; break;
        case JsonKind::Object: ok = ok || first == '{'; break;
        case JsonKind::StringOrArray: ok = ok || first == '"' || first == '['; break;
        }
        if (!ok)
            return false;
    }
    return true;
}

// stream_options.include_usage; std::nullopt when not sure (a repeated key).
std::optional<bool> quickIncludeUsage(QByteArrayView json, const JsonObjectScan &scan)
{
    const JsonObjectScan::Member *options = scan.find("stream_options");
    if (!options || json[options->valueBegin] != '{')
        return false;
    int seen = 0;
    bool include = false;
    const bool walked = jsonwalk::forEachMember(json, options->valueBegin, [&](QByteArrayView key, jsonwalk::Span value) {
        if (jsonliteral::hasEscape(key))
            return false;
        if (key == "include_usage") {
            ++seen;
            include = value.in(json) == "true";
        }
        return true;
    });
    if (!walked || seen > 1)
        return std::nullopt;
    return include;
}

std::optional<ChatRequest> quickParse(const QByteArray &json)
{
    JsonObjectScan scan;
    if (!scan.scan(json))
        return std::nullopt;
    ChatRequest request;
    if (!quickModel(json, scan, &request.model) || !quickMessages(json, scan) || !quickOptionalTypes(json, scan))
        return std::nullopt;
    const std::optional<bool> includeUsage = quickIncludeUsage(json, scan);
    if (!includeUsage)
        return std::nullopt;
    const JsonObjectScan::Member *stream = scan.find("stream");
    request.stream = stream && stream->valueIn(json) == "true";
    request.includeUsage = *includeUsage;
    request.estimatedPromptTokens = estimateTokens(json.size());
    request.body = ClientBody(json, std::move(scan));
    return request;
}

} // namespace

std::optional<ChatRequest> ChatRequest::parse(const QByteArray &json, ApiError *error)
{
    if (std::optional<ChatRequest> request = quickParse(json))
        return request;
    return parseWithQt(json, error);
}

std::optional<ChatRequest> ChatRequest::parseWithQt(const QByteArray &json, ApiError *error)
{
    ChatRequest request;
    QJsonObject body;
    if (!parseObject(json, &body, error) || !requireModel(body, &request.model, error) || !checkMessages(body, error)
        || !checkOptionalTypes(body, error))
        return std::nullopt;
    request.stream = body.value(QStringLiteral("stream")).toBool(false);
    request.includeUsage = body.value(QStringLiteral("stream_options"))
                               .toObject()
                               .value(QStringLiteral("include_usage"))
                               .toBool(false);
    request.estimatedPromptTokens = estimateTokens(json.size());
    request.body = ClientBody(std::move(body), json);
    return request;
}

std::optional<EmbeddingsRequest> EmbeddingsRequest::parse(const QByteArray &json, ApiError *error)
{
    EmbeddingsRequest request;
    if (!parseObject(json, &request.body, error) || !requireModel(request.body, &request.model, error))
        return std::nullopt;
    const QJsonValue input = request.body.value(QStringLiteral("input"));
    if (!input.isString() && !input.isArray()) {
        *error = invalid(input.isUndefined() ? QStringLiteral("Missing required parameter: 'input'.")
                                             : QStringLiteral("'input' must be a string or an array."),
                         QStringLiteral("input"));
        return std::nullopt;
    }
    request.estimatedPromptTokens = estimateTokens(json.size());
    return request;
}

} // namespace sb
