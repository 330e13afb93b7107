#pragma once

#include "AnthropicWire.h" // parseEvents, WireEvent, openAiPayloads: the SSE side is the same

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

// Reading the Responses API's wire format back, for the tests of the Responses front door: the
// fixtures under tests/fixtures/openai_responses/, the stream grammar (checked event by event, as
// the openai-node SDK's accumulator checks it before it throws, and as the reference describes
// it), and a stream folded into the response it describes, the way the SDK accumulates one.
// Header-only, like AnthropicWire.h.

namespace sb::test {

inline QByteArray readResponsesFixture(const QString &name)
{
    QFile file(sourcePath(QStringLiteral("tests/fixtures/openai_responses/") + name));
    if (!file.open(QIODevice::ReadOnly))
        return QByteArray();
    return file.readAll();
}

inline QJsonObject responsesFixtureObject(const QString &name)
{
    return QJsonDocument::fromJson(readResponsesFixture(name)).object();
}

inline QString itemEventKind(const QByteArray &name)
{
    static const QHash<QByteArray, QString> kinds{
        {"response.content_part.added", "message"},
        {"response.content_part.done", "message"},
        {"response.output_text.delta", "message"},
        {"response.output_text.done", "message"},
        {"response.refusal.delta", "message"},
        {"response.refusal.done", "message"},
        {"response.function_call_arguments.delta", "function_call"},
        {"response.function_call_arguments.done", "function_call"},
        {"response.custom_tool_call_input.delta", "custom_tool_call"},
        {"response.custom_tool_call_input.done", "custom_tool_call"},
        {"response.reasoning_summary_part.added", "reasoning"},
        {"response.reasoning_summary_part.done", "reasoning"},
        {"response.reasoning_summary_text.delta", "reasoning"},
        {"response.reasoning_summary_text.done", "reasoning"},
    };
    return kinds.value(name);
}

// What breaks the Responses stream grammar first, or an empty string when nothing does:
// the event name is the data's type; sequence_number counts from 0 by one; response.created
// first and response.in_progress second, both in_progress with no output; items added with
// output_index contiguous from 0, one open at a time, ids non-empty and unique, call_id non-empty
// and unique; every item event names the open item (item_id, output_index) and fits its type;
// content parts and summary parts appended in order, deltas only into the open one; output_item.done
// for the open item with its id, type and call_id and a final status; one terminal event last
// (response.completed, .incomplete or .failed) whose response has the created response's id and
// the matching status, with no item left open unless it failed.
inline QString responsesGrammarViolation(const QList<WireEvent> &events)
{
    if (events.size() < 3)
        return QStringLiteral("fewer than three events");
    QString responseId;
    int items = 0;
    QJsonObject open; // the open item as added
    int parts = 0;    // content or summary parts added to the open item
    bool partOpen = false;
    QSet<QString> ids, callIds;
    for (qsizetype i = 0; i < events.size(); ++i) {
        const WireEvent &e = events.at(i);
        const QString at = QStringLiteral("event %1 (%2): ").arg(i).arg(QString::fromUtf8(e.name));
        if (e.data.value(QLatin1String("type")).toString() != QString::fromUtf8(e.name))
            return at + QStringLiteral("data type is \"%1\"").arg(e.data.value(QLatin1String("type")).toString());
        if (!e.data.value(QLatin1String("sequence_number")).isDouble() || e.data.value(QLatin1String("sequence_number")).toInt() != i)
            return at + QStringLiteral("sequence_number %1").arg(e.data.value(QLatin1String("sequence_number")).toInt(-1));
        const QJsonObject response = e.data.value(QLatin1String("response")).toObject();
        if (i == 0 || i == 1) {
            if (e.name != (i == 0 ? "response.created" : "response.in_progress"))
                return at + QStringLiteral("the stream does not open with response.created, response.in_progress");
            if (response.value(QLatin1String("status")).toString() != QLatin1String("in_progress")
                || !response.value(QLatin1String("output")).toArray().isEmpty() || response.value(QLatin1String("object")).toString() != QLatin1String("response"))
                return at + QStringLiteral("not an empty in_progress response");
            if (i == 0)
                responseId = response.value(QLatin1String("id")).toString();
            else if (response.value(QLatin1String("id")).toString() != responseId)
                return at + QStringLiteral("another response id");
            continue;
        }
        const bool terminal = e.name == "response.completed" || e.name == "response.incomplete" || e.name == "response.failed";
        if (terminal) {
            if (i != events.size() - 1)
                return at + QStringLiteral("a terminal event is not the last");
            if (response.value(QLatin1String("id")).toString() != responseId)
                return at + QStringLiteral("another response id");
            const QString status = QString::fromUtf8(e.name.mid(9));
            if (response.value(QLatin1String("status")).toString() != status)
                return at + QStringLiteral("status \"%1\"").arg(response.value(QLatin1String("status")).toString());
            if (!open.isEmpty() && e.name != "response.failed")
                return at + QStringLiteral("item %1 is still open").arg(items - 1);
            if (e.name == "response.failed") {
                const QJsonObject error = response.value(QLatin1String("error")).toObject();
                if (error.value(QLatin1String("code")).toString().isEmpty() || !error.value(QLatin1String("message")).isString())
                    return at + QStringLiteral("a failed response without error code and message");
            }
            return QString();
        }
        if (e.name == "response.output_item.added") {
            if (!open.isEmpty())
                return at + QStringLiteral("an item is added while item %1 is open").arg(items - 1);
            if (e.data.value(QLatin1String("output_index")).toInt(-1) != items)
                return at + QStringLiteral("output_index %1, expected %2").arg(e.data.value(QLatin1String("output_index")).toInt(-1)).arg(items);
            open = e.data.value(QLatin1String("item")).toObject();
            const QString id = open.value(QLatin1String("id")).toString();
            if (id.isEmpty() || ids.contains(id))
                return at + QStringLiteral("item id \"%1\" empty or used before").arg(id);
            ids.insert(id);
            const QString type = open.value(QLatin1String("type")).toString();
            if (type == QLatin1String("function_call") || type == QLatin1String("custom_tool_call")) {
                const QString callId = open.value(QLatin1String("call_id")).toString();
                if (callId.isEmpty() || callIds.contains(callId))
                    return at + QStringLiteral("call_id \"%1\" empty or used before").arg(callId);
                callIds.insert(callId);
            } else if (type != QLatin1String("message") && type != QLatin1String("reasoning")) {
                return at + QStringLiteral("unknown item type \"%1\"").arg(type);
            }
            if (open.value(QLatin1String("status")).toString() != QLatin1String("in_progress"))
                return at + QStringLiteral("an item added with status \"%1\"").arg(open.value(QLatin1String("status")).toString());
            ++items;
            parts = 0;
            partOpen = false;
            continue;
        }
        if (open.isEmpty())
            return at + QStringLiteral("no item is open");
        if (e.data.value(QLatin1String("output_index")).toInt(-1) != items - 1)
            return at + QStringLiteral("output_index %1, open is %2").arg(e.data.value(QLatin1String("output_index")).toInt(-1)).arg(items - 1);
        if (e.name == "response.output_item.done") {
            const QJsonObject item = e.data.value(QLatin1String("item")).toObject();
            for (const char *key : {"id", "type", "call_id"})
                if (item.value(QLatin1String(key)) != open.value(QLatin1String(key)))
                    return at + QStringLiteral("the item's %1 changed").arg(QLatin1String(key));
            const QString status = item.value(QLatin1String("status")).toString();
            if (status != QLatin1String("completed") && status != QLatin1String("incomplete"))
                return at + QStringLiteral("done with status \"%1\"").arg(status);
            if (partOpen)
                return at + QStringLiteral("a part is still open");
            open = QJsonObject();
            continue;
        }
        const QString kind = itemEventKind(e.name);
        if (kind.isEmpty())
            return at + QStringLiteral("not an event of the Responses stream this door writes");
        if (e.data.value(QLatin1String("item_id")).toString() != open.value(QLatin1String("id")).toString())
            return at + QStringLiteral("item_id \"%1\", open is \"%2\"").arg(e.data.value(QLatin1String("item_id")).toString(),
                                                                              open.value(QLatin1String("id")).toString());
        if (kind != open.value(QLatin1String("type")).toString())
            return at + QStringLiteral("into a %1 item").arg(open.value(QLatin1String("type")).toString());
        const char *indexName = kind == QLatin1String("message") ? "content_index" : "summary_index";
        const bool hasPartIndex = kind == QLatin1String("message") || kind == QLatin1String("reasoning");
        const int partIndex = e.data.value(QLatin1String(indexName)).toInt(-1);
        if (e.name.endsWith("part.added")) {
            if (partOpen || partIndex != parts)
                return at + QStringLiteral("part %1 added, %2 parts so far").arg(partIndex).arg(parts);
            partOpen = true;
            ++parts;
        } else if (hasPartIndex) {
            if (!partOpen || partIndex != parts - 1)
                return at + QStringLiteral("into part %1, open is %2").arg(partIndex).arg(partOpen ? parts - 1 : -1);
            if (e.name.endsWith("part.done"))
                partOpen = false;
        }
    }
    return QStringLiteral("the stream does not end with a terminal event");
}

// The response a (grammatical) stream describes, as the SDK accumulates it: the created response,
// each item as added, its deltas appended, replaced by its output_item.done; the terminal event's
// status, incomplete_details, error and usage.
inline QJsonObject accumulateResponse(const QList<WireEvent> &events)
{
    QJsonObject response;
    QJsonArray output;
    for (const WireEvent &e : events) {
        const int index = e.data.value(QLatin1String("output_index")).toInt();
        if (e.name == "response.created") {
            response = e.data.value(QLatin1String("response")).toObject();
        } else if (e.name == "response.output_item.added") {
            output.append(e.data.value(QLatin1String("item")).toObject());
        } else if (e.name == "response.output_item.done") {
            output.replace(index, e.data.value(QLatin1String("item")).toObject());
        } else if (e.name == "response.content_part.added" || e.name == "response.reasoning_summary_part.added") {
            QJsonObject item = output.at(index).toObject();
            const QString key = e.name == "response.content_part.added" ? QStringLiteral("content") : QStringLiteral("summary");
            QJsonArray parts = item.value(key).toArray();
            parts.append(e.data.value(QLatin1String("part")).toObject());
            item.insert(key, parts);
            output.replace(index, item);
        } else if (e.name.endsWith(".delta")) {
            QJsonObject item = output.at(index).toObject();
            const QString delta = e.data.value(QLatin1String("delta")).toString();
            if (e.name == "response.function_call_arguments.delta") {
                item.insert(QStringLiteral("arguments"), item.value(QLatin1String("arguments")).toString() + delta);
            } else if (e.name == "response.custom_tool_call_input.delta") {
                item.insert(QStringLiteral("input"), item.value(QLatin1String("input")).toString() + delta);
            } else {
                const bool summary = e.name == "response.reasoning_summary_text.delta";
                const QString key = summary ? QStringLiteral("summary") : QStringLiteral("content");
                const int partIndex = e.data.value(QLatin1String(summary ? "summary_index" : "content_index")).toInt();
                QJsonArray parts = item.value(key).toArray();
                QJsonObject part = parts.at(partIndex).toObject();
                const QString field = e.name == "response.refusal.delta" ? QStringLiteral("refusal") : QStringLiteral("text");
                part.insert(field, part.value(field).toString() + delta);
                parts.replace(partIndex, part);
                item.insert(key, parts);
            }
            output.replace(index, item);
        } else if (e.name == "response.completed" || e.name == "response.incomplete" || e.name == "response.failed") {
            const QJsonObject last = e.data.value(QLatin1String("response")).toObject();
            for (const char *key : {"status", "incomplete_details", "error", "usage"})
                response.insert(QLatin1String(key), last.value(QLatin1String(key)));
        }
    }
    response.insert(QStringLiteral("output"), output);
    return response;
}

// An event's shape: its type and its members' names (the item's too, for item events), for
// holding a stream against a reference one without its ids, text and counts.
inline QString eventShape(const WireEvent &e)
{
    QStringList keys = e.data.keys();
    const QJsonObject item = e.data.value(QLatin1String("item")).toObject();
    if (!item.isEmpty())
        keys << QStringLiteral("item{") + item.keys().join(QLatin1Char(',')) + QLatin1Char('}');
    const QJsonObject part = e.data.value(QLatin1String("part")).toObject();
    if (!part.isEmpty())
        keys << QStringLiteral("part{") + part.keys().join(QLatin1Char(',')) + QLatin1Char('}');
    return QString::fromUtf8(e.name) + QLatin1Char(' ') + keys.join(QLatin1Char(','));
}

// The event types in order, with runs of one delta type counted as one: a stream cut into other
// pieces than the reference's has the same structure.
inline QStringList collapsedTypes(const QList<WireEvent> &events)
{
    QStringList out;
    for (const WireEvent &e : events) {
        const QString type = QString::fromUtf8(e.name);
        if (type.endsWith(QLatin1String(".delta")) && !out.isEmpty() && out.last() == type)
            continue;
        out << type;
    }
    return out;
}

} // namespace sb::test
