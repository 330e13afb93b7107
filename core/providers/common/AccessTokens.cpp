#include "providers/common/AccessTokens.h"

#include "common/ReplyChannel.h"
#include "net/UpstreamTransport.h"
#include "providers/ProviderAdapter.h"

#include <QCryptographicHash>
#include <QStringList>
#include <QUrlQuery>

#include <algorithm>

namespace sb {

namespace {

// The exchange's request names the credential and the host it is good for: its digest is the
// cache key, so neither the secret nor a second copy of it is kept here.
QByteArray cacheKeyOf(const UpstreamRequest &request)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(request.method);
    hash.addData(QByteArrayView("\n"));
    hash.addData(request.url.toEncoded());
    hash.addData(QByteArrayView("\n"));
    hash.addData(request.body);
    return hash.result();
}

Outcome transferFailure(TransferError error, const QString &message)
{
    switch (error) {
    case TransferError::Timeout:
        return Outcome::local(OutcomeKind::Timeout, message);
    case TransferError::ConnectFailed:
    case TransferError::NameNotResolved:
    case TransferError::TlsFailed:
        return Outcome::local(OutcomeKind::ConnectFailed, message);
    default:
        return Outcome::local(OutcomeKind::ProviderDown, message);
    }
}

} // namespace

Clock::Duration AccessTokens::refreshAfter(std::chrono::seconds lifetime)
{
    using namespace std::chrono;
    const seconds margin = std::clamp<seconds>(lifetime / 10, 1s, 1h);
    return lifetime > margin ? Clock::Duration(lifetime - margin) : Clock::Duration::zero();
}

std::optional<QString> AccessTokens::resolve(const ProviderAdapter &adapter, const AdapterContext &context,
                                             UpstreamTransport &transport, const TransferOptions &options,
                                             const std::shared_ptr<ReplyChannel> &reply, Done done, const QString &refresh)
{
    std::optional<UpstreamRequest> exchange = adapter.tokenRequest(context);
    if (!exchange)
        return context.apiKey;
    const QByteArray key = cacheKeyOf(*exchange);
    const Clock::TimePoint now = m_clock.now();
    {
        std::lock_guard lock(m_mutex);
        Entry &entry = m_entries[key];
        if (!entry.token.isEmpty() && now < entry.refreshAt && entry.token != refresh) {
            ++m_stats.hits;
            return entry.token;
        }
        if (entry.pending && now - entry.pendingSince < entry.pendingFor) {
            ++m_stats.joined;
            entry.waiters.push_back(Waiter{reply, std::move(done)});
            return std::nullopt;
        }
        // A pending exchange past its own timeout was abandoned (its transport went away): start anew.
        entry.pending = true;
        entry.pendingSince = now;
        entry.pendingFor = Clock::Duration(options.totalTimeout) + Clock::Duration(options.connectTimeout) + std::chrono::seconds(1);
        entry.waiters.push_back(Waiter{reply, std::move(done)});
        ++m_stats.exchanges;
    }

    struct Answer {
        int status = 0;
        HttpHeaders headers;
        QByteArray body;
    };
    auto answer = std::make_shared<Answer>();
    TransferCallbacks callbacks;
    callbacks.onHeaders = [answer](int status, const HttpHeaders &headers) {
        answer->status = status;
        answer->headers = headers;
    };
    callbacks.onData = [answer](QByteArrayView chunk) {
        if (answer->body.size() < 64 * 1024) // a token answer is a few hundred bytes
            answer->body.append(chunk.data(), chunk.size());
    };
    // The exchange's query holds the secret: whatever the transport says is scrubbed of its values.
    QStringList secrets;
    for (const auto &item : QUrlQuery(exchange->url).queryItems(QUrl::FullyDecoded))
        if (item.second.size() >= 4)
            secrets << item.second;
    const QString host = exchange->url.host();
    callbacks.onComplete = [this, key, answer, &adapter, host, secrets](TransferError error, QString message) {
        Result result;
        std::chrono::seconds lifetime{0};
        if (error != TransferError::None) {
            for (const QString &secret : secrets)
                message.replace(secret, QStringLiteral("…"));
            result.failure = transferFailure(error, QStringLiteral("the token exchange at %1 failed: %2").arg(host, message));
        } else {
            const AccessTokenGrant grant = adapter.readTokenAnswer(answer->status, answer->headers, answer->body);
            if (grant.granted()) {
                result.token = grant.token;
                lifetime = grant.lifetime;
            } else {
                result.failure = grant.failure.value_or(Outcome::local(OutcomeKind::ProviderDown, QStringLiteral("no access token")));
            }
        }
        finished(key, result, lifetime);
    };
    transport.start(*exchange, options, std::move(callbacks));
    return std::nullopt;
}

void AccessTokens::finished(const QByteArray &cacheKey, const Result &result, std::chrono::seconds lifetime)
{
    std::vector<Waiter> waiters;
    {
        std::lock_guard lock(m_mutex);
        auto it = m_entries.find(cacheKey);
        if (it == m_entries.end())
            return;
        Entry &entry = it->second;
        waiters = std::exchange(entry.waiters, {});
        entry.pending = false;
        if (result.failure) {
            ++m_stats.failures;
            entry.token.clear(); // a refused credential has no token; the next call asks again
        } else {
            entry.token = result.token;
            entry.refreshAt = m_clock.now() + refreshAfter(lifetime);
        }
    }
    // Every waiter hears it on its own thread, the one that asked included, never from inside this call.
    for (Waiter &waiter : waiters)
        if (waiter.reply)
            waiter.reply->post([done = std::move(waiter.done), result] { done(result); });
}

void AccessTokens::invalidate(const ProviderAdapter &adapter, const AdapterContext &context, const QString &token)
{
    const std::optional<UpstreamRequest> exchange = adapter.tokenRequest(context);
    if (!exchange)
        return;
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(cacheKeyOf(*exchange));
    if (it != m_entries.end() && it->second.token == token)
        it->second.token.clear();
}

void AccessTokens::store(const ProviderAdapter &adapter, const AdapterContext &context, const AccessTokenGrant &grant)
{
    const std::optional<UpstreamRequest> exchange = adapter.tokenRequest(context);
    if (!exchange || !grant.granted())
        return;
    std::lock_guard lock(m_mutex);
    Entry &entry = m_entries[cacheKeyOf(*exchange)];
    entry.token = grant.token;
    entry.refreshAt = m_clock.now() + refreshAfter(grant.lifetime);
}

AccessTokens::Stats AccessTokens::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

} // namespace sb
