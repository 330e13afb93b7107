#pragma once

#include "common/Clock.h"
#include "model/ProviderConfig.h"

#include <QString>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace sb {

// A provider's API keys, rotated on rate limits (MISSION.md §2, first tier of defence). A 429 cools the
// key that got it (for the Retry-After when the provider sent one) and the next lease takes another key;
// an auth error disables the key until the user edits the provider (which builds a new KeyRing).
// Thread-safe. Secrets leave this class only inside a Lease; status() and logs carry the masked form.
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

    // Keys with enabled == false start Disabled with their configured reason.
    KeyRing(const Clock &clock, const std::vector<ApiKeyConfig> &keys,
            Clock::Duration defaultCoolDown = std::chrono::seconds(30));

    // Round-robin over Active keys (a cooling key whose time has passed is Active again); nullopt if none.
    // A provider configured with no keys at all (a local server) gets Lease{0, ""}: it needs no key,
    // and is never "rate limited" by its key ring.
    std::optional<Lease> next();
    // Cools the key for retryAfter, or — when the provider sent none — for the default, doubled for each
    // further 429 in a row (at most 8×). A longer cool-down already running is kept.
    void reportRateLimited(int keyId, std::optional<std::chrono::milliseconds> retryAfter);
    // Disabled until the config is edited (a new KeyRing); reason is shown in the console.
    void reportAuthError(int keyId, const QString &reason);
    // Ends the run of 429s that lengthens the default cool-down. It does not end a running cool-down:
    // a success may come from a request sent before the 429, and the provider asked us to wait.
    void reportSuccess(int keyId);

    bool allCoolingOrDisabled() const; // → the provider counts as rate limited (false with no keys configured)
    // Zero when a key is usable now; the time until the first cooling key comes back; nullopt when every
    // key is disabled (no wait helps). For a 429's Retry-After to the client.
    std::optional<Clock::Duration> soonestAvailableIn() const;
    int healthyCount() const; // Active now
    int totalCount() const;
    std::vector<KeyStatus> status() const;
    Stats stats() const;

private:
    struct Key {
        ApiKeyConfig config;
        bool disabled = false;
        QString disabledReason;
        Clock::TimePoint coolingUntil{};
        int rateLimitStreak = 0; // 429s in a row without a success in between
    };
    KeyState stateLocked(const Key &key, Clock::TimePoint now) const;
    Key *findLocked(int keyId);

    const Clock &m_clock;
    const Clock::Duration m_defaultCoolDown;
    mutable std::mutex m_mutex;
    std::vector<Key> m_keys;
    std::size_t m_cursor = 0;
    Stats m_stats;
};

const char *toString(KeyRing::KeyState state); // "active", "cooling_down", "disabled"

} // namespace sb
