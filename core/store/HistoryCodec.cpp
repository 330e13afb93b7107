#include "store/HistoryCodec.h"

#include "common/json/JsonText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sb {

namespace {

// The one attempt the row's columns describe: what a row whose attempts column is empty had.
AttemptRecord attemptOfRow(const RequestRecord &row, int keyId)
{
    AttemptRecord a;
    a.channelId = row.channelId;
    a.channelName = row.channelName;
    a.keyId = keyId;
    a.outcome = row.outcome;
    a.phase = OutcomePhase::BeforeFirstByte;
    a.httpStatus = row.httpStatus;
    a.startedMs = row.timeMs;
    a.latencyMs = row.latencyMs;
    a.ttftMs = row.ttftMs;
    return a;
}

} // namespace

QString HistoryCodec::statusName(RequestStatus status)
{
    switch (status) {
    case RequestStatus::Ok: return QStringLiteral("ok");
    case RequestStatus::Error: return QStringLiteral("error");
    case RequestStatus::MidStream: return QStringLiteral("mid_stream");
    case RequestStatus::Cancelled: return QStringLiteral("cancelled");
    }
    return QStringLiteral("error");
}

RequestStatus HistoryCodec::statusFromName(const QString &name)
{
    for (auto s : {RequestStatus::Ok, RequestStatus::Error, RequestStatus::MidStream, RequestStatus::Cancelled})
        if (statusName(s) == name)
            return s;
    return RequestStatus::Error;
}

EventKind HistoryCodec::eventKindFromName(const QString &name)
{
    for (int i = 0; i < EventKindCount; ++i)
        if (name == QLatin1String(EventKindNames[static_cast<std::size_t>(i)]))
            return static_cast<EventKind>(i);
    return EventKind::Other;
}

QByteArray HistoryCodec::encodeAttempts(const std::vector<AttemptRecord> &attempts)
{
    // Written by hand, straight to UTF-8: through QJsonObject this was about half of the history
    // thread's allocations under load (perf probe on malloc), and through QString temporaries and a
    // conversion at bind time still 3 to 4 % of the proxy's CPU at 50 connections. Into a
    // std::string, whose appends are inline, then one copy: QByteArray's appends were 2,700
    // instructions a row. decodeAttempts reads it with QJsonDocument.
    std::string out;
    out.reserve(attempts.size() * 160 + 2);
    out += '[';
    for (const auto &a : attempts) {
        if (out.size() > 1)
            out += ',';
        out += "{\"ch\":";
        appendJsonNumber(&out, a.channelId);
        out += ",\"name\":";
        appendJsonString(&out, a.channelName);
        if (a.keyId != 0) {
            out += ",\"key\":";
            appendJsonNumber(&out, a.keyId);
        }
        out += ",\"outcome\":\"";
        out += toString(a.outcome);
        out += '"';
        if (a.phase == OutcomePhase::MidStream)
            out += ",\"mid\":true";
        out += ",\"http\":";
        appendJsonNumber(&out, a.httpStatus);
        out += ",\"t\":";
        appendJsonNumber(&out, a.startedMs);
        out += ",\"lat\":";
        appendJsonNumber(&out, a.latencyMs);
        out += ",\"ttft\":";
        appendJsonNumber(&out, a.ttftMs);
        if (!a.message.isEmpty()) {
            out += ",\"msg\":";
            appendJsonString(&out, a.message);
        }
        out += '}';
    }
    out += ']';
    return QByteArray(out.data(), qsizetype(out.size()));
}

QByteArray HistoryCodec::storedAttempts(const RequestRecord &row)
{
    if (row.attempts.size() == 1 && row.attempts.front() == attemptOfRow(row, lastKeyId(row)))
        return QByteArray("");
    return encodeAttempts(row.attempts);
}

int HistoryCodec::lastKeyId(const RequestRecord &row)
{
    return row.attempts.empty() ? 0 : row.attempts.back().keyId;
}

std::vector<AttemptRecord> HistoryCodec::attemptsFromStored(const QString &stored, const RequestRecord &row, int keyId)
{
    if (stored.isEmpty())
        return {attemptOfRow(row, keyId)};
    return decodeAttempts(stored);
}

std::vector<AttemptRecord> HistoryCodec::decodeAttempts(const QString &json)
{
    std::vector<AttemptRecord> out;
    const QJsonArray list = QJsonDocument::fromJson(json.toUtf8()).array();
    out.reserve(static_cast<std::size_t>(list.size()));
    for (const auto &v : list) {
        const QJsonObject o = v.toObject();
        AttemptRecord a;
        a.channelId = o.value(QStringLiteral("ch")).toInt();
        a.channelName = o.value(QStringLiteral("name")).toString();
        a.keyId = o.value(QStringLiteral("key")).toInt();
        a.outcome = outcomeKindFromString(o.value(QStringLiteral("outcome")).toString()).value_or(OutcomeKind::ProviderDown);
        a.phase = o.value(QStringLiteral("mid")).toBool() ? OutcomePhase::MidStream : OutcomePhase::BeforeFirstByte;
        a.httpStatus = o.value(QStringLiteral("http")).toInt();
        a.startedMs = o.value(QStringLiteral("t")).toInteger();
        a.latencyMs = o.value(QStringLiteral("lat")).toInt(-1);
        a.ttftMs = o.value(QStringLiteral("ttft")).toInt(-1);
        a.message = o.value(QStringLiteral("msg")).toString();
        out.push_back(a);
    }
    return out;
}

} // namespace sb
