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

    // What a request row stores in its attempts column: nothing ("") when its one attempt says
    // only what the row's own columns and key_id say (most requests: one channel, one try, no
    // message), else the JSON array. The array was more than half of such a row's bytes.
    static QByteArray storedAttempts(const RequestRecord &row);
    // The key the row's last attempt used (its key_id column); 0 when none did.
    static int lastKeyId(const RequestRecord &row);
    // The attempts back from what storedAttempts() wrote, `row` being the rest of the row as read.
    static std::vector<AttemptRecord> attemptsFromStored(const QString &stored, const RequestRecord &row, int keyId);
};

} // namespace sb
