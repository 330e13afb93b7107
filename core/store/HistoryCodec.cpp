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

namespace {

void appendJsonString(QString &out, const QString &text)
{
    out += u'"';
    for (const QChar ch : text) {
        const char16_t c = ch.unicode();
        switch (c) {
        case u'"': out += u"\\\""; break;
        case u'\\': out += u"\\\\"; break;
        case u'\n': out += u"\\n"; break;
        case u'\r': out += u"\\r"; break;
        case u'\t': out += u"\\t"; break;
        default:
            if (c < 0x20)
                out += QStringLiteral("\\u%1").arg(int(c), 4, 16, QLatin1Char('0'));
            else
                out += ch;
        }
    }
    out += u'"';
}

} // namespace

QString HistoryCodec::encodeAttempts(const std::vector<AttemptRecord> &attempts)
{
    // Written by hand: through QJsonObject this was about half of the history thread's allocations
    // under load (perf probe on malloc). decodeAttempts reads it with QJsonDocument.
    QString out;
    out.reserve(static_cast<qsizetype>(attempts.size()) * 128);
    out += u'[';
    for (const auto &a : attempts) {
        if (out.size() > 1)
            out += u',';
        out += QStringLiteral("{\"ch\":") + QString::number(a.channelId) + QStringLiteral(",\"name\":");
        appendJsonString(out, a.channelName);
        if (a.keyId != 0)
            out += QStringLiteral(",\"key\":") + QString::number(a.keyId);
        out += QStringLiteral(",\"outcome\":\"") + QLatin1String(toString(a.outcome)) + u'"';
        if (a.phase == OutcomePhase::MidStream)
            out += QStringLiteral(",\"mid\":true");
        out += QStringLiteral(",\"http\":") + QString::number(a.httpStatus);
        out += QStringLiteral(",\"t\":") + QString::number(a.startedMs);
        out += QStringLiteral(",\"lat\":") + QString::number(a.latencyMs);
        out += QStringLiteral(",\"ttft\":") + QString::number(a.ttftMs);
        if (!a.message.isEmpty()) {
            out += QStringLiteral(",\"msg\":");
            appendJsonString(out, a.message);
        }
        out += u'}';
    }
    out += u']';
    return out;
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
