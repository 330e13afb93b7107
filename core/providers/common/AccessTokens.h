#pragma once

#include "common/Clock.h"
#include "model/Outcome.h"
#include "net/UpstreamTransfer.h"

#include <QByteArray>
#include <QString>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <map>
#include <vector>

namespace sb {

class ProviderAdapter;
class ReplyChannel;
class UpstreamTransport;
struct AdapterContext;

// What a provider's token endpoint answered (ProviderAdapter::readTokenAnswer): a token and how
// long it lives, or why there is none.
struct AccessTokenGrant {
    QString token;
    std::chrono::seconds lifetime{0};
    std::optional<Outcome> failure; // set when no token was granted: AUTH_ERROR for refused credentials

    bool granted() const { return !failure && !token.isEmpty(); }
};

// Keys a dialect exchanges for short-lived access tokens before it can send them (ERNIE's
// "API_KEY:SECRET_KEY", ARCHITECTURE.md, "Keys exchanged for access tokens"): one token per
// credential, fetched once and shared by every worker until shortly before it expires. The
// exchange runs on the asking worker's own UpstreamTransport and loop, never blocking it; callers
// that ask while it runs wait for the same exchange. Thread-safe. Holds tokens, never logs them.
class AccessTokens {
public:
    struct Result {
        QString token;                  // what goes on the wire in place of the key
        std::optional<Outcome> failure; // set when the exchange failed (the transport, or the provider's refusal)
    };
    using Done = std::function<void(const Result &result)>;

    explicit AccessTokens(const Clock &clock) : m_clock(clock) {}

    // The key to send for `context.apiKey` at once: the key itself when the dialect sends it as
    // given, or the cached token. std::nullopt when an exchange is needed: it starts (or one already
    // running is joined) on `transport` with `options`, and `done` runs later on `reply`'s thread.
    // `refresh` skips a cached token equal to it (the provider refused it).
    std::optional<QString> resolve(const ProviderAdapter &adapter, const AdapterContext &context, UpstreamTransport &transport,
                                   const TransferOptions &options, const std::shared_ptr<ReplyChannel> &reply, Done done,
                                   const QString &refresh = QString());
    // The provider refused `token` (expired, revoked): forgotten, if it is still the cached one.
    void invalidate(const ProviderAdapter &adapter, const AdapterContext &context, const QString &token);
    // A grant obtained elsewhere (a heartbeat's exchange): cached as one of its own would be.
    void store(const ProviderAdapter &adapter, const AdapterContext &context, const AccessTokenGrant &grant);

    // When a token of `lifetime` is exchanged again: shortly before it expires (a tenth of its
    // life before, at most an hour and at least a second), so no call goes out with a token about to lapse.
    static Clock::Duration refreshAfter(std::chrono::seconds lifetime);

    struct Stats {
        quint64 exchanges = 0; // exchanges started
        quint64 hits = 0;      // resolves answered from the cache
        quint64 joined = 0;    // resolves that waited for an exchange already running
        quint64 failures = 0;
    };
    Stats stats() const;

private:
    struct Waiter {
        std::shared_ptr<ReplyChannel> reply;
        Done done;
    };
    struct Entry {
        QString token;
        Clock::TimePoint refreshAt{};
        bool pending = false;
        Clock::TimePoint pendingSince{};
        Clock::Duration pendingFor{}; // the exchange's own timeout: past it, a pending entry is abandoned
        std::vector<Waiter> waiters;
    };
    void finished(const QByteArray &cacheKey, const Result &result, std::chrono::seconds lifetime);

    const Clock &m_clock;
    mutable std::mutex m_mutex;
    std::map<QByteArray, Entry> m_entries; // by a digest of the exchange's request
    Stats m_stats;
};

} // namespace sb
