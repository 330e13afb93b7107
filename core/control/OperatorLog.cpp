#include "control/OperatorLog.h"

#include <QStringList>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace sb {

namespace {

QString stateWord(const QString &state)
{
    QString word = state;
    return word.replace(QLatin1Char('_'), QLatin1Char('-'));
}

bool outOfPool(const QString &state)
{
    return state == u"ejected" || state == u"drained" || state == u"misconfigured";
}

void writeBreaker(const HealthEvent &e)
{
    const std::string line = QStringLiteral("channel %1: circuit %2 (was %3): %4")
                                 .arg(e.channelName, stateWord(e.to), stateWord(e.from), e.reason)
                                 .toStdString();
    if (e.to == u"open")
        spdlog::warn("{}", line);
    else
        spdlog::info("{}", line);
}

void writePool(const HealthEvent &e)
{
    QString what;
    if (e.to == u"ejected")
        what = QStringLiteral("ejected from the pool");
    else if (e.to == u"misconfigured")
        what = QStringLiteral("misconfigured, out of the pool until fixed");
    else if (e.to == u"drained")
        what = QStringLiteral("drained from the pool");
    else if (outOfPool(e.from))
        what = QStringLiteral("re-admitted to the pool as %1").arg(e.to);
    else
        what = e.to;
    const std::string line = QStringLiteral("channel %1: %2 (was %3): %4").arg(e.channelName, what, e.from, e.reason).toStdString();
    if (e.to == u"active" || (outOfPool(e.from) && !outOfPool(e.to)))
        spdlog::info("{}", line);
    else
        spdlog::warn("{}", line);
}

} // namespace

OperatorLog::OperatorLog(const Clock &clock, Clock::Duration window) : m_clock(clock), m_window(window) {}

OperatorLog::~OperatorLog() = default;

void OperatorLog::start()
{
    if (!m_timer)
        m_timer = m_clock.createTimer([this] { flush(); }, TimerKind::Repeating);
    m_timer->start(std::chrono::seconds(1));
}

void OperatorLog::stop()
{
    if (m_timer)
        m_timer->stop();
    m_timer.reset();
    flush(true);
}

void OperatorLog::note(const HealthEvent &e)
{
    switch (e.type) {
    case HealthEvent::Type::Breaker:
        writeBreaker(e);
        return;
    case HealthEvent::Type::Pool:
        writePool(e);
        return;
    case HealthEvent::Type::Key:
        // The key ring's reason names the provider and the key (label and masked form), how long and why.
        if (e.to == u"disabled")
            spdlog::warn("keys: {}", e.reason.toStdString());
        else
            spdlog::info("keys: {}", e.reason.toStdString());
        return;
    case HealthEvent::Type::Bucket:
        spdlog::info("rate limit: {}", e.reason.toStdString()); // the router already keeps these 10 s apart
        return;
    case HealthEvent::Type::Fleet:
        if (e.to == u"lost")
            spdlog::warn("fleet: {}", e.reason.toStdString());
        else
            spdlog::info("fleet: {}", e.reason.toStdString());
        return;
    case HealthEvent::Type::Budget:
        return; // ProxyCall writes it where the spend is counted
    case HealthEvent::Type::Failover:
    case HealthEvent::Type::Panic:
        break;
    }

    const Kind kind = e.type == HealthEvent::Type::Failover ? Kind::Failover : Kind::Panic;
    const QString route = e.route.isEmpty() ? QStringLiteral("(unknown)") : e.route;
    {
        std::lock_guard lock(m_mutex);
        const auto [it, began] = m_windows.try_emplace({route, kind});
        if (!began) {
            ++(kind == Kind::Failover ? it->second.counts[{e.from, e.to, e.cause}] : it->second.counts[{QString(), e.channelName, QString()}]);
            return;
        }
        it->second.since = m_clock.now();
    }
    const qint64 windowSeconds = std::llround(toSeconds(m_window));
    if (kind == Kind::Failover)
        spdlog::warn("route {}: failover from {} to {}{}; further failovers of this route are summarised every {} s",
                     route.toStdString(), e.from.toStdString(), e.to.toStdString(),
                     e.cause.isEmpty() ? std::string() : " (" + e.cause.toStdString() + ")", windowSeconds);
    else
        spdlog::warn("route {}: panic mode, {}; further panic choices of this route are summarised every {} s",
                     route.toStdString(), e.reason.toStdString(), windowSeconds);
}

QString OperatorLog::summary(const QString &route, Kind kind, const Window &w, Clock::TimePoint now) const
{
    const qint64 seconds = std::max<qint64>(1, std::llround(toSeconds(now - w.since)));
    int total = 0;
    for (const auto &[key, count] : w.counts)
        total += count;
    if (kind == Kind::Panic) {
        QStringList used;
        for (const auto &[key, count] : w.counts)
            used << QStringLiteral("%1 %2 time(s)").arg(std::get<1>(key)).arg(count);
        return QStringLiteral("route %1: %2 request(s) in panic mode in the last %3 s, every channel out of the pool or open "
                              "(used: %4)").arg(route).arg(total).arg(seconds).arg(used.join(QStringLiteral(", ")));
    }
    auto cause = [](const QString &c) { return c.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(c); };
    if (w.counts.size() == 1) {
        const auto &[key, count] = *w.counts.begin();
        return QStringLiteral("route %1: %2 failover(s) from %3 to %4 in the last %5 s%6")
            .arg(route)
            .arg(total)
            .arg(std::get<0>(key), std::get<1>(key))
            .arg(seconds)
            .arg(cause(std::get<2>(key)));
    }
    QStringList parts;
    for (const auto &[key, count] : w.counts)
        parts << QStringLiteral("%1 from %2 to %3%4").arg(count).arg(std::get<0>(key), std::get<1>(key), cause(std::get<2>(key)));
    return QStringLiteral("route %1: %2 failover(s) in the last %3 s: %4").arg(route).arg(total).arg(seconds).arg(parts.join(QStringLiteral(", ")));
}

void OperatorLog::flush(bool everything)
{
    std::vector<QString> lines;
    {
        std::lock_guard lock(m_mutex);
        const Clock::TimePoint now = m_clock.now();
        for (auto it = m_windows.begin(); it != m_windows.end();) {
            Window &w = it->second;
            if (now - w.since < m_window && !everything) {
                ++it;
                continue;
            }
            if (w.counts.empty()) {
                // A quiet window: the next failover of this route is news again, written at once.
                it = m_windows.erase(it);
                continue;
            }
            lines.push_back(summary(it->first.first, it->first.second, w, now));
            w.counts.clear();
            w.since = now;
            ++it;
        }
    }
    for (const QString &line : lines)
        spdlog::warn("{}", line.toStdString());
}

} // namespace sb
