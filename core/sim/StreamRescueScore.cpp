#include "sim/StreamRescueScore.h"

#include <QJsonArray>

namespace sb::sim {

namespace {

constexpr std::size_t kDamagedShown = 5;

QJsonObject percentilesJson(const Percentiles &p)
{
    return QJsonObject{{"p50", p.p50}, {"p95", p.p95}, {"p99", p.p99}};
}

} // namespace

std::optional<StreamRescueScore> StreamRescueScore::compute(const std::vector<RequestRecord> &records, const std::vector<QByteArray> &broken,
                                                            const std::vector<QByteArray> &continued, const QSet<QByteArray> &wholeAnswers,
                                                            const QSet<QByteArray> &wholeCalls, double fallbackTtftMs)
{
    if (broken.empty())
        return std::nullopt;
    StreamRescueScore s;
    s.broken = static_cast<int>(broken.size());
    s.rescued = static_cast<int>(continued.size());
    s.fallbackTtftMs = fallbackTtftMs;
    std::vector<double> gaps;
    for (const RequestRecord &rec : records) {
        if (rec.dropped || !rec.stream)
            continue;
        ++s.streams;
        const bool began = std::any_of(continued.begin(), continued.end(), [&rec](const QByteArray &part) { return rec.text.startsWith(part); });
        if (!rec.ok)
            continue;
        ++s.wellFormed;
        if (wholeAnswers.contains(rec.text))
            ++s.intact;
        else if (s.damaged.size() < kDamagedShown)
            s.damaged.push_back(QString::fromUtf8(rec.text));
        if (rec.toolCalls > 0 || !rec.toolArguments.isEmpty()) {
            ++s.withCalls;
            s.callsWhole += rec.toolCalls == 1 && wholeCalls.contains(rec.toolArguments);
        }
        if (began && rec.maxGapMs >= 0)
            gaps.push_back(rec.maxGapMs);
    }
    s.rescueGapMs = Percentiles::of(gaps);
    return s;
}

QJsonObject StreamRescueScore::toJson() const
{
    QJsonArray damagedJson;
    for (const QString &text : damaged)
        damagedJson.append(text);
    return QJsonObject{{"streams", streams},
                       {"broken_by_providers", broken},
                       {"rescued", rescued},
                       {"well_formed", wellFormed},
                       {"intact", intact},
                       {"damaged_examples", damagedJson},
                       {"rescue_gap_ms", percentilesJson(rescueGapMs)},
                       {"fallback_ttft_ms", fallbackTtftMs},
                       {"with_tool_calls", withCalls},
                       {"tool_calls_whole", callsWhole}};
}

QString StreamRescueScore::toText() const
{
    const double share = streams > 0 ? 100.0 * wellFormed / streams : 0.0;
    QString out;
    out += QStringLiteral("  streams         %1 sent, %2 well-formed (%3 %), %4 of them exactly one whole answer\n")
               .arg(streams)
               .arg(wellFormed)
               .arg(share, 0, 'f', 2)
               .arg(intact);
    out += QStringLiteral("  rescued         %1 continuations finished for the %2 answers a provider broke mid-answer\n").arg(rescued).arg(broken);
    out += QStringLiteral("  rescue time     longest gap in a rescued stream p50 %1 ms, p95 %2 ms; the fallback's own TTFT %3 ms (median)\n")
               .arg(rescueGapMs.p50, 0, 'f', 0)
               .arg(rescueGapMs.p95, 0, 'f', 0)
               .arg(fallbackTtftMs, 0, 'f', 0);
    if (withCalls > 0)
        out += QStringLiteral("  tool calls      %1 streams carried one; %2 of them exactly one call, whole as a provider sent it\n")
                   .arg(withCalls)
                   .arg(callsWhole);
    for (const QString &text : damaged)
        out += QStringLiteral("  damaged text    %1\n").arg(text.left(120));
    return out;
}

} // namespace sb::sim
