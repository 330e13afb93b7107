#include "routing/KeyRing.h"

#include "common/SecretMask.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace sb {

KeyRing::KeyRing(const Clock &clock, const std::vector<ApiKeyConfig> &keys, Clock::Duration defaultCoolDown)
    : m_clock(clock)
    , m_defaultCoolDown(defaultCoolDown)
{
    m_keys.reserve(keys.size());
    for (const auto &config : keys) {
        Key key;
        key.config = config;
        key.disabled = !config.enabled;
        key.disabledReason = config.disabledReason;
        m_keys.push_back(std::move(key));
    }
}

KeyRing::KeyState KeyRing::stateLocked(const Key &key, Clock::TimePoint now) const
{
    if (key.disabled)
        return KeyState::Disabled;
    return key.coolingUntil > now ? KeyState::CoolingDown : KeyState::Active;
}

KeyRing::Key *KeyRing::findLocked(int keyId)
{
    auto it = std::find_if(m_keys.begin(), m_keys.end(), [keyId](const Key &k) { return k.config.id == keyId; });
    return it == m_keys.end() ? nullptr : &*it;
}

std::optional<KeyRing::Lease> KeyRing::next()
{
    std::lock_guard lock(m_mutex);
    if (m_keys.empty()) {
        ++m_stats.leases;
        return Lease{};
    }
    const auto now = m_clock.now();
    const std::size_t n = m_keys.size();
    for (std::size_t step = 0; step < n; ++step) {
        const std::size_t i = (m_cursor + step) % n;
        const Key &key = m_keys[i];
        if (stateLocked(key, now) != KeyState::Active)
            continue;
        m_cursor = (i + 1) % n;
        ++m_stats.leases;
        return Lease{key.config.id, key.config.secret};
    }
    ++m_stats.exhausted;
    return std::nullopt;
}

void KeyRing::reportRateLimited(int keyId, std::optional<std::chrono::milliseconds> retryAfter)
{
    std::lock_guard lock(m_mutex);
    Key *key = findLocked(keyId);
    if (!key || key->disabled)
        return;
    // Without a Retry-After we only guess; a key that keeps getting 429s gets longer pauses.
    const int doublings = std::min(key->rateLimitStreak, 3);
    key->rateLimitStreak = std::min(key->rateLimitStreak + 1, 1000);
    const Clock::Duration coolDown = retryAfter && retryAfter->count() > 0
        ? std::chrono::duration_cast<Clock::Duration>(*retryAfter)
        : m_defaultCoolDown * (1 << doublings);
    const auto until = m_clock.now() + coolDown;
    // Two workers may report the same key; a short Retry-After must not shorten a longer one.
    key->coolingUntil = std::max(key->coolingUntil, until);
    ++m_stats.coolDowns;
    spdlog::debug("API key '{}' ({}) rate limited, cooling for {:.1f} s", key->config.label.toStdString(),
                  maskSecret(key->config.secret).toStdString(), toSeconds(coolDown));
}

void KeyRing::reportAuthError(int keyId, const QString &reason)
{
    std::lock_guard lock(m_mutex);
    Key *key = findLocked(keyId);
    if (!key || key->disabled)
        return;
    key->disabled = true;
    key->disabledReason = reason;
    ++m_stats.disables;
    spdlog::warn("API key '{}' ({}) disabled: {}", key->config.label.toStdString(),
                 maskSecret(key->config.secret).toStdString(), reason.toStdString());
}

void KeyRing::reportSuccess(int keyId)
{
    std::lock_guard lock(m_mutex);
    if (Key *key = findLocked(keyId))
        key->rateLimitStreak = 0;
}

bool KeyRing::allCoolingOrDisabled() const
{
    std::lock_guard lock(m_mutex);
    if (m_keys.empty())
        return false;
    const auto now = m_clock.now();
    return std::none_of(m_keys.begin(), m_keys.end(),
                        [&](const Key &k) { return stateLocked(k, now) == KeyState::Active; });
}

std::optional<Clock::Duration> KeyRing::soonestAvailableIn() const
{
    std::lock_guard lock(m_mutex);
    if (m_keys.empty())
        return Clock::Duration::zero();
    const auto now = m_clock.now();
    std::optional<Clock::Duration> soonest;
    for (const Key &key : m_keys) {
        switch (stateLocked(key, now)) {
        case KeyState::Active:
            return Clock::Duration::zero();
        case KeyState::CoolingDown:
            if (!soonest || key.coolingUntil - now < *soonest)
                soonest = key.coolingUntil - now;
            break;
        case KeyState::Disabled:
            break;
        }
    }
    return soonest;
}

int KeyRing::healthyCount() const
{
    std::lock_guard lock(m_mutex);
    const auto now = m_clock.now();
    return static_cast<int>(std::count_if(m_keys.begin(), m_keys.end(),
                                          [&](const Key &k) { return stateLocked(k, now) == KeyState::Active; }));
}

int KeyRing::totalCount() const
{
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_keys.size());
}

std::vector<KeyRing::KeyStatus> KeyRing::status() const
{
    std::lock_guard lock(m_mutex);
    const auto now = m_clock.now();
    std::vector<KeyStatus> out;
    out.reserve(m_keys.size());
    for (const Key &key : m_keys) {
        const KeyState state = stateLocked(key, now);
        out.push_back(KeyStatus{key.config.id, key.config.label, maskSecret(key.config.secret), state,
                                state == KeyState::CoolingDown ? key.coolingUntil : Clock::TimePoint{},
                                state == KeyState::Disabled ? key.disabledReason : QString()});
    }
    return out;
}

KeyRing::Stats KeyRing::stats() const
{
    std::lock_guard lock(m_mutex);
    return m_stats;
}

const char *toString(KeyRing::KeyState state)
{
    switch (state) {
    case KeyRing::KeyState::Active: return "active";
    case KeyRing::KeyState::CoolingDown: return "cooling_down";
    case KeyRing::KeyState::Disabled: return "disabled";
    }
    return "unknown";
}

} // namespace sb
