#pragma once

#include "telemetry/HistoryRecords.h"

#include <QString>
#include <QStringList>

namespace sb {

// How the Requests table and inspector spell a request's values, in one place so both agree.
class RequestFormat {
public:
    static QString time(qint64 wallMillis);           // "14:03:07.412", with the date when not today
    static QString dateTime(qint64 wallMillis);       // "2026-11-30 14:03:07.412"
    static QString status(const RequestRecord &r);    // "ok", "error 503", "mid-stream", "cancelled"
    static QString statusName(RequestStatus status);
    static QString outcome(OutcomeKind kind);         // "provider down", "rate limited", …
    static QString failoverPath(const RequestRecord &r); // "A → B"
    static QString cost(double usd);
    static QStringList clientApis();                  // the front doors' names, as the history records them
    static QString clientApi(const QString &name);    // "OpenAI chat", "Anthropic messages"; the name itself if unknown
    // Masks anything shaped like an API key or a bearer token ("sk-…a1F3"). The engine stores
    // messages free of secrets already; this is the console's own belt and braces, since an
    // upstream error body can quote what it was sent.
    static QString redact(const QString &text);
};

} // namespace sb
