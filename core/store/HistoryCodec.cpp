#include "store/HistoryCodec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sb {

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

QString HistoryCodec::encodeAttempts(const std::vector<AttemptRecord> &attempts)
{
    QJsonArray list;
    for (const auto &a : attempts) {
        QJsonObject o;
        o.insert(QStringLiteral("ch"), a.channelId);
        o.insert(QStringLiteral("name"), a.channelName);
        if (a.keyId != 0)
            o.insert(QStringLiteral("key"), a.keyId);
        o.insert(QStringLiteral("outcome"), QLatin1String(toString(a.outcome)));
        if (a.phase == OutcomePhase::MidStream)
            o.insert(QStringLiteral("mid"), true);
        o.insert(QStringLiteral("http"), a.httpStatus);
        o.insert(QStringLiteral("t"), a.startedMs);
        o.insert(QStringLiteral("lat"), a.latencyMs);
        o.insert(QStringLiteral("ttft"), a.ttftMs);
        if (!a.message.isEmpty())
            o.insert(QStringLiteral("msg"), a.message);
        list.append(o);
    }
    return QString::fromUtf8(QJsonDocument(list).toJson(QJsonDocument::Compact));
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
        a.startedMs = static_cast<qint64>(o.value(QStringLiteral("t")).toDouble());
        a.latencyMs = o.value(QStringLiteral("lat")).toInt(-1);
        a.ttftMs = o.value(QStringLiteral("ttft")).toInt(-1);
        a.message = o.value(QStringLiteral("msg")).toString();
        out.push_back(a);
    }
    return out;
}

} // namespace sb
