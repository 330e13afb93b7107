#pragma once

// Shared by the store tests and tst_ConfigJson: a configuration in which every field differs from
// its default, and a field-by-field comparison written out by hand (comparing two JSON exports would
// hide a field that the export forgets).

#include "model/EngineConfig.h"

#include <QStringList>
#include <QUrl>

namespace sb::test {

inline EngineConfig everyFieldSetConfig()
{
    using namespace std::chrono_literals;
    EngineConfig c;
    c.health.window = 301s;
    c.health.fastWindow = 31s;
    c.health.errorWeight = 0.61;
    c.health.latencyWeight = 0.39;
    c.health.minVolume = 11;
    c.health.degradeBelow = 51.5;
    c.health.ejectBelow = 29.5;
    c.health.ejectAfter = 181s;
    c.health.degradedWeightFactor = 0.33;
    c.health.slowWaitFactor = 4.5;
    c.health.slowWaitFloor = 2500ms;

    c.breaker.preset = QStringLiteral("custom");
    c.breaker.consecutiveFailures = 6;
    c.breaker.failureRateThreshold = 0.21;
    c.breaker.rateWindow = 6s;
    c.breaker.minCallsInWindow = 7;
    c.breaker.openDuration = 61s;
    c.breaker.openGrowthFactor = 1.5;
    c.breaker.maxOpenDuration = 601s;
    c.breaker.halfOpenMode = HalfOpenMode::TrafficShare;
    c.breaker.halfOpenMaxTrials = 4;
    c.breaker.halfOpenTrafficShare = 0.06;
    c.breaker.successesToClose = 5;

    c.probe.interval = 11s;
    c.probe.timeout = 6s;
    c.probe.successesToReadmit = 3;
    c.pool.panicMode = false;

    c.retry.baseDelay = 101ms;
    c.retry.maxDelay = 2001ms;
    c.retry.jitter = 99ms;
    c.retry.maxAttempts = 5;
    c.retry.budgetRatio = 0.25;
    c.retry.budgetMinimum = 4;
    c.retry.overallDeadline = 61s;
    c.retry.streamIdleTimeout = 29s;
    c.retry.continueStreams = false;
    c.retry.firstContentTimeout = 17s;
    c.retry.keyCoolDown = 31s;
    c.retry.maxClientWait = 4500ms;

    c.proxy.listenHost = QStringLiteral("127.0.0.2");
    c.proxy.listenPort = 8411;
    c.proxy.localToken = QStringLiteral("local-token-123456789");
    c.proxy.maxBodyBytes = 1234567;
    c.proxy.maxHeaderBytes = 65537;
    c.proxy.idleTimeout = 59s;
    c.proxy.drainTimeout = 9s;
    c.proxy.tlsCertFile = QStringLiteral("/etc/switchboard/fullchain.pem");
    c.proxy.tlsKeyFile = QStringLiteral("/etc/switchboard/privkey.pem");
    c.fleet.redisUrl = QStringLiteral("redis://:fleet-pass-42@127.0.0.1:6380/2");
    c.fleet.name = QStringLiteral("team-a");
    c.fleet.instanceId = QStringLiteral("desk-7");
    c.cache.maxEntries = 321;
    c.cache.maxBytes = 4321;
    c.cache.semanticMaxEntries = 654;
    c.cache.maxAnswerBytes = 987;

    ProviderConfig a;
    a.id = 3;
    a.name = QStringLiteral("openai-main");
    a.dialect = QStringLiteral("openai_compat");
    a.baseUrl = QStringLiteral("https://api.openai.com/v1");
    a.enabled = false;
    a.responsesApi = true;
    a.caBundle = QStringLiteral("/etc/ssl/certs/ca-certificates.crt"); // validate() wants a readable file (package ca-certificates)
    a.connectTimeout = 4001ms;
    a.primaryTimeout = 29001ms;
    a.fallbackTimeout = 19001ms;
    a.requestsPerMinute = 600;
    a.tokensPerMinute = 90000;
    a.burst = 17;
    a.domain = FailureDomain{QStringLiteral("acct-1"), QStringLiteral("us-east"), QStringLiteral("http://127.0.0.1:3128")};
    a.keys = {ApiKeyConfig{7, QStringLiteral("team key"), QStringLiteral("sk-proj-SECRETVALUE-abcdefgh1234"), true, {}},
              ApiKeyConfig{8, QStringLiteral("backup"), QStringLiteral("sk-other-SECRET-zzzz9876"), false, QStringLiteral("401 at 12:04")}};
    ProviderConfig b;
    b.id = 5;
    b.name = QStringLiteral("claude");
    b.dialect = QStringLiteral("anthropic");
    b.baseUrl = QStringLiteral("https://api.anthropic.com/v1");
    b.keys = {ApiKeyConfig{9, QStringLiteral("only"), QStringLiteral("sk-ant-api03-SECRET-qqqq5555"), true, {}}};
    c.providers = {a, b};

    c.channels = {ChannelConfig{11, QStringLiteral("gpt-4o/A"), 3, QStringLiteral("gpt-4o-2024-08-06"), 2.5, true,
                                QStringLiteral("acct-x"), QStringLiteral("eu-west"), QStringLiteral("http://127.0.0.1:3129")},
                  ChannelConfig{12, QStringLiteral("gpt-4o/B"), 5, QStringLiteral("claude-3-5-sonnet"), 0.5, false, {}, {}, {}},
                  ChannelConfig{13, QStringLiteral("mini/A"), 3, QStringLiteral("gpt-4o-mini"), 1.0, true, {}, {}, {}}};

    RouteConfig r1;
    r1.id = 21;
    r1.logicalModel = QStringLiteral("gpt-4o");
    r1.strategy = RoutingStrategy::Latency;
    r1.channelIds = {12, 11}; // order matters: priority
    r1.fallbackModels = {QStringLiteral("gpt-4o-mini")};
    r1.cacheEnabled = true;
    r1.cache.ttl = 77s;
    r1.cache.semantic = true;
    r1.cache.preset = SemanticPreset::Strict;
    r1.cache.embeddingsChannelId = 12;
    r1.cache.embeddingsModel = QStringLiteral("text-embedding-3-small");
    r1.retryClientErrorsElsewhere = false; // r2 keeps the default, on: both values round-trip
    r1.continueStreams = false;
    r1.streamToolCalls = true; // r2 keeps the default, off
    RouteConfig r2;
    r2.id = 22;
    r2.logicalModel = QStringLiteral("gpt-4o-mini");
    r2.strategy = RoutingStrategy::RoundRobin;
    r2.channelIds = {13};
    c.routes = {r1, r2};

    // One row with prompt-cache prices, one with them unset (the input price).
    c.prices = {ModelPrice{QStringLiteral("claude-3-5-sonnet"), 3.0, 15.0, 0.30, 3.75},
                ModelPrice{QStringLiteral("gpt-4o-2024-08-06"), 2.5, 10.0}};
    c.demo = false;
    return c;
}

// Every difference as a line "field: a != b"; empty when equal. Secrets are compared only when asked.
inline QStringList configDifferences(const EngineConfig &a, const EngineConfig &b, bool compareSecrets = true)
{
    QStringList d;
    auto cmp = [&d](const QString &name, const auto &x, const auto &y) {
        if (!(x == y))
            d << name;
    };
#define SB_CMP(field) cmp(QStringLiteral(#field), a.field, b.field)
    SB_CMP(health.window); SB_CMP(health.fastWindow); SB_CMP(health.errorWeight); SB_CMP(health.latencyWeight);
    SB_CMP(health.minVolume); SB_CMP(health.degradeBelow); SB_CMP(health.ejectBelow); SB_CMP(health.ejectAfter);
    SB_CMP(health.degradedWeightFactor);
    SB_CMP(health.slowWaitFactor);
    SB_CMP(health.slowWaitFloor);
    SB_CMP(breaker.preset); SB_CMP(breaker.consecutiveFailures); SB_CMP(breaker.failureRateThreshold); SB_CMP(breaker.rateWindow);
    SB_CMP(breaker.minCallsInWindow); SB_CMP(breaker.openDuration); SB_CMP(breaker.openGrowthFactor); SB_CMP(breaker.maxOpenDuration);
    SB_CMP(breaker.halfOpenMode); SB_CMP(breaker.halfOpenMaxTrials); SB_CMP(breaker.halfOpenTrafficShare); SB_CMP(breaker.successesToClose);
    SB_CMP(probe.interval); SB_CMP(probe.timeout); SB_CMP(probe.successesToReadmit); SB_CMP(pool.panicMode);
    SB_CMP(retry.baseDelay); SB_CMP(retry.maxDelay); SB_CMP(retry.jitter); SB_CMP(retry.maxAttempts); SB_CMP(retry.budgetRatio);
    SB_CMP(retry.budgetMinimum); SB_CMP(retry.overallDeadline); SB_CMP(retry.streamIdleTimeout); SB_CMP(retry.continueStreams); SB_CMP(retry.firstContentTimeout);
    SB_CMP(retry.keyCoolDown); SB_CMP(retry.maxClientWait);
    SB_CMP(proxy.listenHost); SB_CMP(proxy.listenPort); SB_CMP(proxy.maxBodyBytes); SB_CMP(proxy.maxHeaderBytes);
    SB_CMP(proxy.idleTimeout); SB_CMP(proxy.drainTimeout); SB_CMP(proxy.tlsCertFile); SB_CMP(proxy.tlsKeyFile); SB_CMP(demo);
    SB_CMP(fleet.name); SB_CMP(fleet.instanceId);
    SB_CMP(cache.maxEntries); SB_CMP(cache.maxBytes); SB_CMP(cache.semanticMaxEntries); SB_CMP(cache.maxAnswerBytes);
    if (compareSecrets) {
        SB_CMP(proxy.localToken);
        SB_CMP(fleet.redisUrl);
    } else if (QUrl(a.fleet.redisUrl).adjusted(QUrl::RemovePassword) != QUrl(b.fleet.redisUrl).adjusted(QUrl::RemovePassword)) {
        d << QStringLiteral("fleet.redisUrl");
    }
#undef SB_CMP
    if (a.providers.size() != b.providers.size())
        d << QStringLiteral("providers.size");
    for (std::size_t i = 0; i < std::min(a.providers.size(), b.providers.size()); ++i) {
        const auto &x = a.providers[i];
        const auto &y = b.providers[i];
        const QString p = QStringLiteral("providers[%1].").arg(i);
        cmp(p + "id", x.id, y.id); cmp(p + "name", x.name, y.name); cmp(p + "dialect", x.dialect, y.dialect);
        cmp(p + "baseUrl", x.baseUrl, y.baseUrl); cmp(p + "enabled", x.enabled, y.enabled);
        cmp(p + "responsesApi", x.responsesApi, y.responsesApi);
        cmp(p + "caBundle", x.caBundle, y.caBundle); cmp(p + "tlsSkipVerify", x.tlsSkipVerify, y.tlsSkipVerify);
        cmp(p + "connectTimeout", x.connectTimeout, y.connectTimeout); cmp(p + "primaryTimeout", x.primaryTimeout, y.primaryTimeout);
        cmp(p + "fallbackTimeout", x.fallbackTimeout, y.fallbackTimeout); cmp(p + "rpm", x.requestsPerMinute, y.requestsPerMinute);
        cmp(p + "tpm", x.tokensPerMinute, y.tokensPerMinute); cmp(p + "burst", x.burst, y.burst);
        cmp(p + "account", x.domain.account, y.domain.account); cmp(p + "region", x.domain.region, y.domain.region);
        cmp(p + "egressProxy", x.domain.egressProxy, y.domain.egressProxy);
        if (x.keys.size() != y.keys.size())
            d << p + "keys.size";
        for (std::size_t k = 0; k < std::min(x.keys.size(), y.keys.size()); ++k) {
            const QString kp = p + QStringLiteral("keys[%1].").arg(k);
            cmp(kp + "id", x.keys[k].id, y.keys[k].id); cmp(kp + "label", x.keys[k].label, y.keys[k].label);
            cmp(kp + "enabled", x.keys[k].enabled, y.keys[k].enabled);
            cmp(kp + "disabledReason", x.keys[k].disabledReason, y.keys[k].disabledReason);
            if (compareSecrets)
                cmp(kp + "secret", x.keys[k].secret, y.keys[k].secret);
        }
    }
    if (a.channels.size() != b.channels.size())
        d << QStringLiteral("channels.size");
    for (std::size_t i = 0; i < std::min(a.channels.size(), b.channels.size()); ++i) {
        const auto &x = a.channels[i];
        const auto &y = b.channels[i];
        const QString p = QStringLiteral("channels[%1].").arg(i);
        cmp(p + "id", x.id, y.id); cmp(p + "name", x.name, y.name); cmp(p + "providerId", x.providerId, y.providerId);
        cmp(p + "upstreamModel", x.upstreamModel, y.upstreamModel); cmp(p + "weight", x.weight, y.weight);
        cmp(p + "enabled", x.enabled, y.enabled); cmp(p + "account", x.account, y.account); cmp(p + "region", x.region, y.region);
        cmp(p + "egressProxy", x.egressProxy, y.egressProxy);
    }
    if (a.routes.size() != b.routes.size())
        d << QStringLiteral("routes.size");
    for (std::size_t i = 0; i < std::min(a.routes.size(), b.routes.size()); ++i) {
        const auto &x = a.routes[i];
        const auto &y = b.routes[i];
        const QString p = QStringLiteral("routes[%1].").arg(i);
        cmp(p + "id", x.id, y.id); cmp(p + "logicalModel", x.logicalModel, y.logicalModel); cmp(p + "strategy", x.strategy, y.strategy);
        cmp(p + "channelIds", x.channelIds, y.channelIds); cmp(p + "fallbackModels", x.fallbackModels, y.fallbackModels);
        cmp(p + "cacheEnabled", x.cacheEnabled, y.cacheEnabled);
        cmp(p + "cache.ttl", x.cache.ttl, y.cache.ttl); cmp(p + "cache.semantic", x.cache.semantic, y.cache.semantic);
        cmp(p + "cache.preset", x.cache.preset, y.cache.preset);
        cmp(p + "cache.embeddingsChannelId", x.cache.embeddingsChannelId, y.cache.embeddingsChannelId);
        cmp(p + "cache.embeddingsModel", x.cache.embeddingsModel, y.cache.embeddingsModel);
        cmp(p + "retryClientErrorsElsewhere", x.retryClientErrorsElsewhere, y.retryClientErrorsElsewhere);
        cmp(p + "continueStreams", x.continueStreams, y.continueStreams);
        cmp(p + "streamToolCalls", x.streamToolCalls, y.streamToolCalls);
    }
    if (a.prices.size() != b.prices.size())
        d << QStringLiteral("prices.size");
    for (std::size_t i = 0; i < std::min(a.prices.size(), b.prices.size()); ++i) {
        const QString p = QStringLiteral("prices[%1].").arg(i);
        cmp(p + "model", a.prices[i].model, b.prices[i].model);
        cmp(p + "input", a.prices[i].inputUsdPerM, b.prices[i].inputUsdPerM);
        cmp(p + "output", a.prices[i].outputUsdPerM, b.prices[i].outputUsdPerM);
        cmp(p + "cachedInput", a.prices[i].cachedInputUsdPerM, b.prices[i].cachedInputUsdPerM);
        cmp(p + "cacheWrite", a.prices[i].cacheWriteUsdPerM, b.prices[i].cacheWriteUsdPerM);
    }
    return d;
}

} // namespace sb::test
