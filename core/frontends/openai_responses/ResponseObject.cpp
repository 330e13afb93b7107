#include "frontends/openai_responses/ResponseObject.h"

#include "common/json/JsonText.h"
#include "providers/common/ProviderText.h"

#include <QJsonDocument>
#include <QVarLengthArray>

#include <algorithm>
#include <array>
#include <iterator>
#include <string>

namespace sb {

namespace {

const QLatin1String kType("type"), kId("id"), kStatus("status");

QJsonValue null() { return QJsonValue(QJsonValue::Null); }

// What the response says of itself; a request parameter of the same name cannot change it.
bool ownedByTheResponse(const QString &key)
{
    static const QSet<QString> owned{QStringLiteral("id"),     QStringLiteral("object"),       QStringLiteral("created_at"),
                                     QStringLiteral("status"), QStringLiteral("completed_at"), QStringLiteral("error"),
                                     QStringLiteral("incomplete_details"), QStringLiteral("model"), QStringLiteral("output"),
                                     QStringLiteral("output_text"), QStringLiteral("usage")};
    return owned.contains(key);
}

} // namespace

ResponseEnding ResponseEnding::finished(const QString &incompleteReason)
{
    ResponseEnding ending;
    ending.status = incompleteReason.isEmpty() ? QByteArrayView("completed") : QByteArrayView("incomplete");
    if (!incompleteReason.isEmpty()) {
        ending.incompleteDetails = "{\"reason\":";
        appendJsonString(&ending.incompleteDetails, incompleteReason);
        ending.incompleteDetails += '}';
    }
    return ending;
}

QString ResponseObject::itemId(const ResponseFrame &frame, QLatin1String prefix, int outputIndex)
{
    const QStringView base = frame.id.startsWith(QLatin1String("resp_")) ? QStringView(frame.id).mid(5) : QStringView(frame.id);
    QString id;
    id.reserve(prefix.size() + base.size() + 8);
    id.append(prefix).append(QLatin1Char('_')).append(base).append(QLatin1Char('_')).append(QString::number(outputIndex));
    return id;
}

QString ResponseObject::callId(const ResponseFrame &frame, const QString &upstreamId, int outputIndex, QSet<QString> *used)
{
    QString id = upstreamId.isEmpty() ? itemId(frame, QLatin1String("call"), outputIndex) : upstreamId;
    if (used->contains(id))
        id += QStringLiteral("_%1").arg(outputIndex);
    used->insert(id);
    return id;
}

namespace {

// Where in the object a repeated member goes: the reference lists them around "model", "output"
// and "usage".
enum class EchoPlace { BeforeModel, AfterOutput, AfterUsage };
// The members a response repeats from its request, in the reference's order, each with the value
// OpenAI documents for a request that did not give it; a frame's echo replaces the value.
struct EchoedMember {
    QLatin1String key;
    const char *fallback;
    EchoPlace place;
};
const EchoedMember kEchoed[] = {
    {QLatin1String("instructions"), "null", EchoPlace::BeforeModel},
    {QLatin1String("max_output_tokens"), "null", EchoPlace::BeforeModel},
    {QLatin1String("parallel_tool_calls"), "true", EchoPlace::AfterOutput},
    {QLatin1String("previous_response_id"), "null", EchoPlace::AfterOutput},
    {QLatin1String("reasoning"), R"({"effort":null,"summary":null})", EchoPlace::AfterOutput},
    {QLatin1String("store"), "true", EchoPlace::AfterOutput},
    {QLatin1String("temperature"), "1", EchoPlace::AfterOutput},
    {QLatin1String("text"), R"({"format":{"type":"text"}})", EchoPlace::AfterOutput},
    {QLatin1String("tool_choice"), R"("auto")", EchoPlace::AfterOutput},
    {QLatin1String("tools"), "[]", EchoPlace::AfterOutput},
    {QLatin1String("top_p"), "1", EchoPlace::AfterOutput},
    {QLatin1String("truncation"), R"("disabled")", EchoPlace::AfterOutput},
    {QLatin1String("user"), "null", EchoPlace::AfterUsage},
    {QLatin1String("metadata"), "{}", EchoPlace::AfterUsage},
};

// The frame's echo sorted into the places the reference lists its members, in one pass over the
// echo: a request repeats a few members, and looking each of the fourteen listed ones up in it
// cost more than writing the rest of the object.
class EchoPlaces {
public:
    explicit EchoPlaces(const QJsonObject &echo) : m_end(echo.constEnd())
    {
        m_found.fill(m_end);
        for (auto it = echo.constBegin(); it != m_end; ++it) {
            const QString key = it.key();
            const auto listed = std::find_if(std::begin(kEchoed), std::end(kEchoed), [&key](const EchoedMember &m) { return key == m.key; });
            if (listed != std::end(kEchoed))
                m_found[std::size_t(listed - std::begin(kEchoed))] = it;
            else if (!ownedByTheResponse(key))
                m_others.append(it);
        }
    }

    // The members listed for `place`, each with the echo's value or the documented default.
    void append(std::string *out, EchoPlace place) const
    {
        for (std::size_t i = 0; i < std::size(kEchoed); ++i) {
            if (kEchoed[i].place != place)
                continue;
            out->append(",\"");
            out->append(kEchoed[i].key.data(), std::size_t(kEchoed[i].key.size()));
            out->append("\":");
            if (m_found[i] == m_end)
                out->append(kEchoed[i].fallback);
            else
                appendJsonValue(out, m_found[i].value());
        }
    }

    // Whatever else the request asked the response to repeat, after what the reference lists.
    void appendOthers(std::string *out) const
    {
        for (const QJsonObject::const_iterator &it : m_others) {
            *out += ',';
            appendJsonString(out, it.key());
            *out += ':';
            appendJsonValue(out, it.value());
        }
    }

private:
    QJsonObject::const_iterator m_end;
    std::array<QJsonObject::const_iterator, std::size(kEchoed)> m_found;
    QVarLengthArray<QJsonObject::const_iterator, 4> m_others;
};

} // namespace

QByteArray ResponseObject::write(const ResponseFrame &frame, const ResponseEnding &ending)
{
    // Built in a std::string: some fifty pieces, each a call into QByteArray's general insert
    // otherwise (a third of what writing the object cost).
    std::string out;
    out.reserve(std::size_t(640 + ending.output.size() + ending.usage.size()));
    out.append("{\"id\":");
    appendJsonString(&out, frame.id);
    out.append(",\"object\":\"response\",\"created_at\":");
    appendJsonNumber(&out, frame.createdAt);
    out.append(",\"status\":\"");
    appendJsonText(&out, ending.status);
    out.append("\",\"error\":");
    appendJsonText(&out, ending.error);
    out.append(",\"incomplete_details\":");
    appendJsonText(&out, ending.incompleteDetails);
    const EchoPlaces echo(frame.echo);
    echo.append(&out, EchoPlace::BeforeModel);
    out.append(",\"model\":");
    appendJsonString(&out, frame.model);
    out.append(",\"output\":");
    appendJsonText(&out, ending.output);
    echo.append(&out, EchoPlace::AfterOutput);
    out.append(",\"usage\":");
    appendJsonText(&out, ending.usage);
    echo.append(&out, EchoPlace::AfterUsage);
    echo.appendOthers(&out);
    out += '}';
    return QByteArray(out.data(), qsizetype(out.size()));
}

QJsonObject ResponseObject::response(const ResponseFrame &frame)
{
    return QJsonDocument::fromJson(write(frame, ResponseEnding{})).object();
}

QString ResponseObject::incompleteReason(const QString &finishReason)
{
    if (finishReason == QLatin1String("length"))
        return QStringLiteral("max_output_tokens");
    if (finishReason == QLatin1String("content_filter"))
        return QStringLiteral("content_filter");
    return QString();
}

void ResponseObject::conclude(QJsonObject *response, const QString &incompleteReason, const QJsonArray &output, const QJsonValue &usage)
{
    response->insert(kStatus, incompleteReason.isEmpty() ? QStringLiteral("completed") : QStringLiteral("incomplete"));
    response->insert(QStringLiteral("incomplete_details"),
                     incompleteReason.isEmpty() ? null() : QJsonValue(QJsonObject{{QStringLiteral("reason"), incompleteReason}}));
    response->insert(QStringLiteral("output"), output);
    response->insert(QStringLiteral("usage"), usage);
}

void ResponseObject::fail(QJsonObject *response, const ApiError &error, const QJsonArray &output)
{
    QString code = error.code;
    if (code.isEmpty())
        code = error.status == 429 ? QStringLiteral("rate_limit_exceeded") : QStringLiteral("server_error");
    response->insert(kStatus, QStringLiteral("failed"));
    response->insert(QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), code}, {QStringLiteral("message"), error.message}});
    response->insert(QStringLiteral("output"), output);
}

QJsonObject ResponseObject::outputText(const QString &text)
{
    // logprobs is required by the reference; an upstream's chat logprobs are not carried over.
    return QJsonObject{{kType, QStringLiteral("output_text")},
                       {QStringLiteral("text"), text},
                       {QStringLiteral("annotations"), QJsonArray()},
                       {QStringLiteral("logprobs"), QJsonArray()}};
}

QJsonObject ResponseObject::refusal(const QString &text)
{
    return QJsonObject{{kType, QStringLiteral("refusal")}, {QStringLiteral("refusal"), text}};
}

QJsonObject ResponseObject::summaryText(const QString &text)
{
    return QJsonObject{{kType, QStringLiteral("summary_text")}, {QStringLiteral("text"), text}};
}

QJsonObject ResponseObject::message(const QString &id, const QString &status, const QJsonArray &content)
{
    return QJsonObject{{kId, id},
                       {kType, QStringLiteral("message")},
                       {kStatus, status},
                       {QStringLiteral("role"), QStringLiteral("assistant")},
                       {QStringLiteral("content"), content}};
}

QJsonObject ResponseObject::reasoning(const QString &id, const QString &status, const QJsonArray &summary)
{
    return QJsonObject{{kId, id}, {kType, QStringLiteral("reasoning")}, {kStatus, status}, {QStringLiteral("summary"), summary}};
}

QJsonObject ResponseObject::functionCall(const QString &id, const QString &status, const QString &callId, const QString &name,
                                        const QString &arguments)
{
    return QJsonObject{{kId, id},
                       {kType, QStringLiteral("function_call")},
                       {kStatus, status},
                       {QStringLiteral("call_id"), callId},
                       {QStringLiteral("name"), name},
                       {QStringLiteral("arguments"), arguments}};
}

QJsonObject ResponseObject::customToolCall(const QString &id, const QString &status, const QString &callId, const QString &name,
                                          const QString &input)
{
    return QJsonObject{{kId, id},
                       {kType, QStringLiteral("custom_tool_call")},
                       {kStatus, status},
                       {QStringLiteral("call_id"), callId},
                       {QStringLiteral("name"), name},
                       {QStringLiteral("input"), input}};
}

QString ResponseObject::customToolInput(const QString &arguments)
{
    QJsonObject object;
    if (parseJsonObject(arguments.toUtf8(), &object)) {
        const QJsonValue input = object.value(QLatin1String("input"));
        if (input.isString())
            return input.toString();
    }
    return arguments;
}

} // namespace sb
