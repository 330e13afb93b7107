#pragma once

#include "providers/ProviderAdapter.h"

#include <QByteArray>

#include <optional>
#include <vector>

namespace sb::test {

// Tables of what a provider may send inside an HTTP 200 and the outcome the engine must make of
// it, for every dialect alike: each tst_<Dialect>Adapter lists its own rows and calls the check as
// the last statement of a test function (the checks use QVERIFY/QCOMPARE).

// A buffered 2xx: its body (and content type), whether it answered an embeddings request, and the
// outcome expected from classifyAnswer(), the proxy's call.
struct AnswerRow {
    const char *name;
    QByteArray body;
    OutcomeKind expect;
    bool embeddings = false;
    QByteArray contentType = QByteArrayLiteral("application/json");
};
void addAnswerRows(const std::vector<AnswerRow> &rows);
// A success must carry an answer; anything else must not be one.
void checkAnswerRow(const ProviderAdapter &adapter);

// A 200 event stream, whole: its bytes and the outcome expected once it has ended (SUCCESS: it
// finished cleanly).
struct StreamRow {
    const char *name;
    QByteArray sse;
    OutcomeKind expect;
};
void addStreamRows(const std::vector<StreamRow> &rows);
// Through SseParser and the dialect's translator, as the proxy reads it. A failure must come
// before any chunk that carries something of the answer (only StreamStep::preamble chunks may
// precede it), so that the proxy can still fail over unseen.
void checkStreamRow(const ProviderAdapter &adapter);

} // namespace sb::test
