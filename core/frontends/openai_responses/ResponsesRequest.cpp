#include "frontends/openai_responses/ResponsesRequest.h"

#include "frontends/openai_responses/ResponsesCheck.h"
#include "frontends/openai_responses/ResponsesItems.h"
#include "frontends/openai_responses/ResponsesTools.h"

#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <limits>

namespace sb {

namespace {

using responses::Check;
using responses::given;
using responses::noteDropped;

const QLatin1String kType("type"), kRole("role"), kContent("content");

// OpenAI's metadata limits: 16 pairs, keys of at most 64 characters, string values of at most 512.
constexpr qsizetype MaxMetadataPairs = 16;
constexpr qsizetype MaxMetadataKeyChars = 64;
constexpr qsizetype MaxMetadataValueChars = 512;
// OpenAI's range for top_logprobs.
constexpr qint64 MaxTopLogprobs = 20;

// The top-level members this translation reads; any other is named in `dropped`.
const QSet<QString> &knownMembers()
{
    static const QSet<QString> members{
        QStringLiteral("model"),          QStringLiteral("input"),             QStringLiteral("instructions"),
        QStringLiteral("stream"),         QStringLiteral("store"),             QStringLiteral("previous_response_id"),
        QStringLiteral("tools"),          QStringLiteral("tool_choice"),       QStringLiteral("parallel_tool_calls"),
        QStringLiteral("text"),           QStringLiteral("reasoning"),         QStringLiteral("max_output_tokens"),
        QStringLiteral("temperature"),    QStringLiteral("top_p"),             QStringLiteral("user"),
        QStringLiteral("metadata"),       QStringLiteral("include"),           QStringLiteral("prompt_cache_key"),
        QStringLiteral("safety_identifier"), QStringLiteral("service_tier"),   QStringLiteral("truncation"),
        QStringLiteral("max_tool_calls"), QStringLiteral("top_logprobs"),      QStringLiteral("stream_options"),
        QStringLiteral("background"),     QStringLiteral("conversation"),      QStringLiteral("prompt")};
    return members;
}

// The body as one JSON object, or the 400 that says why it is not.
bool parseObject(const QByteArray &body, QJsonObject *out, Check &check)
{
    if (body.trimmed().isEmpty())
        return check.fail(QString(), QStringLiteral("The request body is empty. Send the Responses request as one JSON object."),
                          QStringLiteral("invalid_json"));
    // JSON allows no raw control characters but tab, LF and CR; Qt's parser lets some through, so a
    // NUL could smuggle itself into a model name or a prompt.
    const auto control = std::find_if(body.cbegin(), body.cend(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r';
    });
    if (control != body.cend())
        return check.fail(QString(),
                          QStringLiteral("The request body is not valid JSON (a raw control character 0x%1 at byte %2; escape it as \\u00XX).")
                              .arg(static_cast<unsigned char>(*control), 2, 16, QLatin1Char('0'))
                              .arg(control - body.cbegin()),
                          QStringLiteral("invalid_json"));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return check.fail(QString(),
                          QStringLiteral("The request body is not valid JSON (%1 at byte %2). Send the Responses request as one JSON object.")
                              .arg(parseError.errorString())
                              .arg(parseError.offset),
                          QStringLiteral("invalid_json"));
    if (!document.isObject())
        return check.fail(QString(), QStringLiteral("The request body must be a JSON object. Send the Responses request as one JSON object."),
                          QStringLiteral("invalid_json"));
    *out = document.object();
    return true;
}

class Translator {
public:
    Translator(ResponsesRequest *out, Check &check)
        : m_out(out)
        , m_check(check)
    {
    }

    bool run(const QJsonObject &root);

private:
    bool refused(const QJsonObject &root);
    bool conversation(const QJsonObject &root);
    bool tools(const QJsonObject &root);
    bool reasoning(const QJsonValue &value);
    bool sampling(const QJsonObject &root);
    bool metadata(const QJsonValue &value);
    bool acceptedNotSent(const QJsonObject &root);
    void echo(const QJsonObject &root);
    void drop(const QString &what) { noteDropped(&m_out->dropped, what); }

    ResponsesRequest *m_out;
    Check &m_check;
    QJsonObject &params() { return m_out->chatParameters; }
};

bool Translator::run(const QJsonObject &root)
{
    QString model;
    if (!m_check.requiredString(root, QLatin1String("model"), QString(), &model, true,
                                QStringLiteral("Name the model to answer, such as \"gpt-4o\"."))
        || !refused(root))
        return false;
    if (model.trimmed().isEmpty())
        return m_check.fail(QStringLiteral("model"), QStringLiteral("'model' must be a non-empty string."), QStringLiteral("invalid_type"));
    m_out->model = model;

    // Tools first: the items' custom tool calls need to know which tools are custom.
    if (!conversation(root) || !tools(root) || !reasoning(root.value(QLatin1String("reasoning"))) || !sampling(root)
        || !metadata(root.value(QLatin1String("metadata"))) || !acceptedNotSent(root))
        return false;

    QJsonValue format(QJsonValue::Undefined);
    if (!responses::chatResponseFormat(root.value(QLatin1String("text")), m_check, &format, &m_out->dropped))
        return false;
    if (!format.isUndefined())
        params().insert(QStringLiteral("response_format"), format);

    // The items are checked by translating them; chatBody() translates them again with the history.
    responses::itemsToChat(m_out->input, m_out->customTools, &m_check, &m_out->dropped);
    if (!m_check.ok())
        return false;

    echo(root);
    for (auto it = root.constBegin(); it != root.constEnd(); ++it)
        if (!knownMembers().contains(it.key()))
            drop(it.key());
    return true;
}

bool Translator::refused(const QJsonObject &root)
{
    std::optional<bool> background;
    if (!m_check.optionalBool(root, QLatin1String("background"), QString(), &background))
        return false;
    if (background.value_or(false))
        return m_check.fail(QStringLiteral("background"),
                            QStringLiteral("Switchboard has no background mode: send the request without 'background' and "
                                           "wait for the answer, or stream it."),
                            QStringLiteral("unsupported_parameter"));
    if (given(root.value(QLatin1String("conversation"))))
        return m_check.fail(QStringLiteral("conversation"),
                            QStringLiteral("Switchboard keeps no conversation objects: continue a conversation with "
                                           "previous_response_id, or send its earlier items in 'input'."),
                            QStringLiteral("unsupported_parameter"));
    if (given(root.value(QLatin1String("prompt"))))
        return m_check.fail(QStringLiteral("prompt"),
                            QStringLiteral("Switchboard has no stored prompt templates: send the prompt's text as "
                                           "'instructions' and 'input' instead."),
                            QStringLiteral("unsupported_parameter"));
    return true;
}

bool Translator::conversation(const QJsonObject &root)
{
    std::optional<bool> stream, store;
    if (!m_check.optionalBool(root, QLatin1String("stream"), QString(), &stream)
        || !m_check.optionalBool(root, QLatin1String("store"), QString(), &store)
        || !m_check.optionalString(root, QLatin1String("instructions"), QString(), &m_out->instructions))
        return false;
    m_out->stream = stream.value_or(false);
    m_out->store = store.value_or(true);

    const QJsonValue previous = root.value(QLatin1String("previous_response_id"));
    if (!m_check.optionalString(root, QLatin1String("previous_response_id"), QString(), &m_out->previousResponseId))
        return false;
    if (given(previous) && m_out->previousResponseId.isEmpty())
        return m_check.fail(QStringLiteral("previous_response_id"),
                            QStringLiteral("Invalid 'previous_response_id': empty string. Send the id of the response to "
                                           "continue, or leave the field out."),
                            QStringLiteral("empty_string"));

    const QJsonValue input = root.value(QLatin1String("input"));
    if (!given(input)) {
        if (m_out->previousResponseId.isEmpty())
            return m_check.missing(QStringLiteral("input"),
                                   QStringLiteral("Send the conversation as a string or a list of items, or continue an "
                                                  "earlier response with previous_response_id."));
        return true;
    }
    if (!responses::normalizedInput(input, m_check, &m_out->input))
        return false;
    if (m_out->input.isEmpty() && m_out->previousResponseId.isEmpty() && m_out->instructions.isEmpty())
        return m_check.fail(QStringLiteral("input"),
                            QStringLiteral("Invalid 'input': empty array. Send at least one item, such as a user message."),
                            QStringLiteral("empty_array"));
    return true;
}

bool Translator::tools(const QJsonObject &root)
{
    QJsonArray chatTools;
    if (!responses::chatTools(root.value(QLatin1String("tools")), m_check, &chatTools, &m_out->customTools, &m_out->dropped))
        return false;
    QJsonValue choice(QJsonValue::Undefined);
    if (!responses::chatToolChoice(root.value(QLatin1String("tool_choice")), m_out->customTools, m_check, &chatTools, &choice))
        return false;
    std::optional<bool> parallel;
    if (!m_check.optionalBool(root, QLatin1String("parallel_tool_calls"), QString(), &parallel))
        return false;
    // Chat Completions refuses tool_choice and parallel_tool_calls without tools.
    if (chatTools.isEmpty())
        return true;
    params().insert(QStringLiteral("tools"), chatTools);
    if (!choice.isUndefined())
        params().insert(QStringLiteral("tool_choice"), choice);
    if (parallel)
        params().insert(QStringLiteral("parallel_tool_calls"), *parallel);
    return true;
}

bool Translator::reasoning(const QJsonValue &value)
{
    if (!given(value))
        return true;
    if (!value.isObject())
        return m_check.wrongType(QStringLiteral("reasoning"), value, QStringLiteral("an object such as {\"effort\": \"medium\"}"));
    const QJsonObject object = value.toObject();
    QString effort, summary, generateSummary;
    const QStringList summaries{QStringLiteral("auto"), QStringLiteral("concise"), QStringLiteral("detailed")};
    if (!m_check.optionalEnum(object, QLatin1String("effort"), QStringLiteral("reasoning"),
                              {QStringLiteral("none"), QStringLiteral("minimal"), QStringLiteral("low"), QStringLiteral("medium"),
                               QStringLiteral("high"), QStringLiteral("xhigh")},
                              &effort)
        || !m_check.optionalEnum(object, QLatin1String("summary"), QStringLiteral("reasoning"), summaries, &summary)
        || !m_check.optionalEnum(object, QLatin1String("generate_summary"), QStringLiteral("reasoning"), summaries, &generateSummary))
        return false;
    if (!effort.isEmpty())
        params().insert(QStringLiteral("reasoning_effort"), effort);
    // Chat Completions returns no reasoning summaries.
    if (!summary.isEmpty() || !generateSummary.isEmpty())
        drop(QStringLiteral("reasoning.summary"));
    return true;
}

bool Translator::sampling(const QJsonObject &root)
{
    std::optional<qint64> maxTokens;
    std::optional<double> temperature, topP;
    QString user;
    if (!m_check.optionalInteger(root, QLatin1String("max_output_tokens"), QString(), 1, std::numeric_limits<int>::max(), &maxTokens)
        || !m_check.optionalNumber(root, QLatin1String("temperature"), QString(), 0.0, 2.0, &temperature)
        || !m_check.optionalNumber(root, QLatin1String("top_p"), QString(), 0.0, 1.0, &topP)
        || !m_check.optionalString(root, QLatin1String("user"), QString(), &user))
        return false;
    m_out->maxOutputTokens = static_cast<int>(maxTokens.value_or(0));
    if (temperature)
        params().insert(QStringLiteral("temperature"), *temperature);
    if (topP)
        params().insert(QStringLiteral("top_p"), *topP);
    if (given(root.value(QLatin1String("user"))))
        params().insert(QStringLiteral("user"), user);
    return true;
}

bool Translator::metadata(const QJsonValue &value)
{
    const QString path = QStringLiteral("metadata");
    if (!given(value))
        return true;
    if (!value.isObject())
        return m_check.wrongType(path, value, QStringLiteral("an object of string values"));
    const QJsonObject object = value.toObject();
    if (object.size() > MaxMetadataPairs)
        return m_check.fail(path, QStringLiteral("Invalid 'metadata': too many properties. Expected at most %1 key-value pairs, but got %2.")
                                      .arg(MaxMetadataPairs)
                                      .arg(object.size()),
                            QStringLiteral("object_above_max_properties"));
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        const QString where = path + QLatin1Char('.') + it.key();
        if (it.key().size() > MaxMetadataKeyChars)
            return m_check.fail(where, QStringLiteral("Invalid 'metadata': a key is longer than %1 characters.").arg(MaxMetadataKeyChars),
                                QStringLiteral("string_above_max_length"));
        if (!it.value().isString())
            return m_check.wrongType(where, it.value(), QStringLiteral("a string"));
        if (it.value().toString().size() > MaxMetadataValueChars)
            return m_check.fail(where, QStringLiteral("Invalid '%1': string longer than %2 characters.").arg(where).arg(MaxMetadataValueChars),
                                QStringLiteral("string_above_max_length"));
    }
    // Kept on the response only: an upstream has no use for the client's labels.
    if (!object.isEmpty())
        drop(path);
    return true;
}

bool Translator::acceptedNotSent(const QJsonObject &root)
{
    const QJsonValue include = root.value(QLatin1String("include"));
    if (given(include)) {
        if (!include.isArray())
            return m_check.wrongType(QStringLiteral("include"), include, QStringLiteral("an array of strings"));
        const QJsonArray list = include.toArray();
        for (qsizetype i = 0; i < list.size(); ++i)
            if (!list.at(i).isString())
                return m_check.wrongType(responses::indexPath(QStringLiteral("include"), i), list.at(i), QStringLiteral("a string"));
        if (!list.isEmpty())
            drop(QStringLiteral("include"));
    }
    QString ignored;
    for (const char *key : {"prompt_cache_key", "safety_identifier", "service_tier"}) {
        if (!m_check.optionalString(root, QLatin1String(key), QString(), &ignored))
            return false;
        if (given(root.value(QLatin1String(key))))
            drop(QLatin1String(key));
    }
    QString truncation;
    if (!m_check.optionalEnum(root, QLatin1String("truncation"), QString(), {QStringLiteral("auto"), QStringLiteral("disabled")}, &truncation))
        return false;
    // "disabled" is what happens anyway: a conversation too long for the model fails upstream.
    if (truncation == QLatin1String("auto"))
        drop(QStringLiteral("truncation"));
    std::optional<qint64> n;
    if (!m_check.optionalInteger(root, QLatin1String("max_tool_calls"), QString(), 0, std::numeric_limits<int>::max(), &n))
        return false;
    if (n)
        drop(QStringLiteral("max_tool_calls"));
    n.reset();
    if (!m_check.optionalInteger(root, QLatin1String("top_logprobs"), QString(), 0, MaxTopLogprobs, &n))
        return false;
    if (n)
        drop(QStringLiteral("top_logprobs"));
    const QJsonValue streamOptions = root.value(QLatin1String("stream_options"));
    if (given(streamOptions)) {
        if (!streamOptions.isObject())
            return m_check.wrongType(QStringLiteral("stream_options"), streamOptions, QStringLiteral("an object"));
        if (!streamOptions.toObject().isEmpty())
            drop(QStringLiteral("stream_options"));
    }
    return true;
}

void Translator::echo(const QJsonObject &root)
{
    const auto givenOr = [&root](const char *key, const QJsonValue &fallback) {
        const QJsonValue value = root.value(QLatin1String(key));
        return given(value) ? value : fallback;
    };
    const QJsonValue null(QJsonValue::Null);
    QJsonObject &echo = m_out->echo;
    echo.insert(QStringLiteral("instructions"), givenOr("instructions", null));
    echo.insert(QStringLiteral("tools"), givenOr("tools", QJsonArray()));
    echo.insert(QStringLiteral("tool_choice"), givenOr("tool_choice", QStringLiteral("auto")));
    echo.insert(QStringLiteral("parallel_tool_calls"), givenOr("parallel_tool_calls", true));
    echo.insert(QStringLiteral("max_output_tokens"), givenOr("max_output_tokens", null));
    echo.insert(QStringLiteral("temperature"), givenOr("temperature", 1.0));
    echo.insert(QStringLiteral("top_p"), givenOr("top_p", 1.0));

    QJsonObject text = root.value(QLatin1String("text")).toObject();
    if (!given(text.value(QLatin1String("format"))))
        text.insert(QStringLiteral("format"), QJsonObject{{kType, QStringLiteral("text")}});
    echo.insert(QStringLiteral("text"), text);

    const QJsonObject reasoning = root.value(QLatin1String("reasoning")).toObject();
    QJsonValue summary = reasoning.value(QLatin1String("summary"));
    if (!given(summary))
        summary = reasoning.value(QLatin1String("generate_summary"));
    const QJsonValue effort = reasoning.value(QLatin1String("effort"));
    echo.insert(QStringLiteral("reasoning"), QJsonObject{{QStringLiteral("effort"), given(effort) ? effort : null},
                                                         {QStringLiteral("summary"), given(summary) ? summary : null}});

    echo.insert(QStringLiteral("metadata"), givenOr("metadata", QJsonObject()));
    echo.insert(QStringLiteral("user"), givenOr("user", null));
    echo.insert(QStringLiteral("truncation"), givenOr("truncation", QStringLiteral("disabled")));
    echo.insert(QStringLiteral("store"), m_out->store);
    echo.insert(QStringLiteral("previous_response_id"),
                m_out->previousResponseId.isEmpty() ? null : QJsonValue(m_out->previousResponseId));
}

} // namespace

int ResponsesRequest::estimateTokens(qsizetype bytes)
{
    // About four bytes a token for English, as the other front doors estimate; the bucket only
    // needs an order of magnitude.
    return static_cast<int>(qMin<qsizetype>(bytes / 4 + 1, 100'000'000));
}

std::optional<ResponsesRequest> ResponsesRequest::parse(const QByteArray &body, ApiError *error)
{
    Check check;
    QJsonObject root;
    ResponsesRequest request;
    if (!parseObject(body, &root, check) || !Translator(&request, check).run(root)) {
        if (error)
            *error = check.error.value_or(ApiError{400, QStringLiteral("The request is not a valid Responses request."),
                                                   QStringLiteral("invalid_request_error"), QString(), QString()});
        return std::nullopt;
    }
    request.original = body;
    request.estimatedPromptTokens = estimateTokens(body.size());
    return request;
}

QJsonArray ResponsesRequest::inputItems() const
{
    return inputJson.isEmpty() ? input : QJsonDocument::fromJson(inputJson).array();
}

QJsonObject ResponsesRequest::chatBody(const QJsonArray &history) const
{
    QJsonObject body = chatParameters;
    body.insert(QStringLiteral("model"), model);

    QJsonArray messages;
    if (!instructions.isEmpty())
        messages.append(QJsonObject{{kRole, QStringLiteral("system")}, {kContent, instructions}});
    // One list, so that a turn split across the two (calls kept, outputs sent now) stays one turn.
    QJsonArray items = history;
    for (const QJsonValue &item : inputItems())
        items.append(item);
    for (const QJsonValue &message : chatMessages(items, customTools))
        messages.append(message);
    body.insert(QStringLiteral("messages"), messages);

    if (maxOutputTokens > 0)
        body.insert(QStringLiteral("max_tokens"), maxOutputTokens);
    if (stream) {
        body.insert(QStringLiteral("stream"), true);
        // The answer side needs the usage, which a chat stream sends only when asked.
        body.insert(QStringLiteral("stream_options"), QJsonObject{{QStringLiteral("include_usage"), true}});
    }
    return body;
}

QJsonArray ResponsesRequest::chatMessages(const QJsonArray &items, const QSet<QString> &customTools)
{
    return responses::itemsToChat(items, customTools, nullptr, nullptr);
}

} // namespace sb
