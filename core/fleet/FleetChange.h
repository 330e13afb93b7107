#pragma once

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <optional>

namespace sb {

// One change of shared health that an instance saw and the others adopt: a circuit that opened or
// closed, a channel ejected, drained or re-admitted, a key cooled down or disabled. It travels as
// JSON on the fleet's pub/sub channel and, for late joiners, as the value of a key that expires
// with the state it describes. Channels and providers are named, not numbered: instances of one
// configuration share the names, while ids belong to each one's database. A key is named by its
// fingerprint, never by its secret.
struct FleetChange {
    enum class Kind { Breaker, Pool, Key };
    static constexpr int kVersion = 1;
    static constexpr qsizetype kMaxBytes = 16 * 1024; // a longer message is no message of ours

    Kind kind = Kind::Breaker;
    QString instance;       // the instance that saw it
    QString channel;        // Breaker, Pool
    QString provider;       // Key
    QString keyFingerprint; // Key: keyFingerprint(secret)
    QString to;             // Breaker: open, half_open, closed; Pool: active, ejected, drained; Key: active, cooling_down, disabled
    QString reason;
    std::int64_t atWallMillis = 0;
    // Breaker "open", Key "cooling_down": until when, on the wall clock (the one clock instances share).
    std::int64_t untilWallMillis = 0;

    QByteArray toJson() const;
    // nullopt, with `error` saying why, for anything that is not a change of this version: a
    // message a newer instance sends is ignored rather than half understood.
    static std::optional<FleetChange> fromJson(const QByteArray &json, QString *error);
    // The key that holds the latest change of this channel or key for instances that join later.
    QByteArray stateKey(const QByteArray &prefix) const;
};

const char *toString(FleetChange::Kind kind); // "breaker", "pool", "key"

// The first 16 hex digits of the secret's SHA-256: the same key on every instance, and nothing a
// reader of Redis could use to call a provider.
QString keyFingerprint(const QString &secret);

} // namespace sb
