#pragma once

#include "telemetry/HistoryRecords.h"

#include <QByteArray>
#include <QString>

#include <vector>

namespace sb {

// How history values are spelled in the database. Shared by HistoryWriter and HistoryReader so
// the two can never disagree; the names are stable because old databases keep them.
class HistoryCodec {
public:
    static QString statusName(RequestStatus status); // "ok", "error", "mid_stream", "cancelled"
    static RequestStatus statusFromName(const QString &name);
    static EventKind eventKindFromName(const QString &name); // unknown names read as Other
    // Attempts are one compact JSON array per request row: the console shows them with their
    // request and never queries them on their own, and one column keeps the insert rate high.
    // Encoded as UTF-8, the bytes SQLite stores.
    static QByteArray encodeAttempts(const std::vector<AttemptRecord> &attempts);
    static std::vector<AttemptRecord> decodeAttempts(const QString &json);
};

} // namespace sb
