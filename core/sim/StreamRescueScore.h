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
    int rescued = 0;    // client streams that began with such a broken answer and still completed
    int wellFormed = 0; // streams that ended with [DONE], no error event, some text
    int intact = 0;     // well-formed streams whose text is exactly one whole answer of the passage
    std::vector<QString> damaged; // well-formed streams whose text is not: a span repeated or missing (the first few)
    Percentiles rescueGapMs;    // rescued streams: their longest wait between two pieces of text (scenario ms)
    Percentiles fallbackTtftMs; // streams a fallback answered from their first attempt: its own TTFT

    // `broken`: the text of each answer a provider broke after some of it went out; `wholeAnswers`:
    // every whole answer the providers' passages give; `fallbackChannels`: the channels that are
    // not primaries. std::nullopt when no provider broke a stream.
    static std::optional<StreamRescueScore> compute(const std::vector<RequestRecord> &records, const std::vector<QByteArray> &broken,
                                                    const QSet<QByteArray> &wholeAnswers, const QStringList &primaryChannels);

    QJsonObject toJson() const;
    QString toText() const;
};

} // namespace sb::sim
