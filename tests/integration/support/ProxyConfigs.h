#pragma once

#include "model/EngineConfig.h"

#include <QString>

#include <memory>

namespace sb::test {

// The engine configurations the proxy tests start from. Each test adjusts the returned config in
// place for what it checks (timeouts, retry delays, probe interval, local token, limits).

// Nothing configured yet; the proxy takes any free loopback port (tests run side by side).
std::shared_ptr<EngineConfig> loopbackConfig();

// Adds an openai_compat provider `providerName` at `baseUrl` with one key (secret "sk-<providerName>-0001"
// for provider 1, "…-0002" for 2) and one channel `channelName` asking it for `upstreamModel`, each
// with the next free id; returns the channel's id.
int addProviderChannel(EngineConfig &config, const QString &providerName, const QString &baseUrl,
                       const QString &channelName, const QString &upstreamModel);

// addProviderChannel() and a route `logicalModel` over that channel alone.
void addSingleChannelRoute(EngineConfig &config, const QString &providerName, const QString &baseUrl,
                           const QString &logicalModel, const QString &channelName, const QString &upstreamModel);

// The embeddings service of the semantic cache: provider "embeddings" at `baseUrl` with its channel
// "embed" (model fake-embed), in no route. Returns the channel's id, for cache.embeddingsChannelId.
int addEmbeddingsChannel(EngineConfig &config, const QString &baseUrl);

// loopbackConfig() with one such route: `model` over channel "<model>/A" asking `providerName` for `model`.
std::shared_ptr<EngineConfig> oneChannelConfig(const QString &providerName, const QString &baseUrl,
                                               const QString &model = QStringLiteral("gpt-4o"));

// gpt-4o over two channels: gpt-4o/A on provider "primary" (account acct-a, key sk-primary-0001) and
// gpt-4o/B on "fallback" (acct-b, sk-fallback-0002), routed by priority so that A is always tried
// first; 3 s attempt budgets and 10 ms retry delays.
std::shared_ptr<EngineConfig> twoChannelConfig(const QString &primaryUrl, const QString &fallbackUrl);

} // namespace sb::test
