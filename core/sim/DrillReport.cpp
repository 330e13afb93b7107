#include "sim/DrillReport.h"

#include "sim/OutageWindow.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>

namespace sb::sim {

namespace {

const QString kFailed = QStringLiteral("(failed)");

QJsonValue optionalSeconds(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QJsonObject toJson(const Percentiles &p)
{
    return QJsonObject{{"p50", p.p50}, {"p95", p.p95}, {"p99", p.p99}};
}

QString seconds(const std::optional<double> &v)
{
    return v ? QStringLiteral("%1 s").arg(*v, 0, 'f', 1) : QStringLiteral("n/a");
}

} // namespace

Percentiles Percentiles::of(std::vector<double> values)
{
    Percentiles p;
    if (values.empty())
        return p;
    std::sort(values.begin(), values.end());
    auto rank = [&](double q) {
        const auto n = static_cast<double>(values.size());
        const auto index = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n))) - 1;
        return values[std::min(index, values.size() - 1)];
    };
    p.p50 = rank(0.50);
    p.p95 = rank(0.95);
    p.p99 = rank(0.99);
    return p;
}

DrillReport DrillReport::compute(const QString &scenario, double timeScale, double duration, std::vector<RequestRecord> records,
                                 const ReportSpec &spec)
{
    DrillReport r;
    r.scenario = scenario;
    r.timeScale = timeScale;
    r.duration = duration;
    r.primaryChannels = spec.primaryChannels;
    r.outageFrom = spec.outageFrom;
    r.outageTo = spec.outageTo;
    std::stable_sort(records.begin(), records.end(), [](const RequestRecord &a, const RequestRecord &b) { return a.at < b.at; });

    std::vector<double> ttft;
    std::vector<double> latency;
    for (const RequestRecord &rec : records) {
        if (rec.dropped) {
            ++r.dropped;
            continue;
        }
        ++r.requests;
        r.attempts += rec.attempts;
        if (rec.failover)
            ++r.failovers;
        if (rec.ok) {
            ++r.succeeded;
            if (rec.ttftMs >= 0)
                ttft.push_back(rec.ttftMs);
            latency.push_back(rec.latencyMs);
        } else {
            ++r.failed;
            r.errors[rec.error.isEmpty() ? QStringLiteral("unknown") : rec.error] += 1;
        }
        const QString column = rec.ok ? rec.channel : kFailed;
        if (!column.isEmpty() && column != kFailed && !r.channels.contains(column))
            r.channels.append(column);
    }
    r.channels.sort();
    if (r.failed > 0)
        r.channels.append(kFailed);
    r.successRate = r.requests > 0 ? static_cast<double>(r.succeeded) / r.requests : 0.0;
    r.ttftMs = Percentiles::of(std::move(ttft));
    r.latencyMs = Percentiles::of(std::move(latency));

    const auto seconds = static_cast<std::size_t>(std::max(0.0, std::ceil(duration)));
    r.perSecond.assign(seconds, std::vector<int>(static_cast<std::size_t>(r.channels.size()), 0));
    for (const RequestRecord &rec : records) {
        if (rec.dropped)
            continue;
        const auto second = static_cast<std::size_t>(std::max(0.0, std::floor(rec.at)));
        if (second >= r.perSecond.size())
            r.perSecond.resize(second + 1, std::vector<int>(static_cast<std::size_t>(r.channels.size()), 0));
        const qsizetype column = r.channels.indexOf(rec.ok ? rec.channel : kFailed);
        if (column >= 0)
            ++r.perSecond[second][static_cast<std::size_t>(column)];
    }

    auto isPrimary = [&](const RequestRecord &rec) { return spec.primaryChannels.contains(rec.channel); };
    if (spec.outageFrom && !spec.primaryChannels.isEmpty()) {
        // "Fully on the fallback" is shown by a run of settleRequests requests in a row that succeeded
        // on a non-primary channel at the first attempt (the router no longer tries the primary). The
        // failover itself happened at the last request before that run that still touched a primary
        // (failed there, failed over, or was served by it): that one's send time is when the router
        // last chose the primary. The run's first request only samples the state one request gap later
        // (0.25 s at launch day's 4 req/s), so it is reported beside it, not as it.
        const double to = spec.outageTo.value_or(std::numeric_limits<double>::infinity());
        int run = 0;
        double runStart = 0.0; // valid while run > 0 (a plain double: GCC's -O3 misreads an optional here)
        std::optional<double> lastUnsettled;
        std::optional<double> lastUnsettledBeforeRun;
        for (const RequestRecord &rec : records) {
            if (rec.dropped || rec.at < *spec.outageFrom || rec.at >= to)
                continue;
            const bool clean = rec.ok && !isPrimary(rec) && !rec.failover && rec.attempts <= 1;
            if (!clean) {
                run = 0;
                lastUnsettled = rec.at;
                continue;
            }
            if (run++ == 0) {
                runStart = rec.at;
                lastUnsettledBeforeRun = lastUnsettled;
            }
            if (run >= spec.settleRequests) {
                r.firstSettledAfter = runStart - *spec.outageFrom;
                // No request touched a primary during the outage: it was already out when it began.
                r.timeToFallback = lastUnsettledBeforeRun ? *lastUnsettledBeforeRun - *spec.outageFrom : 0.0;
                break;
            }
        }
    }
    if (const std::optional<OutageWindow> window = OutageWindow::compute(records, spec, duration)) {
        r.outageWindowJson = window->toJson();
        r.outageWindowText = window->toText();
    }
    if (spec.outageTo && !spec.primaryChannels.isEmpty()) {
        for (const RequestRecord &rec : records) {
            if (!rec.dropped && rec.at >= *spec.outageTo && rec.ok && isPrimary(rec)) {
                r.timeToRecovery = rec.at - *spec.outageTo;
                break;
            }
        }
    }
    return r;
}

QJsonObject DrillReport::toJson() const
{
    QJsonObject errorsJson;
    for (auto it = errors.begin(); it != errors.end(); ++it)
        errorsJson.insert(it.key(), it.value());
    QJsonArray series;
    for (std::size_t s = 0; s < perSecond.size(); ++s) {
        QJsonObject point{{"t", static_cast<int>(s)}};
        for (qsizetype c = 0; c < channels.size(); ++c)
            point.insert(channels[c], perSecond[s][static_cast<std::size_t>(c)]);
        series.append(point);
    }
    QJsonObject json{{"scenario", scenario},
                     {"time_scale", timeScale},
                     {"duration_s", duration},
                     {"requests", requests},
                     {"succeeded", succeeded},
                     {"failed", failed},
                     {"dropped", dropped},
                     {"success_rate", successRate},
                     {"ttft_ms", sb::sim::toJson(ttftMs)},
                     {"latency_ms", sb::sim::toJson(latencyMs)},
                     {"failovers", failovers},
                     {"attempts", attempts},
                     {"errors", errorsJson},
                     {"primary_channels", QJsonArray::fromStringList(primaryChannels)},
                     {"outage_from_s", optionalSeconds(outageFrom)},
                     {"outage_to_s", optionalSeconds(outageTo)},
                     {"time_to_fallback_s", optionalSeconds(timeToFallback)},
                     {"first_settled_after_s", optionalSeconds(firstSettledAfter)},
                     {"time_to_recovery_s", optionalSeconds(timeToRecovery)},
                     {"channels", QJsonArray::fromStringList(channels)},
                     {"requests_per_channel_per_second", series}};
    if (outageWindowJson)
        json.insert("outage_window", *outageWindowJson);
    if (streamRescueJson)
        json.insert("stream_rescue", *streamRescueJson);
    return json;
}

QString DrillReport::toText() const
{
    QString out;
    out += QStringLiteral("Drill %1 (%2 s of scenario time at x%3)\n").arg(scenario).arg(duration).arg(timeScale);
    out += QStringLiteral("  requests        %1 sent, %2 succeeded, %3 failed, %4 dropped at the concurrency cap\n")
               .arg(requests)
               .arg(succeeded)
               .arg(failed)
               .arg(dropped);
    out += QStringLiteral("  success rate    %1 %\n").arg(successRate * 100.0, 0, 'f', 2);
    out += QStringLiteral("  TTFT            p50 %1 ms, p95 %2 ms, p99 %3 ms\n")
               .arg(ttftMs.p50, 0, 'f', 0)
               .arg(ttftMs.p95, 0, 'f', 0)
               .arg(ttftMs.p99, 0, 'f', 0);
    out += QStringLiteral("  latency         p50 %1 ms, p95 %2 ms, p99 %3 ms\n")
               .arg(latencyMs.p50, 0, 'f', 0)
               .arg(latencyMs.p95, 0, 'f', 0)
               .arg(latencyMs.p99, 0, 'f', 0);
    out += QStringLiteral("  failovers       %1 (attempts %2)\n").arg(failovers).arg(attempts);
    if (outageFrom) {
        out += QStringLiteral("  outage          %1 s to %2 s\n").arg(*outageFrom).arg(outageTo.value_or(duration));
        out += QStringLiteral("  to fallback     %1 after the outage began (last primary attempt; first settled request at %2)\n")
                   .arg(seconds(timeToFallback), seconds(firstSettledAfter));
        out += QStringLiteral("  to recovery     %1 after the outage ended\n").arg(seconds(timeToRecovery));
        out += outageWindowText;
    }
    out += streamRescueText;
    for (auto it = errors.begin(); it != errors.end(); ++it)
        out += QStringLiteral("  error %1: %2\n").arg(it.key()).arg(it.value());
    if (!channels.isEmpty()) {
        QStringList totals;
        for (qsizetype c = 0; c < channels.size(); ++c) {
            int total = 0;
            for (const auto &row : perSecond)
                total += row[static_cast<std::size_t>(c)];
            totals.append(QStringLiteral("%1 %2").arg(channels[c]).arg(total));
        }
        out += QStringLiteral("  per channel     %1\n").arg(totals.join(QStringLiteral(", ")));
    }
    return out;
}

} // namespace sb::sim
