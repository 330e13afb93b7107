#pragma once

#include "stream/SseParser.h"

#include "TestPaths.h"

#include <QByteArray>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

// Reading Anthropic's wire format back, for the tests of the Anthropic front door: the fixtures
// under tests/fixtures/anthropic_messages/, an SSE byte stream as events, the stream grammar
// Anthropic documents (checked event by event), and a stream folded into the message it describes,
// the way the Anthropic SDKs accumulate one. Header-only: every tst_* of this folder links the
// folder's .cpp files, and the other tests here need none of this.

namespace sb::test {

inline QByteArray readAnthropicFixture(const QString &name)
{
    QFile file(sourcePath(QStringLiteral("tests/fixtures/anthropic_messages/") + name));
    if (!file.open(QIODevice::ReadOnly))
        return QByteArray();
    return file.readAll();
}

inline QJsonObject anthropicFixtureObject(const QString &name)
{
    return QJsonDocument::fromJson(readAnthropicFixture(name)).object();
}

struct WireEvent {
    QByteArray name;  // the "event:" field
    QByteArray raw;   // the data as sent
    QJsonObject data; // the data parsed (empty when it is not a JSON object)
};

inline QList<WireEvent> parseEvents(const QByteArray &sse)
{
    SseParser parser;
    std::vector<SseEvent> events = parser.feed(sse);
    for (SseEvent &e : parser.finish())
        events.push_back(std::move(e));
    QList<WireEvent> out;
    for (const SseEvent &e : events)
        out.append(WireEvent{e.event, e.data, QJsonDocument::fromJson(e.data).object()});
    return out;
}

// The payloads of an OpenAI chunk stream, without the closing "[DONE]".
inline QList<QByteArray> openAiPayloads(const QByteArray &sse)
{
    QList<QByteArray> out;
    for (const WireEvent &e : parseEvents(sse))
        if (e.raw != "[DONE]")
            out.append(e.raw);
    return out;
}

inline QStringList eventTypes(const QList<WireEvent> &events, bool withPings = false)
{
    QStringList out;
    for (const WireEvent &e : events)
        if (withPings || e.name != "ping")
            out << QString::fromUtf8(e.name);
    return out;
}

// What breaks Anthropic's stream grammar first, or an empty string when nothing does: the event
// name is the data's type; message_start once and first; blocks with contiguous indices from 0,
// each stopped before the next starts, deltas only into the open block and of its kind;
// message_delta once, after the last block, with a stop_reason and output_tokens; message_stop
// last. An error event ends the stream wherever it comes.
inline QString grammarViolation(const QList<WireEvent> &events)
{
    enum { BeforeStart, Started, AfterDelta, Stopped } phase = BeforeStart;
    int nextIndex = 0;
    int openIndex = -1;
    QString openType;
    for (qsizetype i = 0; i < events.size(); ++i) {
        const WireEvent &e = events.at(i);
        const QString at = QStringLiteral("event %1 (%2): ").arg(i).arg(QString::fromUtf8(e.name));
        if (e.data.value(QLatin1String("type")).toString() != QString::fromUtf8(e.name))
            return at + QStringLiteral("data type is \"%1\"").arg(e.data.value(QLatin1String("type")).toString());
        if (phase == Stopped)
            return at + QStringLiteral("after message_stop");
        if (e.name == "error") {
            if (i != events.size() - 1)
                return at + QStringLiteral("an error event is not the last");
            if (e.data.value(QLatin1String("error")).toObject().value(QLatin1String("type")).toString().isEmpty())
                return at + QStringLiteral("error without a type");
            return QString();
        }
        if (e.name == "ping") {
            if (phase == BeforeStart)
                return at + QStringLiteral("ping before message_start");
            continue;
        }
        if (e.name == "message_start") {
            if (phase != BeforeStart)
                return at + QStringLiteral("a second message_start");
            const QJsonObject message = e.data.value(QLatin1String("message")).toObject();
            if (message.value(QLatin1String("type")).toString() != QLatin1String("message")
                || message.value(QLatin1String("role")).toString() != QLatin1String("assistant")
                || !message.value(QLatin1String("content")).toArray().isEmpty()
                || !message.value(QLatin1String("id")).isString())
                return at + QStringLiteral("the message is not an empty assistant message");
            phase = Started;
            continue;
        }
        if (phase == BeforeStart)
            return at + QStringLiteral("before message_start");
        const int index = e.data.value(QLatin1String("index")).toInt(-1);
        if (e.name == "content_block_start") {
            if (phase != Started)
                return at + QStringLiteral("a block after message_delta");
            if (openIndex >= 0)
                return at + QStringLiteral("block %1 starts while block %2 is open").arg(index).arg(openIndex);
            if (index != nextIndex)
                return at + QStringLiteral("index %1, expected %2").arg(index).arg(nextIndex);
            openType = e.data.value(QLatin1String("content_block")).toObject().value(QLatin1String("type")).toString();
            if (openType != QLatin1String("text") && openType != QLatin1String("tool_use") && openType != QLatin1String("thinking"))
                return at + QStringLiteral("unknown block type \"%1\"").arg(openType);
            if (openType == QLatin1String("tool_use")) {
                const QJsonObject block = e.data.value(QLatin1String("content_block")).toObject();
                if (block.value(QLatin1String("id")).toString().isEmpty() || !block.value(QLatin1String("input")).isObject())
                    return at + QStringLiteral("tool_use block without id or input");
            }
            openIndex = index;
            ++nextIndex;
        } else if (e.name == "content_block_delta") {
            if (openIndex < 0 || index != openIndex)
                return at + QStringLiteral("delta for block %1, open is %2").arg(index).arg(openIndex);
            const QString deltaType = e.data.value(QLatin1String("delta")).toObject().value(QLatin1String("type")).toString();
            const bool fits = (openType == QLatin1String("text") && deltaType == QLatin1String("text_delta"))
                || (openType == QLatin1String("tool_use") && deltaType == QLatin1String("input_json_delta"))
                || (openType == QLatin1String("thinking")
                    && (deltaType == QLatin1String("thinking_delta") || deltaType == QLatin1String("signature_delta")));
            if (!fits)
                return at + QStringLiteral("%1 into a %2 block").arg(deltaType, openType);
        } else if (e.name == "content_block_stop") {
            if (openIndex < 0 || index != openIndex)
                return at + QStringLiteral("stop for block %1, open is %2").arg(index).arg(openIndex);
            openIndex = -1;
        } else if (e.name == "message_delta") {
            if (phase != Started)
                return at + QStringLiteral("a second message_delta");
            if (openIndex >= 0)
                return at + QStringLiteral("block %1 is still open").arg(openIndex);
            if (!e.data.value(QLatin1String("delta")).toObject().value(QLatin1String("stop_reason")).isString())
                return at + QStringLiteral("no stop_reason");
            phase = AfterDelta;
        } else if (e.name == "message_stop") {
            if (phase != AfterDelta)
                return at + QStringLiteral("message_stop without message_delta");
            phase = Stopped;
        } else {
            return at + QStringLiteral("not an event of the Messages stream");
        }
    }
    return phase == Stopped ? QString() : QStringLiteral("the stream does not end with message_stop");
}

// The message a (grammatical) stream describes: blocks with their text, thinking or tool input
// (the partial_json pieces joined and parsed), stop_reason, stop_sequence and usage, the later
// counts of message_delta replacing those of message_start.
inline QJsonObject accumulate(const QList<WireEvent> &events)
{
    QJsonObject message;
    QJsonArray content;
    QStringList toolJson;
    for (const WireEvent &e : events) {
        if (e.name == "message_start") {
            message = e.data.value(QLatin1String("message")).toObject();
        } else if (e.name == "content_block_start") {
            content.append(e.data.value(QLatin1String("content_block")).toObject());
            toolJson.append(QString());
        } else if (e.name == "content_block_delta") {
            const int index = e.data.value(QLatin1String("index")).toInt();
            QJsonObject block = content.at(index).toObject();
            const QJsonObject delta = e.data.value(QLatin1String("delta")).toObject();
            const QString type = delta.value(QLatin1String("type")).toString();
            if (type == QLatin1String("text_delta"))
                block.insert(QStringLiteral("text"), block.value(QLatin1String("text")).toString() + delta.value(QLatin1String("text")).toString());
            else if (type == QLatin1String("thinking_delta"))
                block.insert(QStringLiteral("thinking"),
                             block.value(QLatin1String("thinking")).toString() + delta.value(QLatin1String("thinking")).toString());
            else if (type == QLatin1String("signature_delta"))
                block.insert(QStringLiteral("signature"), delta.value(QLatin1String("signature")).toString());
            else if (type == QLatin1String("input_json_delta"))
                toolJson[index] += delta.value(QLatin1String("partial_json")).toString();
            content.replace(index, block);
        } else if (e.name == "content_block_stop") {
            const int index = e.data.value(QLatin1String("index")).toInt();
            QJsonObject block = content.at(index).toObject();
            if (block.value(QLatin1String("type")).toString() == QLatin1String("tool_use") && !toolJson.at(index).isEmpty())
                block.insert(QStringLiteral("input"), QJsonDocument::fromJson(toolJson.at(index).toUtf8()).object());
            content.replace(index, block);
        } else if (e.name == "message_delta") {
            const QJsonObject delta = e.data.value(QLatin1String("delta")).toObject();
            message.insert(QStringLiteral("stop_reason"), delta.value(QLatin1String("stop_reason")));
            message.insert(QStringLiteral("stop_sequence"), delta.value(QLatin1String("stop_sequence")));
            QJsonObject usage = message.value(QLatin1String("usage")).toObject();
            const QJsonObject late = e.data.value(QLatin1String("usage")).toObject();
            for (auto it = late.constBegin(); it != late.constEnd(); ++it)
                usage.insert(it.key(), it.value());
            message.insert(QStringLiteral("usage"), usage);
        }
    }
    message.insert(QStringLiteral("content"), content);
    return message;
}

} // namespace sb::test
