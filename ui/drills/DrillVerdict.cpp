#include "DrillVerdict.h"

#include "ConsoleStyle.h"

#include <QCoreApplication>

namespace sb {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("DrillVerdict", text);
}

QString seconds(double s)
{
    return QStringLiteral("%1 s").arg(s, 0, 'f', s < 10 ? 2 : 1);
}

} // namespace

std::vector<DrillFigure> drillFigures(const sim::DrillReport &r, const EngineConfig *config)
{
    std::vector<DrillFigure> out;
    QString requests =
        tr("%1 sent, %2 succeeded, %3 failed").arg(formatCount(r.requests), formatCount(r.succeeded), formatCount(r.failed));
    // A slow engine shows up here first: the load keeps its schedule and drops what would exceed its cap.
    if (r.dropped > 0)
        requests += tr(", %1 dropped at the load's concurrency cap").arg(formatCount(r.dropped));
    out.push_back({tr("Requests"), requests, QString(), std::nullopt});
    out.push_back({tr("Success rate"), formatPercent(r.successRate), QStringLiteral("≥ 99.50 %"),
                   r.requests > 0 && r.successRate >= 0.995});
    out.push_back({tr("TTFT p50"), formatMs(r.ttftMs.p50), QString(), std::nullopt});
    out.push_back({tr("TTFT p95"), formatMs(r.ttftMs.p95), QStringLiteral("< 1,000 ms"), r.succeeded > 0 && r.ttftMs.p95 < 1000.0});
    out.push_back({tr("TTFT p99"), formatMs(r.ttftMs.p99), QString(), std::nullopt});
    const int stormLimit = r.requests / 10;
    out.push_back({tr("Failovers"), tr("%1 (%2 attempts)").arg(formatCount(r.failovers), formatCount(r.attempts)),
                   tr("≤ %1 (10 % of requests)").arg(formatCount(stormLimit)), r.failovers <= stormLimit});
    if (r.outageFrom) {
        out.push_back({tr("Time to full failover"),
                       r.timeToFallback ? tr("%1 (settled traffic seen at %2)")
                                              .arg(seconds(*r.timeToFallback), seconds(r.firstSettledAfter.value_or(0.0)))
                                        : tr("not reached"),
                       QStringLiteral("≤ 1.00 s"),
                       r.timeToFallback && *r.timeToFallback <= 1.0});
    }
    if (r.outageTo) {
        std::optional<double> limit;
        if (config)
            limit = double(config->breaker.openDuration.count()) + 3.0 * double(config->probe.interval.count());
        out.push_back({tr("Time to recovery"), r.timeToRecovery ? seconds(*r.timeToRecovery) : tr("not reached"),
                       limit ? QStringLiteral("≤ %1").arg(seconds(*limit)) : QString(),
                       limit ? std::optional<bool>(r.timeToRecovery && *r.timeToRecovery <= *limit) : std::nullopt});
    }
    return out;
}

bool drillPassed(const std::vector<DrillFigure> &figures)
{
    for (const DrillFigure &f : figures)
        if (f.pass && !*f.pass)
            return false;
    return true;
}

} // namespace sb
