#pragma once

#include "common/Clock.h"
#include "health/HealthEvent.h"
#include "model/ProviderConfig.h"

#include <QString>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace sb {

// A provider's API keys, rotated on rate limits (the first tier of defence). A 429 cools the
// key that got it for as long as the provider's own hint says (Retry-After, a reset header, a
// retryDelay), or without one for a short default that doubles only while the provider keeps
// refusing that key after each rest; the next lease takes another key, never the cooling one;
// an auth error disables the key; the engine host keeps that refusal in the database (ApiKeyConfig::
// refusedAtMs), so only a new secret for the key or re-enabling it brings it back.
// Thread-safe. Secrets leave this class only inside a Lease; status() and logs carry the masked form.
// A provider configured with no keys (a local server, a gateway that holds the keys itself) still
// cools as a whole on a 429: it is one identity to the provider, and sending it the next request at
// once only earns another 429 (the launch-day drill's primary had no keys, and kept being picked).
class KeyRing {
public:
    enum class KeyState { Active, CoolingDown, Disabled };
    struct KeyStatus {
        int keyId = 0;
        QString label;
        QString masked; // sb::maskSecret(secret), never the secret
        KeyState state = KeyState::Active;
        Clock::TimePoint coolingUntil{};
        QString disabledReason;
    };
    struct Lease {
        int keyId = 0;
        QString secret;
    };
    struct Stats {
        std::uint64_t leases = 0, coolDowns = 0, disables = 0, exhausted = 0;
    };

    // Keys with enabled == false start Disabled with their configured reason; refused ones (refusedAtMs)
    // with the provider's; those whose secret could not be read (secretUnreadable) with why.
    KeyRing(const Clock &clock, const std::vector<ApiKeyConfig> &keys,
            Clock::Duration defaultCoolDown = std::chrono::seconds(1));

    // Round-robin over Active keys (a cooling key whose time has passed is Active again); nullopt if none.
    // A provider configured with no keys at all gets Lease{0, ""}: it needs no key; nullopt while a
    // 429 cools it.
    std::optional<Lease> next();
    // Cools the key for retryAfter (the provider's hint; `hintFrom` names it for the log), or — when the
    // provider sent none — for the default, doubled for each further 429 in a row (at most 32×). Only a
    // 429 that finds the key serving (its rest over) lengthens the run: the 429s of requests sent in the
    // same burst, before the first one cooled it, are the same refusal. A longer cool-down already
    // running is kept.
    void reportRateLimited(int keyId, std::optional<std::chrono::milliseconds> retryAfter, const char *hintFrom = nullptr);
    // The longest the default is doubled to: 32×, about half a minute at the 1 s default.
    static constexpr int kMaxDoublings = 5;
    // The setting applies to cool-downs that start after the call.
    void setDefaultCoolDown(Clock::Duration coolDown);
    // Where a key's cool-down (from Active) and disable are reported, for the console and the history.
    void setEvents(std::shared_ptr<const EventDispatcher> events, int providerId, const QString &providerName);
    // Disabled for good (the event it emits is what the engine host stores as the key's refusal); reason
    // is shown in the console. A provider without keys is not disabled by an auth error: its channel's
    // health records it.
    // `fleetOrigin`: another instance of the fleet saw the refusal (its id goes into the event).
    void reportAuthError(int keyId, const QString &reason, const QString &fleetOrigin = {});
    // Another instance of the fleet got a 429 with this key (0: the provider without keys): it rests
    // here too until `until`, unless a longer rest runs already. True when the key was serving.
    bool adoptCoolDown(int keyId, Clock::TimePoint until, const QString &fleetOrigin);
    // A ring kept across a configuration change takes the refusals that configuration carries (one
    // stored meanwhile, or by another process) without emitting them again. Clearing a refusal is
    // not done here: a re-enabled key gets a new ring (RoutingTable).
    void adoptRefusals(const std::vector<ApiKeyConfig> &keys);
    // Ends the run of 429s that lengthens the default cool-down. It does not end a running cool-down:
    // a success may come from a request sent before the 429, and the provider asked us to wait.
    void reportSuccess(int keyId);

    bool allCoolingOrDisabled() const; // → the provider counts as rate limited
    // Zero when a key is usable now; the time until the first cooling key comes back; nullopt when every
    // key is disabled (no wait helps). For a 429's Retry-After to the client.
    std::optional<Clock::Duration> soonestAvailableIn() const;
    // Why no key of this provider can ever be leased when that is because their secrets could not be
    // read (every key that is not switched off is unreadable); empty otherwise.
    QString unreadableSecretReason() const;
    int healthyCount() const; // configured keys Active now (0 without keys)
    int totalCount() const;   // configured keys
    std::vector<KeyStatus> status() const;
    Stats stats() const;

private:
    struct Key {
        ApiKeyConfig config;
        bool disabled = false;
        QString disabledReason;
        Clock::TimePoint coolingUntil{};
        int rateLimitStreak = 0; // 429s that found the key serving, in a row without a success in between
    };
    KeyState stateLocked(const Key &key, Clock::TimePoint now) const;
    std::optional<HealthEvent> coolLocked(int keyId, std::optional<std::chrono::milliseconds> retryAfter, const char *hintFrom);
    Key *findLocked(int keyId);
    // The keys a lease can come from: the configured ones, or the one keyless identity.
    std::vector<Key> &leasableLocked() { return m_keys.empty() ? m_keyless : m_keys; }
    const std::vector<Key> &leasableLocked() const { return m_keys.empty() ? m_keyless : m_keys; }

    // Built under the lock, emitted after it: the sink must never run inside the ring's lock.
    HealthEvent keyEvent(const Key &key, const char *to, const QString &reason) const;
    void emitOutsideLock(const HealthEvent &event) const;

    const Clock &m_clock;
    Clock::Duration m_defaultCoolDown;
    std::shared_ptr<const EventDispatcher> m_events;
    int m_providerId = 0;
    QString m_providerName;
    mutable std::mutex m_mutex;
    std::vector<Key> m_keys;
    std::vector<Key> m_keyless{Key{}}; // id 0, no secret: stands for the provider itself when m_keys is empty
    std::size_t m_cursor = 0;
    Stats m_stats;
    std::optional<Clock::TimePoint> m_keylessAuthWarned; // the last "misconfigured" line of a keyless provider
};

const char *toString(KeyRing::KeyState state); // "active", "cooling_down", "disabled"

} // namespace sb
