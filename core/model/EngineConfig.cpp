#include "model/EngineConfig.h"

#include "model/DialectRules.h"

#include <QFileInfo>
#include <QSet>
#include <QUrl>

namespace sb {

BreakerConfig BreakerConfig::relay()
{
    return BreakerConfig{}; // the member defaults are the relay preset
}

BreakerConfig BreakerConfig::launchDay()
{
    BreakerConfig c;
    c.preset = QStringLiteral("launch-day");
    c.failureRateThreshold = 0.20;
    c.rateWindow = 5s;
    c.minCallsInWindow = 10; // the launch-day drill's 4 requests/s fill the 5 s window with 20 calls; half of them is evidence
    c.openDuration = 120s;
    c.halfOpenMode = HalfOpenMode::TrafficShare;
    c.halfOpenTrafficShare = 0.05;
    c.successesToClose = 3;
    return c;
}

bool BreakerConfig::fromPreset(QStringView name, BreakerConfig *out)
{
    if (name == u"relay") {
        *out = relay();
        return true;
    }
    if (name == u"launch-day") {
        *out = launchDay();
        return true;
    }
    return false;
}

const ProviderConfig *EngineConfig::provider(int id) const
{
    for (const auto &p : providers)
        if (p.id == id)
            return &p;
    return nullptr;
}

const ChannelConfig *EngineConfig::channel(int id) const
{
    for (const auto &c : channels)
        if (c.id == id)
            return &c;
    return nullptr;
}

const RouteConfig *EngineConfig::route(QStringView logicalModel) const
{
    for (const auto &r : routes)
        if (r.logicalModel == logicalModel)
            return &r;
    return nullptr;
}

FailureDomain EngineConfig::domainOf(const ChannelConfig &c) const
{
    FailureDomain d;
    if (const auto *p = provider(c.providerId))
        d = p->domain;
    if (!c.account.isEmpty())
        d.account = c.account;
    if (!c.region.isEmpty())
        d.region = c.region;
    if (!c.egressProxy.isEmpty())
        d.egressProxy = c.egressProxy;
    return d;
}

namespace {

// What libcurl takes as a proxy: http(s) or SOCKS, with a host.
bool isProxyUrl(const QString &text)
{
    static const QStringList schemes{QStringLiteral("http"), QStringLiteral("https"), QStringLiteral("socks4"),
                                     QStringLiteral("socks4a"), QStringLiteral("socks5"), QStringLiteral("socks5h")};
    const QUrl url(text.trimmed(), QUrl::StrictMode);
    return url.isValid() && schemes.contains(url.scheme()) && !url.host().isEmpty();
}

} // namespace

QStringList EngineConfig::validate() const
{
    const ConfigProblems found = problems();
    return found.whole + found.providers;
}

ConfigProblems EngineConfig::problems() const
{
    ConfigProblems found;
    QStringList &problems = found.whole;
    QStringList &unservable = found.providers;
    QSet<QString> providerNames;
    QSet<int> providerIds;
    for (const auto &p : providers) {
        if (p.name.trimmed().isEmpty())
            problems << QStringLiteral("A provider has no name; give each provider a unique name.");
        else if (providerNames.contains(p.name))
            problems << QStringLiteral("Two providers are named \"%1\"; rename one of them.").arg(p.name);
        providerNames.insert(p.name);
        if (providerIds.contains(p.id))
            problems << QStringLiteral("Provider id %1 is used twice.").arg(p.id);
        providerIds.insert(p.id);
        if (!findDialectRule(p.dialect))
            unservable << unknownDialectSentence(p.name, p.dialect);
        else if (lacksNeededKey(p.dialect, p.baseUrl, p.enabled, static_cast<int>(p.keys.size())))
            unservable << missingKeySentence(p.name, p.dialect);
        const QUrl url(p.baseUrl.trimmed());
        if (!url.isValid() || (url.scheme() != u"http" && url.scheme() != u"https") || url.host().isEmpty())
            problems << QStringLiteral("Provider \"%1\": base URL \"%2\" is not an http(s) URL with a host, "
                                       "e.g. https://api.openai.com/v1.").arg(p.name, p.baseUrl);
        else if (url.hasQuery() || url.hasFragment())
            // Each endpoint's path is added after the base URL, which a query would end up in front of.
            unservable << QStringLiteral("Provider \"%1\": base URL \"%2\" carries a query or fragment; give only the scheme, "
                                         "host and path (Switchboard adds each endpoint and the key itself).").arg(p.name, p.baseUrl);
        if (!p.domain.egressProxy.isEmpty() && !isProxyUrl(p.domain.egressProxy))
            unservable << QStringLiteral("Provider \"%1\": egress proxy \"%2\" is not a proxy URL such as http://proxy.internal:3128 "
                                         "or socks5://host:1080.").arg(p.name, p.domain.egressProxy);
        if (!p.caBundle.isEmpty()) {
            const QFileInfo bundle(p.caBundle);
            if (p.tlsSkipVerify)
                unservable << QStringLiteral("Provider \"%1\": a CA bundle and \"skip verification\" contradict each other; keep the "
                                             "bundle (verified against it) or clear it.").arg(p.name);
            else if (!bundle.isAbsolute())
                unservable << QStringLiteral("Provider \"%1\": CA bundle \"%2\" is not an absolute path, e.g. "
                                             "/etc/ssl/private-ca.pem.").arg(p.name, p.caBundle);
            else if (!bundle.isFile() || !bundle.isReadable())
                unservable << QStringLiteral("Provider \"%1\": CA bundle \"%2\" does not exist or cannot be read; give the PEM "
                                             "file of the CAs this provider's certificate is signed by.").arg(p.name, p.caBundle);
        }
        if (p.primaryTimeout <= 0ms || p.fallbackTimeout <= 0ms || p.connectTimeout <= 0ms)
            problems << QStringLiteral("Provider \"%1\": timeouts must be positive.").arg(p.name);
        if (p.requestsPerMinute < 0 || p.tokensPerMinute < 0 || p.burst < 0)
            problems << QStringLiteral("Provider \"%1\": rate limits cannot be negative.").arg(p.name);
        if (p.responsesApi && p.dialect != u"openai_compat")
            problems << QStringLiteral("Provider \"%1\": the Responses API setting is for OpenAI-compatible providers only; turn it off "
                                       "for the %2 dialect.").arg(p.name, p.dialect);
    }
    QSet<int> channelIds;
    QSet<QString> channelNames;
    for (const auto &c : channels) {
        if (channelIds.contains(c.id))
            problems << QStringLiteral("Channel id %1 is used twice.").arg(c.id);
        channelIds.insert(c.id);
        // Routes, the history and the x-switchboard-channel header tell channels apart by name.
        if (c.name.trimmed().isEmpty())
            problems << QStringLiteral("A channel has no name; give each channel a unique name.");
        else if (channelNames.contains(c.name))
            problems << QStringLiteral("Two channels are named \"%1\"; rename one of them.").arg(c.name);
        channelNames.insert(c.name);
        if (!c.egressProxy.isEmpty() && !isProxyUrl(c.egressProxy))
            unservable << QStringLiteral("Channel \"%1\": egress proxy \"%2\" is not a proxy URL such as http://proxy.internal:3128 "
                                         "or socks5://host:1080.").arg(c.name, c.egressProxy);
        if (!provider(c.providerId))
            problems << QStringLiteral("Channel \"%1\" names provider id %2, which does not exist.").arg(c.name).arg(c.providerId);
        if (c.upstreamModel.trimmed().isEmpty())
            problems << QStringLiteral("Channel \"%1\" has no upstream model.").arg(c.name);
        if (!(c.weight > 0.0))
            problems << QStringLiteral("Channel \"%1\": weight must be greater than 0.").arg(c.name);
    }
    QSet<QString> models;
    for (const auto &r : routes) {
        if (r.logicalModel.trimmed().isEmpty())
            problems << QStringLiteral("A route has no model name.");
        if (models.contains(r.logicalModel))
            problems << QStringLiteral("Two routes are named \"%1\".").arg(r.logicalModel);
        models.insert(r.logicalModel);
        if (r.channelIds.empty())
            problems << QStringLiteral("Route \"%1\" has no channels; add at least one (two for failover).").arg(r.logicalModel);
        for (int id : r.channelIds)
            if (!channelIds.contains(id))
                problems << QStringLiteral("Route \"%1\" names channel id %2, which does not exist.").arg(r.logicalModel).arg(id);
    }
    for (const auto &r : routes)
        for (const auto &f : r.fallbackModels)
            if (!models.contains(f))
                problems << QStringLiteral("Route \"%1\" falls back to \"%2\", which is not a route.").arg(r.logicalModel, f);

    if (health.errorWeight < 0 || health.latencyWeight < 0 || health.errorWeight + health.latencyWeight <= 0)
        problems << QStringLiteral("Health score weights must be non-negative and not both zero.");
    if (health.ejectBelow > health.degradeBelow)
        problems << QStringLiteral("The ejection threshold must not be above the degradation threshold.");
    if (health.slowWaitFactor < 0 || health.slowWaitFloor.count() < 0)
        problems << QStringLiteral("The slow-wait factor and floor must not be negative (a factor of 0 turns the rule off).");
    if (breaker.consecutiveFailures < 1 || breaker.successesToClose < 1 || breaker.halfOpenMaxTrials < 1)
        problems << QStringLiteral("Circuit breaker counts must be at least 1.");
    if (breaker.failureRateThreshold <= 0 || breaker.failureRateThreshold > 1)
        problems << QStringLiteral("The circuit breaker's failure rate threshold must be between 0 and 100 %.");
    if (breaker.halfOpenTrafficShare <= 0 || breaker.halfOpenTrafficShare > 1)
        problems << QStringLiteral("The half-open traffic share must be between 0 and 100 %.");
    if (retry.budgetRatio < 0 || retry.budgetMinimum < 0 || retry.maxAttempts < 1)
        problems << QStringLiteral("Retry settings: budget must be non-negative and at least one attempt allowed.");
    for (const auto &r : routes) {
        if (r.cacheEnabled || r.cache.semantic) {
            if (r.cache.ttl <= 0s)
                problems << QStringLiteral("Route \"%1\": the cache TTL must be at least 1 second.").arg(r.logicalModel);
        }
        if (r.cache.semantic) {
            if (r.cache.embeddingsChannelId == 0)
                problems << QStringLiteral("Route \"%1\": the semantic cache needs an embeddings channel; choose one or turn the semantic cache off.").arg(r.logicalModel);
            else if (!channelIds.contains(r.cache.embeddingsChannelId))
                problems << QStringLiteral("Route \"%1\": the embeddings channel id %2 does not exist.").arg(r.logicalModel).arg(r.cache.embeddingsChannelId);
        }
    }
    if (cache.maxEntries < 0 || cache.maxBytes < 0 || cache.semanticMaxEntries < 0 || cache.maxAnswerBytes < 0)
        problems << QStringLiteral("Cache limits cannot be negative (0 turns that cache off).");
    {
        QStringList routeModels;
        for (const auto &r : routes)
            routeModels << r.logicalModel;
        for (const auto &b : budgets)
            problems << b.validate(routeModels);
        problems << autoModel.validate(routeModels);
    }
    if (proxy.listenPort < 0 || proxy.listenPort > 65535)
        problems << QStringLiteral("The listen port must be between 0 and 65535.");
    if (proxy.tlsCertFile.trimmed().isEmpty() != proxy.tlsKeyFile.trimmed().isEmpty())
        problems << QStringLiteral("HTTPS on the proxy port needs both a certificate file (proxy.tls_cert_file) and its key "
                                   "file (proxy.tls_key_file).");
    return found;
}

QStringList EngineConfig::validateAsWritten() const
{
    QStringList problems = validate();
    for (const auto &p : providers) {
        int usable = 0;
        for (const auto &k : p.keys)
            usable += k.enabled && !k.secret.isEmpty() ? 1 : 0;
        if (p.keys.empty() || !lacksNeededKey(p.dialect, p.baseUrl, p.enabled, usable))
            continue; // no keys at all is validate()'s sentence
        problems << QStringLiteral("Provider \"%1\" (%2): none of its %3 key(s) is enabled with a secret, and a configuration "
                                   "file has no stored secrets to fall back on; give a key as \"keys\": [\"<the key>\"] or "
                                   "[{\"secret\": \"<the key>\"}].").arg(p.name, p.dialect).arg(p.keys.size());
    }
    return problems;
}

} // namespace sb
