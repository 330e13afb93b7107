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
        key.disabled = !config.enabled || config.refused() || config.secretUnreadable();
        key.disabledReason = !config.enabled      ? config.disabledReason
            : config.secretUnreadable()           ? QStringLiteral("secret cannot be read: %1").arg(config.unreadableReason)
                                                  : config.refusedReason;
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
    std::vector<Key> &leasable = leasableLocked();
    auto it = std::find_if(leasable.begin(), leasable.end(), [keyId](const Key &k) { return k.config.id == keyId; });
    return it == leasable.end() ? nullptr : &*it;
}

void KeyRing::setDefaultCoolDown(Clock::Duration coolDown)
{
    std::lock_guard lock(m_mutex);
    m_defaultCoolDown = coolDown;
}

void KeyRing::setEvents(std::shared_ptr<const EventDispatcher> events, int providerId, const QString &providerName)
{
    std::lock_guard lock(m_mutex);
    m_events = std::move(events);
    m_providerId = providerId;
    m_providerName = providerName;
}

HealthEvent KeyRing::keyEvent(const Key &key, const char *to, const QString &reason) const
{
    HealthEvent e;
    e.type = HealthEvent::Type::Key;
    e.providerId = m_providerId;
    e.keyId = key.config.id;
    e.channelName = m_providerName;
    e.from = QStringLiteral("active");
    e.to = QString::fromLatin1(to);
    const QString who = m_keys.empty()
        ? QStringLiteral("%1 (no API key)").arg(m_providerName)
        : QStringLiteral("%1 key '%2' (%3)").arg(m_providerName, key.config.label, maskSecret(key.config.secret));
    e.reason = QStringLiteral("%1 %2").arg(who, reason);
    if (!m_keys.empty())
        e.keyMasked = maskSecret(key.config.secret);
    e.at = m_clock.now();
    e.wallMillis = m_clock.wallMillis();
    return e;
}

void KeyRing::emitOutsideLock(const HealthEvent &event) const
{
    std::shared_ptr<const EventDispatcher> events;
    {
        std::lock_guard lock(m_mutex);
        events = m_events;
    }
    if (events)
        events->emitEvent(event);
}

std::optional<KeyRing::Lease> KeyRing::next()
{
    std::lock_guard lock(m_mutex);
    const auto now = m_clock.now();
    const std::vector<Key> &leasable = leasableLocked();
    const std::size_t n = leasable.size();
    for (std::size_t step = 0; step < n; ++step) {
        const std::size_t i = (m_cursor + step) % n;
        const Key &key = leasable[i];
        if (stateLocked(key, now) != KeyState::Active)
            continue;
        m_cursor = (i + 1) % n;
        ++m_stats.leases;
        return Lease{key.config.id, key.config.secret};
    }
    ++m_stats.exhausted;
    return std::nullopt;
}

void KeyRing::reportRateLimited(int keyId, std::optional<std::chrono::milliseconds> retryAfter, const char *hintFrom)
{
    std::optional<HealthEvent> event;
    {
        std::lock_guard lock(m_mutex);
        event = coolLocked(keyId, retryAfter, hintFrom);
    }
    if (event)
        emitOutsideLock(*event);
}

std::optional<HealthEvent> KeyRing::coolLocked(int keyId, std::optional<std::chrono::milliseconds> retryAfter, const char *hintFrom)
{
    Key *key = findLocked(keyId);
    if (!key || key->disabled)
        return std::nullopt;
    // Only a key that was serving reports, and only such a 429 lengthens the run: the 429s of requests
    // that were already on their way when the first one cooled the key are the same refusal, and
    // counting them turned a one-second burst into minutes of rest.
    const bool wasActive = stateLocked(*key, m_clock.now()) == KeyState::Active;
    if (wasActive)
        key->rateLimitStreak = std::min(key->rateLimitStreak + 1, 1000);
    // A straggler of the burst gets the length the running rest was given, not the next doubling.
    const int doublings = std::clamp(key->rateLimitStreak - 1, 0, kMaxDoublings);
    // The provider knows when it admits again; without its word we only guess, short, and longer
    // only while it keeps refusing after each rest.
    const bool hinted = retryAfter && retryAfter->count() > 0;
    const Clock::Duration coolDown = hinted ? std::chrono::duration_cast<Clock::Duration>(*retryAfter)
                                            : m_defaultCoolDown * (1 << doublings);
    const auto until = m_clock.now() + coolDown;
    // Two workers may report the same key; a short Retry-After must not shorten a longer one.
    key->coolingUntil = std::max(key->coolingUntil, until);
    ++m_stats.coolDowns;
    // The operator's line is the event's (control/OperatorLog); these say it for every 429.
    if (m_keys.empty())
        spdlog::debug("provider without keys rate limited, cooling for {:.1f} s", toSeconds(coolDown));
    else
        spdlog::debug("API key '{}' ({}) rate limited, cooling for {:.1f} s", key->config.label.toStdString(),
                      maskSecret(key->config.secret).toStdString(), toSeconds(coolDown));
    if (!wasActive || !m_events)
        return std::nullopt;
    QString source;
    if (hinted)
        source = QStringLiteral("the provider's hint, %1").arg(QLatin1String(hintFrom ? hintFrom : "Retry-After"));
    else if (doublings == 0)
        source = QStringLiteral("no hint from the provider: the default");
    else
        source = QStringLiteral("no hint from the provider: the default doubled %1 time%2, 429 number %3 in a row")
                     .arg(doublings)
                     .arg(doublings == 1 ? "" : "s")
                     .arg(doublings + 1);
    return keyEvent(*key, "cooling_down",
                    QStringLiteral("got a 429, cooling for %1 s (%2)").arg(toSeconds(coolDown), 0, 'f', 1).arg(source));
}


void KeyRing::reportAuthError(int keyId, const QString &reason, const QString &fleetOrigin)
{
    HealthEvent event;
    {
        std::lock_guard lock(m_mutex);
        if (m_keys.empty()) {
            // No key to blame: the provider wants one and was given none, which no failover mends.
            // Said at most every 10 minutes, however many requests it refuses meanwhile.
            const auto now = m_clock.now();
            if (!m_keylessAuthWarned || now - *m_keylessAuthWarned >= std::chrono::minutes(10)) {
                m_keylessAuthWarned = now;
                spdlog::warn("provider {} is misconfigured: it refused a request ({}) and has no API key; add one in Providers "
                             "(its channels fail over on every request until then)",
                             m_providerName.toStdString(), reason.toStdString());
            }
            return;
        }
        Key *key = findLocked(keyId);
        if (!key || key->disabled)
            return;
        key->disabled = true;
        key->disabledReason = reason;
        ++m_stats.disables;
        spdlog::debug("API key '{}' ({}) disabled: {}", key->config.label.toStdString(),
                      maskSecret(key->config.secret).toStdString(), reason.toStdString());
        if (!m_events)
            return;
        const bool lastOne = std::all_of(m_keys.begin(), m_keys.end(), [](const Key &k) { return k.disabled; });
        event = keyEvent(*key, "disabled",
                         QStringLiteral("disabled: %1%2").arg(reason, lastOne ? QStringLiteral("; no enabled key is left, so %1 gets no "
                                                                                               "traffic until a key is fixed in Providers")
                                                                                    .arg(m_providerName)
                                                                              : QString()));
        event.cause = reason;
        event.fleetOrigin = fleetOrigin;
    }
    emitOutsideLock(event);
}

bool KeyRing::adoptCoolDown(int keyId, Clock::TimePoint until, const QString &fleetOrigin)
{
    HealthEvent event;
    {
        std::lock_guard lock(m_mutex);
        Key *key = findLocked(keyId);
        const auto now = m_clock.now();
        if (!key || key->disabled || until <= now)
            return false;
        const bool wasActive = stateLocked(*key, now) == KeyState::Active;
        key->coolingUntil = std::max(key->coolingUntil, until);
        if (!wasActive)
            return false;
        ++m_stats.coolDowns;
        if (!m_events)
            return true;
        event = keyEvent(*key, "cooling_down",
                         QStringLiteral("got a 429 on %1, cooling for %2 s").arg(fleetOrigin).arg(toSeconds(until - now), 0, 'f', 1));
        event.fleetOrigin = fleetOrigin;
    }
    emitOutsideLock(event);
    return true;
}

void KeyRing::adoptRefusals(const std::vector<ApiKeyConfig> &keys)
{
    std::lock_guard lock(m_mutex);
    for (const ApiKeyConfig &config : keys) {
        if (!config.refused())
            continue;
        Key *key = findLocked(config.id);
        if (!key || key->disabled)
            continue;
        key->disabled = true;
        key->disabledReason = config.refusedReason;
    }
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
    const auto now = m_clock.now();
    const std::vector<Key> &leasable = leasableLocked();
    return std::none_of(leasable.begin(), leasable.end(), [&](const Key &k) { return stateLocked(k, now) == KeyState::Active; });
}

std::optional<Clock::Duration> KeyRing::soonestAvailableIn() const
{
    std::lock_guard lock(m_mutex);
    const auto now = m_clock.now();
    std::optional<Clock::Duration> soonest;
    for (const Key &key : leasableLocked()) {
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

QString KeyRing::unreadableSecretReason() const
{
    std::lock_guard lock(m_mutex);
    if (m_keys.empty())
        return {};
    for (const Key &key : m_keys)
        if (key.config.enabled && !key.config.secretUnreadable())
            return {};
    for (const Key &key : m_keys)
        if (key.config.secretUnreadable())
            return key.config.unreadableReason;
    return {};
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
