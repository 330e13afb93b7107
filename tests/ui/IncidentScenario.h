#pragma once

// Synthetic engine output for the console tests and screenshots: two routes × two channels and a
// scripted incident, so the UI can be driven without an engine. Deterministic: every value is a
// function of the second.

#include "control/MetricsSnapshot.h"
#include "health/HealthEvent.h"
#include "model/EngineConfig.h"

#include <QDateTime>
#include <QTimeZone>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace sb::test {

inline EngineConfigPtr incidentConfig()
{
    auto config = std::make_shared<EngineConfig>();
    const char *providers[] = {"openai-main", "azure-east", "anthropic", "bedrock-us"};
    for (int i = 0; i < 4; ++i) {
        ProviderConfig provider;
        provider.id = i + 1;
        provider.name = QString::fromLatin1(providers[i]);
        provider.dialect = i < 2 ? QStringLiteral("openai_compat") : QStringLiteral("anthropic");
        config->providers.push_back(provider);
    }
    const char *channels[] = {"gpt-4o/A", "gpt-4o/B", "claude-sonnet/A", "claude-sonnet/B"};
    for (int i = 0; i < 4; ++i) {
        ChannelConfig channel;
        channel.id = i + 1;
        channel.name = QString::fromLatin1(channels[i]);
        channel.providerId = i + 1;
        config->channels.push_back(channel);
    }
    RouteConfig gpt;
    gpt.id = 1;
    gpt.logicalModel = QStringLiteral("gpt-4o");
    gpt.channelIds = {1, 2};
    RouteConfig claude;
    claude.id = 2;
    claude.logicalModel = QStringLiteral("claude-sonnet");
    claude.channelIds = {3, 4};
    config->routes = {gpt, claude};
    return config;
}

// 15 minutes at about 1,000 req/s. gpt-4o/A's errors climb from 7:00, its score dips below 50
// (degraded), its breaker opens at 7:50 for 60 s, half-opens, fails a trial, half-opens again and
// closes at 9:05; failovers A → B meanwhile. claude-sonnet/B slowly degrades on latency near the end.
struct IncidentScenario {
    static constexpr int kSeconds = 900;
    static constexpr int kDipStart = 420, kOpen = 470, kHalfOpen = 530, kClose = 545, kRecovered = 660;

    std::int64_t baseMillis = QDateTime(QDate(2026, 11, 30), QTime(12, 0), QTimeZone::utc()).toMSecsSinceEpoch();

    static double wobble(int second, int channel) { return std::sin(second * 0.21 + channel * 1.7) * 1.5; }

    // gpt-4o/A's error rate at a second.
    static double errorRateA(int s)
    {
        if (s < kDipStart || s >= kRecovered)
            return 0.002;
        if (s < kOpen)
            return 0.002 + 0.40 * (s - kDipStart) / double(kOpen - kDipStart);
        if (s < kClose)
            return 0.45;
        return 0.02 * (kRecovered - s) / double(kRecovered - kClose);
    }

    static BreakerState breakerA(int s)
    {
        if (s >= kOpen && s < kHalfOpen)
            return BreakerState::Open;
        if (s >= kHalfOpen && s < kClose)
            return BreakerState::HalfOpen;
        return BreakerState::Closed;
    }

    static double scoreA(int s)
    {
        if (s < kDipStart)
            return 96 + wobble(s, 1);
        if (s < kOpen)
            return 96 - 58.0 * (s - kDipStart) / double(kOpen - kDipStart);
        if (s < kClose)
            return 38 - 14.0 * std::min(1.0, (s - kOpen) / 20.0);
        if (s < kRecovered)
            return 24 + 70.0 * (s - kClose) / double(kRecovered - kClose);
        return 94 + wobble(s, 1);
    }

    // Failovers A → B in that second: A's share of traffic times its error rate.
    static int failoversAt(int s)
    {
        if (s >= kDipStart + 10 && s < kOpen)
            return int(std::lround(450.0 * errorRateA(s) * std::max(0.15, scoreA(s) / 100.0)));
        if (s >= kHalfOpen && s < kHalfOpen + 4)
            return 2; // trial calls that failed
        return 0;
    }

    std::vector<HealthEvent> eventsAt(int s) const
    {
        std::vector<HealthEvent> events;
        for (int i = 0; i < failoversAt(s); ++i) {
            HealthEvent event;
            event.type = HealthEvent::Type::Failover;
            event.fromChannelId = 1;
            event.channelId = 2;
            event.channelName = QStringLiteral("gpt-4o/B");
            event.reason = s < kOpen ? QStringLiteral("503 Service Unavailable") : QStringLiteral("half-open trial: timeout after 30 s");
            event.wallMillis = baseMillis + std::int64_t(s) * 1000 + 10 * i;
            events.push_back(event);
        }
        return events;
    }

    MetricsSnapshot at(int s) const
    {
        MetricsSnapshot snapshot;
        snapshot.wallMillis = baseMillis + std::int64_t(s) * 1000;
        const double rps = 1000 + 40 * std::sin(s * 0.05);
        const bool incident = s >= kDipStart && s < kRecovered;
        snapshot.requestsPerSecond = rps;
        snapshot.requests = std::uint64_t(1000.0 * s);
        std::uint64_t failovers = 0;
        for (int i = 0; i <= s; ++i)
            failovers += std::uint64_t(failoversAt(i));
        snapshot.failovers = failovers;
        snapshot.failed = std::uint64_t(s / 200);
        snapshot.succeeded = snapshot.requests - snapshot.failed;
        snapshot.answered5m = std::uint64_t(std::min(s, 300)) * 1000;
        snapshot.availability5m = incident ? 0.9961 + 0.002 * std::sin(s * 0.1) : 0.9998;
        snapshot.ttftP50Ms = incident ? 420 + 2 * (s % 60) : 310 + 8 * wobble(s, 0);
        snapshot.ttftP95Ms = incident && s < kClose ? 1500 + 600 * std::sin((s - kDipStart) * 0.05) : 760 + 25 * wobble(s, 2);
        snapshot.inFlight = std::int64_t(rps * snapshot.ttftP50Ms / 1000.0 * 2.4);
        snapshot.inputTokens = snapshot.requests * 420;
        snapshot.outputTokens = snapshot.requests * 180;

        for (int id = 1; id <= 4; ++id) {
            ChannelSnapshot c;
            c.channelId = id;
            c.providerId = id;
            static const char *names[] = {"gpt-4o/A", "gpt-4o/B", "claude-sonnet/A", "claude-sonnet/B"};
            c.name = QString::fromLatin1(names[id - 1]);
            c.score = std::clamp(96 + wobble(s, id), 0.0, 100.0);
            c.errorRate30s = 0.001 + 0.001 * id;
            c.errorRate5m = 0.0012 + 0.001 * id;
            c.calls30s = 7400;
            c.calls5m = 74000;
            c.p50Ms = 820 + 20 * id;
            c.p95Ms = 2100 + 90 * id + 40 * wobble(s, id);
            c.p99Ms = c.p95Ms * 1.6;
            c.ttftP95Ms = 700 + 30 * id + 25 * wobble(s, id);
            c.inFlight = int(snapshot.inFlight * (0.18 + 0.03 * id) + 7 * wobble(s, id));
            c.keysTotal = id == 1 ? 3 : 2;
            c.keysHealthy = c.keysTotal;
            c.headroom = 0.7 - 0.05 * id;
            if (id == 1) {
                c.score = std::clamp(scoreA(s), 0.0, 100.0);
                c.errorRate30s = errorRateA(s);
                c.errorRate5m = incident ? errorRateA(s) * 0.6 + 0.01 : 0.002;
                c.breaker = breakerA(s);
                c.ttftP95Ms = incident ? 2400 : c.ttftP95Ms;
                c.inFlight = c.breaker == BreakerState::Open ? 0 : incident ? c.inFlight / 4 : c.inFlight;
                if (c.score < 50) {
                    c.pool = PoolState::Degraded;
                    c.poolReason = QStringLiteral("score %1 < 50: routing weight cut to 25 %").arg(int(c.score));
                }
            } else if (id == 2 && incident) {
                c.inFlight = int(snapshot.inFlight / 2);
                c.headroom = 0.22;
            } else if (id == 4 && s > 760) {
                const double drift = (s - 760) / double(kSeconds - 760);
                c.score = 94 - 49 * drift;
                c.p95Ms = 2400 + 5200 * drift;
                c.ttftP95Ms = 900 + 1800 * drift;
                c.errorRate30s = 0.004 + 0.05 * drift;
                if (c.score < 50) {
                    c.pool = PoolState::Degraded;
                    c.poolReason = QStringLiteral("P95 %1 ms is 3× its baseline").arg(int(c.p95Ms));
                }
            }
            c.routable = c.breaker != BreakerState::Open;
            snapshot.channels.push_back(c);
        }
        return snapshot;
    }
};

} // namespace sb::test
