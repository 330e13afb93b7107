#include "engine/ChatRequest.h"

#include <algorithm>
#include <iterator>

#include <QJsonArray>
#include <QJsonDocument>

namespace sb {

QByteArray ApiError::toJson() const
{
    QJsonObject error{{QStringLiteral("message"), message}, {QStringLiteral("type"), type}};
    error.insert(QStringLiteral("param"), param.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(param));
    error.insert(QStringLiteral("code"), code.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(code));
    return QJsonDocument(QJsonObject{{QStringLiteral("error"), error}}).toJson(QJsonDocument::Compact);
}

namespace {

ApiError invalid(const QString &message, const QString &param, const QString &code = QStringLiteral("invalid_value"))
{
    return ApiError{400, message, QStringLiteral("invalid_request_error"), param, code};
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
    static const QStringList roles{QStringLiteral("system"), QStringLiteral("developer"), QStringLiteral("user"),
                                   QStringLiteral("assistant"), QStringLiteral("tool"), QStringLiteral("function")};
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
        if (!role.isString() || !roles.contains(role.toString())) {
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

bool checkOptionalTypes(const QJsonObject &body, ApiError *error)
{
    struct Expect { const char *name; bool (QJsonValue::*is)() const; const char *what; };
    static const Expect expectations[] = {
        {"stream", &QJsonValue::isBool, "a boolean"},
        {"temperature", &QJsonValue::isDouble, "a number"},
        {"top_p", &QJsonValue::isDouble, "a number"},
        {"max_tokens", &QJsonValue::isDouble, "an integer"},
        {"max_completion_tokens", &QJsonValue::isDouble, "an integer"},
        {"n", &QJsonValue::isDouble, "an integer"},
        {"tools", &QJsonValue::isArray, "an array"},
        {"stream_options", &QJsonValue::isObject, "an object"},
        {"response_format", &QJsonValue::isObject, "an object"},
    };
    // One pass over the members the client sent (usually a handful), not a lookup per name.
    for (auto member = body.constBegin(); member != body.constEnd(); ++member) {
        const QString key = member.key();
        const auto e = std::find_if(std::begin(expectations), std::end(expectations),
                                    [&key](const Expect &x) { return key == QLatin1String(x.name); });
        if (e == std::end(expectations))
            continue;
        const QJsonValue value = member.value();
        if (value.isNull())
            continue;
        if (!(value.*(e->is))()) {
            *error = invalid(QStringLiteral("'%1' must be %2.").arg(QLatin1String(e->name), QLatin1String(e->what)),
                             QLatin1String(e->name), QStringLiteral("invalid_type"));
            return false;
        }
    }
    const QJsonValue stop = body.value(QStringLiteral("stop"));
    if (!stop.isUndefined() && !stop.isNull() && !stop.isString() && !stop.isArray()) {
        *error = invalid(QStringLiteral("'stop' must be a string or an array of strings."), QStringLiteral("stop"),
                         QStringLiteral("invalid_type"));
        return false;
    }
    return true;
}

int estimateTokens(qsizetype bytes)
{
    // About four bytes a token for English; the bucket only needs an order of magnitude.
    return static_cast<int>(qMin<qsizetype>(bytes / 4 + 1, 100'000'000));
}

} // namespace

std::optional<ChatRequest> ChatRequest::parse(const QByteArray &json, ApiError *error)
{
    ChatRequest request;
    if (!parseObject(json, &request.body, error) || !requireModel(request.body, &request.model, error)
        || !checkMessages(request.body, error) || !checkOptionalTypes(request.body, error))
        return std::nullopt;
    request.stream = request.body.value(QStringLiteral("stream")).toBool(false);
    request.includeUsage = request.body.value(QStringLiteral("stream_options"))
                               .toObject()
                               .value(QStringLiteral("include_usage"))
                               .toBool(false);
    request.estimatedPromptTokens = estimateTokens(json.size());
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
