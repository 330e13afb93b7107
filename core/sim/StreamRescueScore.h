#pragma once

#include "sim/DrillReport.h"

#include <QByteArray>
#include <QJsonObject>
#include <QSet>
#include <QString>

#include <optional>
#include <vector>

namespace sb::sim {

// The scorecard of a drill whose providers break streams mid-answer: how many streams the client
// got whole and well-formed, and whether any text at a splice was repeated or lost — checked
// against the simulator's own record of what each attempt sent, not against what the proxy says.
struct StreamRescueScore {
    int streams = 0;    // stream requests sent (dropped ones excluded)
    int broken = 0;     // answers a provider broke after sending text (its own record)
    int rescued = 0;    // continuations a provider was asked for and finished (its own record)
    int wellFormed = 0; // streams that ended with [DONE], no error event, some text
    int intact = 0;     // well-formed streams whose text is exactly one whole answer of the passage
    std::vector<QString> damaged; // well-formed streams whose text is not: a span repeated or missing (the first few)
    Percentiles rescueGapMs;    // client streams that began with a continued answer: their longest wait between two pieces of text (scenario ms)
    double fallbackTtftMs = 0.0; // the fallbacks' own TTFT: the median of what their scenario draws
    int withCalls = 0;  // well-formed streams that carried a tool call
    int callsWhole = 0; // of them, those with exactly one call whose arguments a provider sent whole

    // From the providers' record: `broken`, the text of each fresh answer a provider broke after
    // some of it went out; `continued`, the partial answer of each continuation a provider
    // finished. `wholeAnswers`: every whole answer the providers' passages give; `wholeCalls`:
    // the arguments of every tool call a provider finished. std::nullopt when no provider broke a
    // stream.
    static std::optional<StreamRescueScore> compute(const std::vector<RequestRecord> &records, const std::vector<QByteArray> &broken,
                                                    const std::vector<QByteArray> &continued, const QSet<QByteArray> &wholeAnswers,
                                                    const QSet<QByteArray> &wholeCalls, double fallbackTtftMs);

    QJsonObject toJson() const;
    QString toText() const;
};

} // namespace sb::sim
