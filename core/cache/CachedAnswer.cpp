#include "cache/CachedAnswer.h"

#include <QDataStream>
#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <map>

namespace sb {

namespace {

constexpr quint32 kFormat = 1;

// One choice of a streamed answer, merged from its deltas.
struct MergedChoice {
    QString role = QStringLiteral("assistant");
    QString content;
    bool hasContent = false;
    QJsonValue finishReason = QJsonValue::Null;
    std::map<int, QJsonObject> toolCalls; // by tool-call index
};

void mergeToolCall(QJsonObject &into, const QJsonObject &delta)
{
    for (const char *field : {"id", "type"})
        if (delta.contains(QLatin1String(field)))
            into.insert(QLatin1String(field), delta.value(QLatin1String(field)));
    const QJsonObject fn = delta.value(QLatin1String("function")).toObject();
    if (fn.isEmpty())
        return;
    QJsonObject merged = into.value(QLatin1String("function")).toObject();
    for (const char *field : {"name", "arguments"}) {
        if (fn.contains(QLatin1String(field)))
            merged.insert(QLatin1String(field), merged.value(QLatin1String(field)).toString() + fn.value(QLatin1String(field)).toString());
    }
    into.insert(QStringLiteral("function"), merged);
}

} // namespace

qint64 CachedAnswer::bytes() const
{
    qint64 total = completion.size();
    for (const QByteArray &e : events)
        total += e.size() + 16; // the per-event overhead of the vector and its array headers
    return total;
}

std::vector<QByteArray> CachedAnswer::toChunks() const
{
    if (isStream())
        return events;
    // A whole answer as the chunks a provider would have sent: the message, the end, the usage.
    std::vector<QByteArray> chunks;
    const QJsonObject c = QJsonDocument::fromJson(completion).object();
    QJsonObject base{{QStringLiteral("id"), c.value(QLatin1String("id"))},
                     {QStringLiteral("object"), QStringLiteral("chat.completion.chunk")},
                     {QStringLiteral("created"), c.value(QLatin1String("created"))},
                     {QStringLiteral("model"), c.value(QLatin1String("model"))}};
    QJsonArray first, last;
    for (const QJsonValue &v : c.value(QLatin1String("choices")).toArray()) {
        const QJsonObject choice = v.toObject();
        QJsonObject delta = choice.value(QLatin1String("message")).toObject();
        QJsonArray calls = delta.value(QLatin1String("tool_calls")).toArray();
        for (qsizetype i = 0; i < calls.size(); ++i) {
            QJsonObject call = calls[i].toObject();
            call.insert(QStringLiteral("index"), int(i));
            calls[i] = call;
        }
        if (!calls.isEmpty())
            delta.insert(QStringLiteral("tool_calls"), calls);
        const QJsonValue index = choice.value(QLatin1String("index"));
        first.append(QJsonObject{{QStringLiteral("index"), index}, {QStringLiteral("delta"), delta},
                                 {QStringLiteral("finish_reason"), QJsonValue::Null}});
        last.append(QJsonObject{{QStringLiteral("index"), index}, {QStringLiteral("delta"), QJsonObject{}},
                                {QStringLiteral("finish_reason"), choice.value(QLatin1String("finish_reason"))}});
    }
    for (const QJsonArray &choices : {first, last}) {
        QJsonObject chunk = base;
        chunk.insert(QStringLiteral("choices"), choices);
        chunks.push_back(QJsonDocument(chunk).toJson(QJsonDocument::Compact));
    }
    if (c.contains(QLatin1String("usage"))) {
        QJsonObject chunk = base;
        chunk.insert(QStringLiteral("choices"), QJsonArray{});
        chunk.insert(QStringLiteral("usage"), c.value(QLatin1String("usage")));
        chunks.push_back(QJsonDocument(chunk).toJson(QJsonDocument::Compact));
    }
    return chunks;
}

QByteArray CachedAnswer::toSseBody() const
{
    const std::vector<QByteArray> chunks = toChunks();
    qint64 size = 16;
    for (const QByteArray &e : chunks)
        size += e.size() + 8;
    QByteArray out;
    out.reserve(size);
    for (const QByteArray &e : chunks) {
        out.append("data: ");
        out.append(e);
        out.append("\n\n");
    }
    out.append("data: [DONE]\n\n");
    return out;
}

QByteArray CachedAnswer::toCompletionJson() const
{
    if (!isStream())
        return completion;
    QJsonObject head;
    QJsonValue usage;
    std::map<int, MergedChoice> choices;
    for (const QByteArray &e : events) {
        const QJsonObject chunk = QJsonDocument::fromJson(e).object();
        if (head.isEmpty())
            for (const char *field : {"id", "created", "model", "system_fingerprint"})
                if (chunk.contains(QLatin1String(field)))
                    head.insert(QLatin1String(field), chunk.value(QLatin1String(field)));
        if (chunk.contains(QLatin1String("usage")) && chunk.value(QLatin1String("usage")).isObject())
            usage = chunk.value(QLatin1String("usage"));
        for (const QJsonValue &v : chunk.value(QLatin1String("choices")).toArray()) {
            const QJsonObject c = v.toObject();
            MergedChoice &m = choices[c.value(QLatin1String("index")).toInt()];
            const QJsonObject delta = c.value(QLatin1String("delta")).toObject();
            if (delta.contains(QLatin1String("role")))
                m.role = delta.value(QLatin1String("role")).toString();
            if (delta.value(QLatin1String("content")).isString()) {
                m.content += delta.value(QLatin1String("content")).toString();
                m.hasContent = true;
            }
            for (const QJsonValue &t : delta.value(QLatin1String("tool_calls")).toArray()) {
                const QJsonObject call = t.toObject();
                mergeToolCall(m.toolCalls[call.value(QLatin1String("index")).toInt()], call);
            }
            if (!c.value(QLatin1String("finish_reason")).isNull() && !c.value(QLatin1String("finish_reason")).isUndefined())
                m.finishReason = c.value(QLatin1String("finish_reason"));
        }
    }
    QJsonArray out;
    for (const auto &[index, m] : choices) {
        QJsonObject message{{QStringLiteral("role"), m.role},
                            {QStringLiteral("content"), m.hasContent || m.toolCalls.empty() ? QJsonValue(m.content) : QJsonValue::Null}};
        if (!m.toolCalls.empty()) {
            QJsonArray calls;
            for (const auto &[i, call] : m.toolCalls)
                calls.append(call);
            message.insert(QStringLiteral("tool_calls"), calls);
        }
        out.append(QJsonObject{{QStringLiteral("index"), index}, {QStringLiteral("message"), message},
                               {QStringLiteral("finish_reason"), m.finishReason}});
    }
    QJsonObject completionObject = head;
    completionObject.insert(QStringLiteral("object"), QStringLiteral("chat.completion"));
    completionObject.insert(QStringLiteral("choices"), out);
    if (usage.isObject())
        completionObject.insert(QStringLiteral("usage"), usage);
    return QJsonDocument(completionObject).toJson(QJsonDocument::Compact);
}

QByteArray CachedAnswer::serialize() const
{
    QByteArray out;
    QDataStream stream(&out, QIODevice::WriteOnly);
    stream.setVersion(QDataStream::Qt_6_0);
    stream << kFormat << completion << quint32(events.size());
    for (const QByteArray &e : events)
        stream << e;
    return out;
}

std::optional<CachedAnswer> CachedAnswer::deserialize(const QByteArray &bytes)
{
    QDataStream stream(bytes);
    stream.setVersion(QDataStream::Qt_6_0);
    quint32 format = 0, count = 0;
    CachedAnswer answer;
    stream >> format;
    if (format != kFormat)
        return std::nullopt;
    stream >> answer.completion >> count;
    if (stream.status() != QDataStream::Ok || count > 1'000'000)
        return std::nullopt;
    answer.events.reserve(count);
    for (quint32 i = 0; i < count; ++i) {
        QByteArray e;
        stream >> e;
        answer.events.push_back(std::move(e));
    }
    if (stream.status() != QDataStream::Ok || (answer.events.empty() && answer.completion.isEmpty()))
        return std::nullopt;
    return answer;
}

} // namespace sb
