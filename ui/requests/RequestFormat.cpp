#include "requests/RequestFormat.h"

#include "ConsoleStyle.h"
#include "common/SecretMask.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QRegularExpression>

namespace sb {

QString RequestFormat::time(qint64 wallMillis)
{
    const QDateTime at = QDateTime::fromMSecsSinceEpoch(wallMillis);
    if (at.date() == QDate::currentDate())
        return at.toString(QStringLiteral("HH:mm:ss.zzz"));
    return at.toString(QStringLiteral("MM-dd HH:mm:ss"));
}

QString RequestFormat::dateTime(qint64 wallMillis)
{
    return QDateTime::fromMSecsSinceEpoch(wallMillis).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
}

QString RequestFormat::statusName(RequestStatus status)
{
    switch (status) {
    case RequestStatus::Ok: return QCoreApplication::translate("RequestFormat", "ok");
    case RequestStatus::Error: return QCoreApplication::translate("RequestFormat", "error");
    case RequestStatus::MidStream: return QCoreApplication::translate("RequestFormat", "mid-stream");
    case RequestStatus::Cancelled: return QCoreApplication::translate("RequestFormat", "cancelled");
    }
    return {};
}

QString RequestFormat::status(const RequestRecord &r)
{
    if (r.status == RequestStatus::Error && r.httpStatus > 0)
        return QStringLiteral("%1 %2").arg(statusName(r.status)).arg(r.httpStatus);
    return statusName(r.status);
}

QString RequestFormat::outcome(OutcomeKind kind)
{
    switch (kind) {
    case OutcomeKind::Success: return QCoreApplication::translate("RequestFormat", "success");
    case OutcomeKind::RetryableRateLimit: return QCoreApplication::translate("RequestFormat", "rate limited");
    case OutcomeKind::NonRetryableParamError: return QCoreApplication::translate("RequestFormat", "bad request");
    case OutcomeKind::ProviderDown: return QCoreApplication::translate("RequestFormat", "provider down");
    case OutcomeKind::AuthError: return QCoreApplication::translate("RequestFormat", "key refused");
    case OutcomeKind::Timeout: return QCoreApplication::translate("RequestFormat", "timed out");
    case OutcomeKind::ConnectFailed: return QCoreApplication::translate("RequestFormat", "connect failed");
    }
    return {};
}

QString RequestFormat::failoverPath(const RequestRecord &r)
{
    QStringList names;
    for (const AttemptRecord &a : r.attempts) {
        const QString name = a.channelName.isEmpty() ? QStringLiteral("#%1").arg(a.channelId) : a.channelName;
        if (names.isEmpty() || names.back() != name)
            names << name;
    }
    return names.join(QStringLiteral(" → "));
}

QStringList RequestFormat::clientApis()
{
    return {QStringLiteral("openai_chat"), QStringLiteral("openai_responses"), QStringLiteral("anthropic_messages")};
}

QString RequestFormat::clientApi(const QString &name)
{
    if (name == QLatin1String("openai_chat"))
        return QObject::tr("OpenAI chat");
    if (name == QLatin1String("openai_responses"))
        return QObject::tr("OpenAI responses");
    if (name == QLatin1String("anthropic_messages"))
        return QObject::tr("Anthropic messages");
    return name;
}

QString RequestFormat::cost(double usd)
{
    if (usd <= 0)
        return QStringLiteral("—");
    return QStringLiteral("$%1").arg(usd, 0, 'f', usd < 0.01 ? 5 : 4);
}

QString RequestFormat::redact(const QString &text)
{
    // Common key shapes: OpenAI/Anthropic "sk-…", Google "AIza…", bearer tokens, key=… in URLs.
    static const QRegularExpression keyLike(QStringLiteral(
        "(sk-[A-Za-z0-9_\\-]{8,}|AIza[A-Za-z0-9_\\-]{20,}|(?<=Bearer )[A-Za-z0-9._\\-]{8,}|(?<=key=)[A-Za-z0-9._\\-]{8,})"));
    QString out;
    qsizetype last = 0;
    for (auto it = keyLike.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += text.mid(last, m.capturedStart() - last);
        out += maskSecret(m.captured());
        last = m.capturedEnd();
    }
    out += text.mid(last);
    return out;
}

} // namespace sb
